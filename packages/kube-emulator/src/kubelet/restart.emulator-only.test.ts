// E3 across a restart of both the emulator (its data file) and the simulator: what exists is adopted.
// Emulator-only: a real server cannot be restarted on a data file by a test.
import type { V1Deployment } from '@kubernetes/client-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../testing.ts';
import { GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE, startKubeletSimulator } from './simulator.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubelet-restart-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function gateway(name: string, variant: number): V1Deployment {
  // Templates that differ in shape (volumes, env sources, annotations) so that a hash sensitive to
  // key order or to how an object was read (list or watch) shows.
  return {
    metadata: { name, labels: { app: name, [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE }, annotations: { 'example.com/owner': 'tests' } },
    spec: {
      replicas: 1 + (variant % 2),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'gw' }, annotations: { 'example.com/revision': `r-${variant}` } },
        spec: {
          serviceAccountName: 'default',
          containers: [
            {
              name: 'gateway',
              image: `ghcr.io/openclaw/gateway:${variant}`,
              env: [
                { name: 'PLAIN', value: 'x' },
                { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'value' } } },
              ],
              envFrom: variant % 3 === 0 ? [{ configMapRef: { name: 'settings' }, prefix: 'S_' }] : undefined,
              volumeMounts: [{ name: 'config', mountPath: '/etc/gw', readOnly: true }],
              ports: [{ containerPort: 8080 }],
            },
          ],
          volumes: [{ name: 'config', configMap: { name: 'settings', items: [{ key: 'mode', path: 'mode.txt' }] } }],
        },
      },
    },
  };
}

interface Seen {
  replicaSets: Record<string, string>;
  pods: Record<string, string>;
  revisions: Record<string, string>;
}

async function snapshot(cluster: TestCluster, namespace: string): Promise<Seen> {
  const sets = (await cluster.apps.listNamespacedReplicaSet({ namespace })).items;
  const pods = (await cluster.core.listNamespacedPod({ namespace })).items;
  const deployments = (await cluster.apps.listNamespacedDeployment({ namespace })).items;
  return {
    replicaSets: Object.fromEntries(sets.map((s) => [s.metadata!.name!, s.metadata!.uid!])),
    pods: Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!])),
    revisions: Object.fromEntries(deployments.map((d) => [d.metadata!.name!, d.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? ''])),
  };
}

async function allAvailable(cluster: TestCluster, namespace: string, names: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const items = (await cluster.apps.listNamespacedDeployment({ namespace })).items.filter((d) => names.includes(d.metadata?.name ?? ''));
    const ready = items.filter((d) => d.status?.observedGeneration === d.metadata?.generation && d.status?.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable'));
    if (ready.length === names.length) return;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(items.map((d) => [d.metadata?.name, d.status]))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('kubelet simulator across a restart', () => {
  it('E3 after the emulator and the simulator restart on the same data file, every unchanged gateway keeps its ReplicaSet and Pods', async () => {
    const dataFile = join(dir, 'kube.json');
    const namespace = 'restart';
    const names = Array.from({ length: 6 }, (_, i) => `gw-${i}`);
    const first = await startTestCluster({ dataFile, token: 't' });
    const errors: unknown[] = [];
    let simulator = await startKubeletSimulator(first.kubeConfig, { retryDelayMs: 100, onError: (e) => errors.push(e) });
    let before: Seen;
    try {
      await first.core.createNamespace({ body: { metadata: { name: namespace } } });
      await first.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'creds' }, stringData: { value: 'sk-1' } } });
      await first.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' }, data: { mode: 'fast' } } });
      for (const [i, name] of names.entries()) await first.apps.createNamespacedDeployment({ namespace, body: gateway(name, i) });
      await allAvailable(first, namespace, names);
      before = await snapshot(first, namespace);
    } finally {
      await simulator.stop();
      await first.close();
    }
    expect(Object.keys(before.replicaSets)).toHaveLength(names.length);
    expect(Object.keys(before.pods)).toHaveLength(names.reduce((n, _, i) => n + 1 + (i % 2), 0));

    const second = await startTestCluster({ dataFile, token: 't' });
    simulator = await startKubeletSimulator(second.kubeConfig, { retryDelayMs: 100, onError: (e) => errors.push(e) });
    try {
      await allAvailable(second, namespace, names);
      // A later write proves the simulator has evaluated every gateway by now: the queue is served in order.
      await second.apps.createNamespacedDeployment({ namespace, body: gateway('gw-late', 1) });
      await allAvailable(second, namespace, [...names, 'gw-late']);
      const after = await snapshot(second, namespace);
      const unchanged = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).filter(([name]) => !name.startsWith('gw-late')));
      expect(unchanged(after.replicaSets)).toEqual(before.replicaSets);
      expect(unchanged(after.pods)).toEqual(before.pods);
      expect(unchanged(after.revisions)).toEqual(before.revisions);
      expect(errors).toEqual([]);
    } finally {
      await simulator.stop();
      await second.close();
    }
  });
});
