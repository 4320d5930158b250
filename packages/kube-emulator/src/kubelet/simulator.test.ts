import type { V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, jsonPatch, mergePatch, startTestCluster, type TestCluster } from '../testing.ts';
import { GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE, startKubeletSimulator, type KubeletSimulator } from './simulator.ts';

let cluster: TestCluster;
let simulator: KubeletSimulator;
let ns: string;
const errors: unknown[] = [];

beforeAll(async () => {
  cluster = await startTestCluster();
  simulator = await startKubeletSimulator(cluster.kubeConfig, { retryDelayMs: 100, onError: (e) => errors.push(e) });
  ns = await createNamespace(cluster, 'kubelet');
});
afterAll(async () => {
  await simulator.stop();
  await cluster.close();
});

type Ref = { secret?: [string, string]; configMap?: [string, string] };

function gateway(name: string, refs: Ref, labelled = true): V1Deployment {
  const env = [];
  if (refs.secret) env.push({ name: 'MODEL_KEY', valueFrom: { secretKeyRef: { name: refs.secret[0], key: refs.secret[1], optional: false } } });
  if (refs.configMap) env.push({ name: 'SETTINGS', valueFrom: { configMapKeyRef: { name: refs.configMap[0], key: refs.configMap[1] } } });
  const labels = { app: name, ...(labelled ? { [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE } : {}) };
  return {
    metadata: { name, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/gateway:1', env }] } },
    },
  };
}

async function waitFor(name: string, done: (d: V1Deployment) => boolean): Promise<V1Deployment> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const d = await cluster.apps.readNamespacedDeployment({ name, namespace: ns });
    if (done(d)) return d;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${name}: ${JSON.stringify(d.status)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const available = (d: V1Deployment) => d.status?.conditions?.find((c) => c.type === 'Available');
const progressing = (d: V1Deployment) => d.status?.conditions?.find((c) => c.type === 'Progressing');

/** The waiting reason and message of each container of the Deployment's current Pods, as the kubelet reports them. */
async function waiting(name: string): Promise<Array<{ container: string; reason?: string; message?: string }>> {
  const pods = (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${name}` })).items;
  return pods.flatMap((p) => (p.status?.containerStatuses ?? []).filter((c) => c.state?.waiting).map((c) => ({ container: c.name, reason: c.state!.waiting!.reason, message: c.state!.waiting!.message })));
}

async function secret(name: string, data: Record<string, string>) {
  await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name }, stringData: data } });
}

describe('kubelet simulator', () => {
  it('E3 a gateway whose every secretKeyRef resolves becomes available', async () => {
    await secret('creds-ok', { value: 'sk-1' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-ok', { secret: ['creds-ok', 'value'] }) });
    const d = await waitFor('gw-ok', (x) => available(x)?.status === 'True');
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 });
    expect(available(d)).toMatchObject({ reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    // As the controllers keep them: one ReplicaSet owned by the Deployment, one running Pod owned by it.
    const sets = (await cluster.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=gw-ok' })).items;
    expect(sets).toHaveLength(1);
    expect(sets[0]!.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'gw-ok', uid: d.metadata?.uid, controller: true });
    expect(sets[0]!.metadata?.name).toMatch(/^gw-ok-[a-z0-9]{10}$/);
    expect(progressing(d)).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${sets[0]!.metadata?.name}" has successfully progressed.` });
    const pods = (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=gw-ok' })).items;
    expect(pods).toHaveLength(1);
    expect(pods[0]!.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', name: sets[0]!.metadata?.name });
    expect(pods[0]!.status).toMatchObject({ phase: 'Running', containerStatuses: [{ name: 'gateway', ready: true }] });
  });

  it('E3 a missing Secret is CreateContainerConfigError naming the secret and key, and creating it recovers', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-missing', { secret: ['creds-later', 'value'] }) });
    const failing = await waitFor('gw-missing', (x) => available(x)?.status === 'False');
    expect(available(failing)).toMatchObject({ reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
    expect(progressing(failing)).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated' });
    expect(await waiting('gw-missing')).toEqual([{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-later" not found' }]);
    expect(failing.status).toMatchObject({ observedGeneration: 1, replicas: 1, unavailableReplicas: 1 });
    expect(failing.status?.availableReplicas).toBeUndefined();
    await secret('creds-later', { value: 'sk-2' });
    const recovered = await waitFor('gw-missing', (x) => available(x)?.status === 'True');
    expect(recovered.status?.availableReplicas).toBe(1);
  });

  it('E3 a missing key names the key and the Secret; adding the key recovers, deleting the Secret breaks it again', async () => {
    await secret('creds-keys', { other: 'x' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-key', { secret: ['creds-keys', 'value'] }) });
    await waitFor('gw-key', (x) => available(x)?.status === 'False');
    expect(await waiting('gw-key')).toEqual([{ container: 'gateway', reason: 'CreateContainerConfigError', message: `couldn't find key value in Secret ${ns}/creds-keys` }]);
    await cluster.core.patchNamespacedSecret({ name: 'creds-keys', namespace: ns, body: { stringData: { value: 'sk-3' } } }, mergePatch);
    await waitFor('gw-key', (x) => available(x)?.status === 'True');
    await cluster.core.deleteNamespacedSecret({ name: 'creds-keys', namespace: ns });
    await waitFor('gw-key', (x) => available(x)?.status === 'False');
    expect(await waiting('gw-key')).toEqual([{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-keys" not found' }]);
  });

  it('E3 configMapKeyRefs count too', async () => {
    await secret('creds-cm', { value: 'sk' });
    await cluster.apps.createNamespacedDeployment({
      namespace: ns,
      body: gateway('gw-cm', { secret: ['creds-cm', 'value'], configMap: ['settings', 'mode'] }),
    });
    await waitFor('gw-cm', (x) => available(x)?.status === 'False');
    expect(await waiting('gw-cm')).toEqual([{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' }]);
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settings' }, data: { mode: 'fast' } } });
    await waitFor('gw-cm', (x) => available(x)?.status === 'True');
  });

  it('E3 a gateway scaled to zero reports zero replicas at its new generation', async () => {
    await secret('creds-zero', { value: 'sk' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-zero', { secret: ['creds-zero', 'value'] }) });
    await waitFor('gw-zero', (x) => x.status?.availableReplicas === 1);
    await cluster.apps.patchNamespacedDeployment({ name: 'gw-zero', namespace: ns, body: [{ op: 'replace', path: '/spec/replicas', value: 0 }] }, jsonPatch);
    const zero = await waitFor('gw-zero', (x) => x.status?.observedGeneration === 2);
    expect(zero.status?.observedGeneration).toBe(2);
    // Zero replicas is written, and read back absent: the count is an omitempty integer (E8).
    expect(zero.status?.replicas).toBeUndefined();
    expect(zero.status?.availableReplicas).toBeUndefined();
    expect(zero.status?.readyReplicas).toBeUndefined();
  });

  it('E3 a new template that cannot start leaves the old Pod serving; the deadline then reads ProgressDeadlineExceeded', async () => {
    await secret('creds-roll', { value: 'sk' });
    const body = gateway('gw-roll', { secret: ['creds-roll', 'value'] });
    body.spec!.progressDeadlineSeconds = 1;
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    await waitFor('gw-roll', (x) => available(x)?.status === 'True');
    await cluster.apps.patchNamespacedDeployment(
      { name: 'gw-roll', namespace: ns, body: [{ op: 'replace', path: '/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/name', value: 'creds-gone' }] },
      jsonPatch,
    );
    const stuck = await waitFor('gw-roll', (x) => x.status?.observedGeneration === 2 && x.status?.updatedReplicas === 1);
    // maxUnavailable is 0 for one replica: the old Pod keeps the Deployment available.
    expect(available(stuck)?.status).toBe('True');
    expect(stuck.status).toMatchObject({ replicas: 2, updatedReplicas: 1, availableReplicas: 1, unavailableReplicas: 1 });
    expect(await waiting('gw-roll')).toEqual([{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-gone" not found' }]);
    const timedOut = await waitFor('gw-roll', (x) => progressing(x)?.status === 'False');
    expect(progressing(timedOut)).toMatchObject({ reason: 'ProgressDeadlineExceeded' });
    expect(progressing(timedOut)?.message).toMatch(/^ReplicaSet "gw-roll-[a-z0-9]{10}" has timed out progressing\.$/);
    await secret('creds-gone', { value: 'sk' });
    const done = await waitFor('gw-roll', (x) => progressing(x)?.reason === 'NewReplicaSetAvailable');
    expect(done.status).toMatchObject({ replicas: 1, updatedReplicas: 1, availableReplicas: 1 });
    expect((await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=gw-roll' })).items).toHaveLength(1);
  });

  it('E3 Deployments without the gateway label are left alone', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('not-a-gateway', { secret: ['nothing', 'value'] }, false) });
    // A labelled one created after it gets a status; by then the unlabelled one would have too.
    await secret('creds-after', { value: 'sk' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-after', { secret: ['creds-after', 'value'] }) });
    await waitFor('gw-after', (x) => available(x)?.status === 'True');
    const untouched = await cluster.apps.readNamespacedDeployment({ name: 'not-a-gateway', namespace: ns });
    expect(untouched.status?.conditions).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
