// What one change costs the kubelet simulator as its namespace fills: the requests it makes after
// a gateway's ConfigMap or Secret changes, or one of its Pods goes, must not grow with the number of
// gateways beside it. A simulator that re-synced every Deployment of the namespace on each change,
// or read the namespace's every ReplicaSet and Pod on each sync, made deploy → Ready grow with the
// Deployments already there (bench/api/deploy-accumulate.bench.ts).

import { KubeConfig, type RequestContext, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, mergePatch, startTestCluster, type TestCluster } from '../testing.ts';
import { GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE, startKubeletSimulator, type KubeletSimulator } from './simulator.ts';

/** A kubeconfig that records each request a client made with it (method and URL with its query). */
class RecordingKubeConfig extends KubeConfig {
  readonly requests: string[] = [];

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    this.requests.push(`${context.getHttpMethod()} ${context.getUrl()}`);
    await super.applySecurityAuthentication(context);
  }
}

let cluster: TestCluster;
let simulator: KubeletSimulator;
let recording: RecordingKubeConfig;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  recording = new RecordingKubeConfig();
  recording.loadFromString(cluster.kubeConfig.exportConfig());
  simulator = await startKubeletSimulator(recording, { retryDelayMs: 100 });
  ns = await createNamespace(cluster, 'sync-cost');
});
afterAll(async () => {
  await simulator.stop();
  await cluster.close();
});

const DEADLINE_MS = 30_000;

function gateway(i: number): V1Deployment {
  const app = `gw-${i}`;
  const labels = { app, [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE };
  return {
    metadata: { name: app, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          containers: [
            {
              name: 'gateway',
              image: 'ghcr.io/openclaw/gateway:1',
              env: [
                { name: 'TOKEN', valueFrom: { secretKeyRef: { name: `secret-${i}`, key: 'value' } } },
                { name: 'MODE', valueFrom: { configMapKeyRef: { name: `settings-${i}`, key: 'mode' } } },
              ],
            },
          ],
        },
      },
    },
  };
}

async function addGateway(i: number): Promise<void> {
  await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: `secret-${i}` }, stringData: { value: `v-${i}` } } });
  await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `settings-${i}` }, data: { mode: 'a' } } });
  await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway(i) });
}

async function allAvailable(count: number): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const { items } = await cluster.apps.listNamespacedDeployment({ namespace: ns });
    const ready = items.filter((d) => d.status?.observedGeneration === d.metadata?.generation && d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True'));
    if (ready.length === count) return;
    if (Date.now() > deadline) throw new Error(`${ready.length} of ${count} gateways available after ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The simulator's requests in the namespace from now until it has made none for `quietMs`. */
async function requestsAfter(change: () => Promise<void>, quietMs = 400): Promise<string[]> {
  const from = recording.requests.length;
  await change();
  const deadline = Date.now() + DEADLINE_MS;
  let seen = -1;
  while (seen !== recording.requests.length) {
    if (Date.now() > deadline) throw new Error('the simulator never went quiet');
    seen = recording.requests.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
  return recording.requests.slice(from).filter((r) => r.includes(`/namespaces/${ns}/`));
}

/** A request as method and path, object names made generic, with the query's labelSelector. */
function shape(request: string): string {
  const [method, url] = request.split(' ') as [string, string];
  const parsed = new URL(url);
  const path = parsed.pathname.replace(`/namespaces/${ns}/`, '/namespaces/NS/').replace(/\/(gw-\d+[^/]*|secret-\d+|settings-\d+)(?=\/|$)/, '/NAME');
  const selector = parsed.searchParams.get('labelSelector');
  return `${method} ${path}${selector ? ' labelSelector' : ''}`;
}

const tally = (requests: string[]) => {
  const out: Record<string, number> = {};
  for (const r of requests.map(shape)) out[r] = (out[r] ?? 0) + 1;
  return out;
};

describe('kubelet simulator: the cost of one change', () => {
  it('E3 a change to one gateway (its ConfigMap, its Secret, one of its Pods) costs the simulator the same requests with 1, 6 or 18 gateways in the namespace, and it lists only what the Deployment selects', async () => {
    const changes: Record<string, (i: number) => Promise<void>> = {
      'ConfigMap changed': async (i) => {
        await cluster.core.patchNamespacedConfigMap({ name: `settings-0`, namespace: ns, body: { data: { mode: `m${i}` } } }, mergePatch);
      },
      'Secret changed': async (i) => {
        await cluster.core.patchNamespacedSecret({ name: `secret-0`, namespace: ns, body: { stringData: { value: `changed-${i}` } } }, mergePatch);
      },
      'Pod deleted': async () => {
        const [pod] = (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=gw-0' })).items;
        await cluster.core.deleteNamespacedPod({ name: pod!.metadata!.name!, namespace: ns });
      },
    };
    const bySize: Record<string, Record<number, Record<string, number>>> = {};
    let gateways = 0;
    for (const size of [1, 6, 18]) {
      while (gateways < size) await addGateway(gateways++);
      await allAvailable(size);
      await requestsAfter(async () => undefined);
      for (const [name, change] of Object.entries(changes)) {
        const requests = await requestsAfter(() => change(size));
        (bySize[name] ??= {})[size] = tally(requests);
        // Its own ReplicaSets and Pods, by the Deployment's selector, never the namespace's all.
        for (const r of requests.map(shape).filter((s) => s.startsWith('GET') && /\/(replicasets|pods)$/.test(s.split(' ')[1]!))) expect(r).toMatch(/ labelSelector$/);
      }
      await allAvailable(size);
    }
    for (const [name, sizes] of Object.entries(bySize)) {
      expect({ change: name, requests: sizes[6] }).toEqual({ change: name, requests: sizes[1] });
      expect({ change: name, requests: sizes[18] }).toEqual({ change: name, requests: sizes[1] });
    }
    // The change was seen at all (else equal counts would prove nothing).
    expect(Object.values(bySize['Pod deleted']![1]!).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
