// E3 E5: the simulator's Node and its gateways' logs, read with the machine's kubectl (1.33) as an
// operator would: `kubectl get nodes`, `kubectl logs` (pods/log, which the server asks the Pod's
// kubelet for), `kubectl cluster-info`. Emulator only: a real kube-apiserver would ask the
// simulator's loopback endpoint over HTTPS, which it does not serve.

import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlFor, type Kubectl } from '../kubectl-testing.ts';
import { clusterRequest, createNamespace, startTestCluster, type TestCluster } from '../testing.ts';
import { GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE, startKubeletSimulator, type KubeletSimulator } from './simulator.ts';

let cluster: TestCluster;
let simulator: KubeletSimulator;
let kubectl: Kubectl;
let ns: string;
const errors: unknown[] = [];

beforeAll(async () => {
  cluster = await startTestCluster();
  simulator = await startKubeletSimulator(cluster.kubeConfig, { retryDelayMs: 100, onError: (e) => errors.push(e), nodeName: 'occ-node-1' });
  kubectl = await kubectlFor(cluster);
  ns = await createNamespace(cluster, 'logs');
}, 60_000);
afterAll(async () => {
  await simulator?.stop();
  await kubectl?.close();
  await cluster?.close();
});

const CONFIG = JSON.stringify({ agents: { list: [{ id: 'main' }] } });
const CRASHING = JSON.stringify({ agents: {}, 'x-kubelet-simulator': { exit: { code: 3, message: 'Invalid config at /etc/openclaw/openclaw.json: agents.x: unknown key' } } });

/** A gateway Deployment mounting `config` (a ConfigMap's openclaw.json) at /etc/openclaw, or referencing a missing Secret. */
async function gateway(name: string, config: string | undefined): Promise<void> {
  const volumes = config === undefined ? [] : [{ name: 'config', configMap: { name: `${name}-config` } }];
  if (config !== undefined) await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `${name}-config` }, data: { 'openclaw.json': config } } });
  const env = config === undefined ? [{ name: 'KEY', valueFrom: { secretKeyRef: { name: 'missing', key: 'value' } } }] : [];
  const body: V1Deployment = {
    metadata: { name, labels: { app: name, [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/gateway:1', env, volumeMounts: config === undefined ? [] : [{ name: 'config', mountPath: '/etc/openclaw' }] }], volumes },
      },
    },
  };
  await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
}

/** The Deployment's Pod once its container has a state other than ContainerCreating. */
async function podOf(app: string): Promise<V1Pod> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [pod] = (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items;
    const state = pod?.status?.containerStatuses?.[0]?.state;
    if (pod && (state?.running || (state?.waiting && state.waiting.reason !== 'ContainerCreating'))) return pod;
    if (Date.now() > deadline) throw new Error(`no started Pod of ${app}: ${JSON.stringify(pod?.status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('E3 E5 the simulated node and its containers\' logs through kubectl', { timeout: 60_000 }, () => {
  it('E3 kubectl get nodes: one Ready node, the simulator\'s, with its kubelet version; -o wide its address', async () => {
    const lines = (await kubectl.ok(['get', 'nodes'])).trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.split(/\s+/)).toEqual(['occ-node-1', 'Ready', '<none>', expect.stringMatching(/^\d+s$/), 'v1.33.0-occ-emulator']);
    const wide = (await kubectl.ok(['get', 'node', 'occ-node-1', '-o', 'wide'])).trimEnd().split('\n');
    expect(wide[0]?.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(wide[1]).toContain('127.0.0.1');
  });

  it('E3 the Pods the simulator makes are bound to its node (kubectl get pods -o wide names it)', async () => {
    await gateway('gw-bound', CONFIG);
    const pod = await podOf('gw-bound');
    expect(pod.spec?.nodeName).toBe('occ-node-1');
    const out = await kubectl.ok(['-n', ns, 'get', 'pod', pod.metadata!.name!, '-o', 'wide', '--no-headers']);
    expect(out.split(/\s+/)).toContain('occ-node-1');
  });

  it('E5 kubectl logs: the gateway\'s start-up, the config it loaded with its SHA-256, its readiness; --tail and --timestamps', async () => {
    await gateway('gw-logs', CONFIG);
    const pod = (await podOf('gw-logs')).metadata!.name!;
    expect(await kubectl.ok(['-n', ns, 'logs', pod])).toBe(
      [
        'starting OpenClaw gateway (image ghcr.io/openclaw/gateway:1)',
        `config loaded from /etc/openclaw/openclaw.json (sha256 ${sha256(CONFIG)})`,
        'gateway ready: accepting connections',
        '',
      ].join('\n'),
    );
    expect(await kubectl.ok(['-n', ns, 'logs', pod, '--tail=1'])).toBe('gateway ready: accepting connections\n');
    expect(await kubectl.ok(['-n', ns, 'logs', pod, '-c', 'gateway', '--timestamps', '--tail=1'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z gateway ready: accepting connections\n$/);
    expect(await kubectl.ok(['-n', ns, 'logs', 'deployment/gw-logs', '--tail=1'])).toBe('gateway ready: accepting connections\n');
    expect((await kubectl.run(['-n', ns, 'logs', pod, '--previous'])).stderr).toBe(`Error from server (BadRequest): previous terminated container "gateway" in pod "${pod}" not found\n`);
  });

  it('E5 a gateway the crash hook stops: kubectl get pods says CrashLoopBackOff and kubectl logs shows why it exited', async () => {
    await gateway('gw-crashing', CRASHING);
    const pod = (await podOf('gw-crashing')).metadata!.name!;
    expect((await kubectl.ok(['-n', ns, 'get', 'pod', pod, '--no-headers'])).split(/\s+/).slice(0, 4)).toEqual([pod, '0/1', 'CrashLoopBackOff', '1']);
    const logs = await kubectl.ok(['-n', ns, 'logs', pod]);
    expect(logs).toContain(`config loaded from /etc/openclaw/openclaw.json (sha256 ${sha256(CRASHING)})\n`);
    expect(logs).toContain('Invalid config at /etc/openclaw/openclaw.json: agents.x: unknown key\nexiting with code 3\n');
    expect(logs).not.toContain('gateway ready');
    expect(await kubectl.ok(['-n', ns, 'logs', pod, '--previous'])).toBe(logs);
  });

  it("E5 kubectl logs of a container that never started fails with the kubelet's words; of an unknown container, 400 from the server", async () => {
    await gateway('gw-unconfigured', undefined);
    const pod = (await podOf('gw-unconfigured')).metadata!.name!;
    const waiting = await kubectl.run(['-n', ns, 'logs', pod]);
    expect(waiting.code).not.toBe(0);
    expect(waiting.stderr).toBe(`Error from server (BadRequest): container "gateway" in pod "${pod}" is waiting to start: CreateContainerConfigError\n`);
    // kubectl refuses an unknown container itself; the server answers the same for other clients.
    expect((await kubectl.run(['-n', ns, 'logs', pod, '-c', 'sidecar'])).stderr).toBe(`error: container sidecar is not valid for pod ${pod}\n`);
    const raw = await clusterRequest(cluster, `/api/v1/namespaces/${ns}/pods/${pod}/log?container=sidecar`);
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.body.toString('utf8'))).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: `container sidecar is not valid for pod ${pod}` });
  });

  it('E5 kubectl cluster-info names the control plane', async () => {
    const out = await kubectl.ok(['cluster-info']);
    expect(out).toContain(`Kubernetes control plane is running at ${cluster.emulator.url}`);
    expect(errors).toEqual([]);
  });
});
