import type { CoreV1Event, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlFor } from '../kubectl-testing.ts';
import { createNamespace, jsonPatch, mergePatch, startTestCluster, uniqueName, type TestCluster } from '../testing.ts';
import { fetchContainers, GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE, startKubeletSimulator, type KubeletSimulator } from './simulator.ts';

let cluster: TestCluster;
let simulator: KubeletSimulator;
let ns: string;
const errors: unknown[] = [];
const options = { retryDelayMs: 100, onError: (e: unknown) => errors.push(e) };

beforeAll(async () => {
  cluster = await startTestCluster();
  simulator = await startKubeletSimulator(cluster.kubeConfig, options);
  ns = await createNamespace(cluster, 'kubelet');
});
afterAll(async () => {
  await simulator.stop();
  await cluster.close();
});

// Generous: the machine running these is small and shared.
const DEADLINE_MS = 15_000;
const REVISION = 'deployment.kubernetes.io/revision';

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

/** Polls until `probe` answers something, or fails after the deadline with what it last saw. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, last: () => unknown = () => undefined): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last())}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function waitFor(name: string, done: (d: V1Deployment) => boolean): Promise<V1Deployment> {
  let seen: V1Deployment | undefined;
  return until(
    name,
    async () => {
      seen = await cluster.apps.readNamespacedDeployment({ name, namespace: ns });
      return done(seen) ? seen : undefined;
    },
    () => seen?.status,
  );
}

const available = (d: V1Deployment) => d.status?.conditions?.find((c) => c.type === 'Available');
const progressing = (d: V1Deployment) => d.status?.conditions?.find((c) => c.type === 'Progressing');

async function podsOf(app: string): Promise<V1Pod[]> {
  return (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items;
}

/** The waiting reason and message of each container of the Deployment's current Pods, as the kubelet reports them. */
async function waiting(name: string): Promise<Array<{ container: string; reason?: string; message?: string }>> {
  return (await podsOf(name)).flatMap((p) =>
    (p.status?.containerStatuses ?? []).filter((c) => c.state?.waiting).map((c) => ({ container: c.name, reason: c.state!.waiting!.reason, message: c.state!.waiting!.message })),
  );
}

/**
 * The waiting containers of a Deployment's Pods once they read `expected`. A kubelet writes its
 * event and the Pod's status in two requests, so a reader may see either first: wait for the
 * status instead of asserting it the moment the event shows.
 */
async function waitingBecomes(name: string, expected: Awaited<ReturnType<typeof waiting>>): Promise<void> {
  let seen: Awaited<ReturnType<typeof waiting>> = [];
  await until(
    `${name}'s waiting containers to read ${JSON.stringify(expected)}`,
    async () => {
      seen = await waiting(name);
      return isDeepStrictEqual(seen, expected) ? seen : undefined;
    },
    () => seen,
  ).catch(() => undefined);
  expect(seen).toEqual(expected);
}

/** The events recorded on a Pod, as `kubectl describe pod` lists them. */
async function eventsOf(pod: string): Promise<CoreV1Event[]> {
  return (await cluster.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${pod}` })).items;
}

const summary = (events: CoreV1Event[]) => events.map((e) => ({ type: e.type, reason: e.reason, message: e.message, count: e.count })).sort((a, b) => `${a.message}`.localeCompare(`${b.message}`));

async function eventually(pod: string, reason: string, message: string): Promise<CoreV1Event> {
  let seen: CoreV1Event[] = [];
  return until(
    `${reason} event "${message}"`,
    async () => {
      seen = await eventsOf(pod);
      return seen.find((e) => e.reason === reason && e.message === message);
    },
    () => summary(seen),
  );
}

async function secret(name: string, data: Record<string, string>) {
  await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name }, stringData: data } });
}

/**
 * Returns once the simulator has evaluated every gateway of the namespace again since the call:
 * each is touched (a label on the Deployment, which queues it; an annotation would be a new
 * generation, as annotations are copied to ReplicaSets), then a marker, queued after
 * them; it turns available only once its own Secret has been seen.
 */
async function afterReevaluation(): Promise<void> {
  const touch = uniqueName('touch');
  for (const d of (await cluster.apps.listNamespacedDeployment({ namespace: ns })).items) {
    await cluster.apps.patchNamespacedDeployment({ name: d.metadata!.name!, namespace: ns, body: { metadata: { labels: { 'test-touched': touch } } } }, mergePatch);
  }
  const marker = uniqueName('marker');
  await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway(marker, { secret: [marker, 'value'] }) });
  await waitFor(marker, (x) => available(x)?.status === 'False');
  await secret(marker, { value: 'x' });
  await waitFor(marker, (x) => available(x)?.status === 'True');
}

describe('kubelet simulator', () => {
  it('E3 a gateway whose every secretKeyRef resolves becomes available, its ReplicaSet named by its pod-template-hash and numbered revision 1', async () => {
    await secret('creds-ok', { value: 'sk-1' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-ok', { secret: ['creds-ok', 'value'] }) });
    const d = await waitFor('gw-ok', (x) => available(x)?.status === 'True' && x.metadata?.annotations?.[REVISION] === '1');
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 });
    // The revision annotation went through /status, as the controller writes it: the generation did not move.
    expect(d.metadata?.generation).toBe(1);
    expect(available(d)).toMatchObject({ reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    // As the controllers keep them: one ReplicaSet owned by the Deployment, one running Pod owned by it.
    const sets = (await cluster.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=gw-ok' })).items;
    expect(sets).toHaveLength(1);
    const rs = sets[0]!;
    expect(rs.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'gw-ok', uid: d.metadata?.uid, controller: true });
    const hash = rs.metadata?.labels?.['pod-template-hash'] ?? '';
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs.metadata?.name).toBe(`gw-ok-${hash}`);
    expect(rs.metadata?.annotations?.[REVISION]).toBe('1');
    expect(progressing(d)).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "gw-ok-${hash}" has successfully progressed.` });
    const pods = await podsOf('gw-ok');
    expect(pods).toHaveLength(1);
    expect(pods[0]!.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', name: rs.metadata?.name });
    expect(pods[0]!.status).toMatchObject({ phase: 'Running', containerStatuses: [{ name: 'gateway', ready: true }] });
  });

  it("E3 a missing Secret is CreateContainerConfigError naming the secret, with one Failed event in the kubelet's words; creating it recovers", async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-missing', { secret: ['creds-later', 'value'] }) });
    const failing = await waitFor('gw-missing', (x) => available(x)?.status === 'False');
    expect(available(failing)).toMatchObject({ reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
    expect(progressing(failing)).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated' });
    await waitingBecomes('gw-missing', [{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-later" not found' }]);
    expect(failing.status).toMatchObject({ observedGeneration: 1, replicas: 1, unavailableReplicas: 1 });
    expect(failing.status?.availableReplicas).toBeUndefined();
    const [pod] = await podsOf('gw-missing');
    const event = await eventually(pod!.metadata!.name!, 'Failed', 'Error: secret "creds-later" not found');
    expect(event).toMatchObject({
      type: 'Warning',
      count: 1,
      involvedObject: { kind: 'Pod', apiVersion: 'v1', name: pod!.metadata?.name, namespace: ns, uid: pod!.metadata?.uid, fieldPath: 'spec.containers{gateway}' },
      source: { component: 'kubelet' },
    });
    // Evaluated again and again while the Secret is missing: still that one event, once.
    await afterReevaluation();
    expect(summary(await eventsOf(pod!.metadata!.name!))).toEqual([{ type: 'Warning', reason: 'Failed', message: 'Error: secret "creds-later" not found', count: 1 }]);
    await secret('creds-later', { value: 'sk-2' });
    const recovered = await waitFor('gw-missing', (x) => available(x)?.status === 'True');
    expect(recovered.status?.availableReplicas).toBe(1);
  });

  it('E3 a missing key names the key and the Secret; adding the key recovers; a running container keeps running when its Secret goes, a Pod started after waits', async () => {
    await secret('creds-keys', { other: 'x' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-key', { secret: ['creds-keys', 'value'] }) });
    await waitFor('gw-key', (x) => available(x)?.status === 'False');
    await waitingBecomes('gw-key', [{ container: 'gateway', reason: 'CreateContainerConfigError', message: `couldn't find key value in Secret ${ns}/creds-keys` }]);
    await cluster.core.patchNamespacedSecret({ name: 'creds-keys', namespace: ns, body: { stringData: { value: 'sk-3' } } }, mergePatch);
    await waitFor('gw-key', (x) => available(x)?.status === 'True');
    const [running] = await podsOf('gw-key');
    // On a cluster a started container does not notice its Secret going away.
    await cluster.core.deleteNamespacedSecret({ name: 'creds-keys', namespace: ns });
    await afterReevaluation();
    const [still] = await podsOf('gw-key');
    expect(still!.metadata?.uid).toBe(running!.metadata?.uid);
    expect(still!.status).toMatchObject({ phase: 'Running', containerStatuses: [{ name: 'gateway', ready: true }] });
    expect(available(await cluster.apps.readNamespacedDeployment({ name: 'gw-key', namespace: ns }))?.status).toBe('True');
    // A Pod that starts now cannot.
    await cluster.apps.patchNamespacedDeployment({ name: 'gw-key', namespace: ns, body: [{ op: 'replace', path: '/spec/replicas', value: 2 }] }, jsonPatch);
    await waitFor('gw-key', (x) => x.status?.observedGeneration === 2 && x.status?.replicas === 2);
    await waitingBecomes('gw-key', [{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-keys" not found' }]);
  });

  it('E3 configMapKeyRefs count too', async () => {
    await secret('creds-cm', { value: 'sk' });
    await cluster.apps.createNamespacedDeployment({
      namespace: ns,
      body: gateway('gw-cm', { secret: ['creds-cm', 'value'], configMap: ['settings', 'mode'] }),
    });
    await waitFor('gw-cm', (x) => available(x)?.status === 'False');
    await waitingBecomes('gw-cm', [{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' }]);
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settings' }, data: { mode: 'fast' } } });
    await waitFor('gw-cm', (x) => available(x)?.status === 'True');
  });

  it("E3 a configMap volume naming a missing ConfigMap or key keeps the Pod ContainerCreating with one FailedMount event each, in the kubelet's words; volumes before env", async () => {
    const body = gateway('gw-vol', { secret: ['creds-vol', 'value'] });
    const podSpec = body.spec!.template.spec!;
    podSpec.containers[0]!.volumeMounts = [{ name: 'config', mountPath: '/etc/openclaw', readOnly: true }];
    podSpec.volumes = [{ name: 'config', configMap: { name: 'settings-vol', items: [{ key: 'mode', path: 'mode' }] } }];
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    const notFound = 'MountVolume.SetUp failed for volume "config" : configmap "settings-vol" not found';
    let [pod] = await until('a Pod of gw-vol', async () => ((await podsOf('gw-vol')).length > 0 ? podsOf('gw-vol') : undefined));
    const name = pod!.metadata!.name!;
    expect(await eventually(name, 'FailedMount', notFound)).toMatchObject({
      type: 'Warning',
      count: 1,
      involvedObject: { kind: 'Pod', name, namespace: ns, uid: pod!.metadata?.uid },
      source: { component: 'kubelet' },
    });
    await waitFor('gw-vol', (x) => available(x)?.status === 'False');
    // While a volume does not mount no container is created: ContainerCreating, and no word of the missing Secret yet.
    await waitingBecomes('gw-vol', [{ container: 'gateway', reason: 'ContainerCreating', message: undefined }]);
    [pod] = await podsOf('gw-vol');
    expect(pod!.status?.phase).toBe('Pending');
    await afterReevaluation();
    expect(summary(await eventsOf(name))).toEqual([{ type: 'Warning', reason: 'FailedMount', message: notFound, count: 1 }]);

    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settings-vol' }, data: { other: 'x' } } });
    await eventually(name, 'FailedMount', 'MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: mode');
    await cluster.core.patchNamespacedConfigMap({ name: 'settings-vol', namespace: ns, body: { data: { mode: 'fast' } } }, mergePatch);
    // Mounted: now the environment, whose Secret is missing.
    await eventually(name, 'Failed', 'Error: secret "creds-vol" not found');
    await waitingBecomes('gw-vol', [{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-vol" not found' }]);
    await secret('creds-vol', { value: 'sk' });
    await waitFor('gw-vol', (x) => available(x)?.status === 'True');
    expect((await podsOf('gw-vol')).map((p) => p.metadata?.uid)).toEqual([pod!.metadata?.uid]);
    expect(summary(await eventsOf(name))).toEqual([
      { type: 'Warning', reason: 'Failed', message: 'Error: secret "creds-vol" not found', count: 1 },
      { type: 'Warning', reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "config" : configmap "settings-vol" not found', count: 1 },
      { type: 'Warning', reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: mode', count: 1 },
    ]);
  });

  it("E3 secret and projected volumes fail in their plugins' words too, and mount once what they name exists", async () => {
    const body = gateway('gw-secvol', {});
    const podSpec = body.spec!.template.spec!;
    podSpec.containers[0]!.volumeMounts = [
      { name: 'model-auth', mountPath: '/var/run/model-auth' },
      { name: 'bundle', mountPath: '/bundle' },
    ];
    podSpec.volumes = [
      { name: 'model-auth', secret: { secretName: 'auth-secvol' } },
      { name: 'bundle', projected: { sources: [{ configMap: { name: 'cm-secvol' } }, { secret: { name: 'creds-secvol', items: [{ key: 'token', path: 'token' }] } }] } },
    ];
    await secret('creds-secvol', { other: 'x' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    const [pod] = await until('a Pod of gw-secvol', async () => ((await podsOf('gw-secvol')).length > 0 ? podsOf('gw-secvol') : undefined));
    const name = pod!.metadata!.name!;
    await eventually(name, 'FailedMount', 'MountVolume.SetUp failed for volume "model-auth" : secret "auth-secvol" not found');
    await eventually(name, 'FailedMount', 'MountVolume.SetUp failed for volume "bundle" : [configmap "cm-secvol" not found, references non-existent secret key: token]');
    await secret('auth-secvol', { value: 'sk' });
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm-secvol' }, data: { a: 'b' } } });
    await cluster.core.patchNamespacedSecret({ name: 'creds-secvol', namespace: ns, body: { stringData: { token: 't' } } }, mergePatch);
    await waitFor('gw-secvol', (x) => available(x)?.status === 'True');
  });

  it("E3 Pods carry the template's labels and annotations and the pod-template-hash label, as the ReplicaSet controller makes them", async () => {
    await secret('creds-meta', { value: 'sk' });
    const body = gateway('gw-meta', { secret: ['creds-meta', 'value'] });
    body.metadata!.annotations = { 'example.com/instance-generation': '4' };
    body.spec!.template.metadata = { labels: { app: 'gw-meta', 'example.com/revision-number': '3' }, annotations: { 'example.com/revision-id': 'rev-3', 'example.com/template-hash': 'abc' } };
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    await waitFor('gw-meta', (x) => available(x)?.status === 'True');
    const [rs] = (await cluster.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=gw-meta' })).items;
    const hash = rs!.metadata?.labels?.['pod-template-hash'];
    expect(rs!.metadata?.labels).toEqual({ app: 'gw-meta', 'example.com/revision-number': '3', 'pod-template-hash': hash });
    // The Deployment's annotations are handed down to its ReplicaSet (not to the Pods).
    expect(rs!.metadata?.annotations).toMatchObject({ 'example.com/instance-generation': '4', [REVISION]: '1' });
    expect(rs!.spec?.selector.matchLabels).toEqual({ app: 'gw-meta', 'pod-template-hash': hash });
    const [pod] = await podsOf('gw-meta');
    expect(pod!.metadata?.labels).toEqual({ app: 'gw-meta', 'example.com/revision-number': '3', 'pod-template-hash': hash });
    expect(pod!.metadata?.annotations).toEqual({ 'example.com/revision-id': 'rev-3', 'example.com/template-hash': 'abc' });
    expect(pod!.metadata?.name?.startsWith(`${rs!.metadata?.name}-`)).toBe(true);
  });

  it('E3 ReplicaSets are numbered by deployment.kubernetes.io/revision, a rollback takes a new number, and the Deployment carries its current one without a new generation', async () => {
    await secret('creds-rev', { value: 'sk' });
    const body = gateway('gw-rev', { secret: ['creds-rev', 'value'] });
    body.spec!.template.metadata!.annotations = { 'example.com/revision-id': 'a' };
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    const setRevisionId = async (id: string) =>
      cluster.apps.patchNamespacedDeployment({ name: 'gw-rev', namespace: ns, body: { spec: { template: { metadata: { annotations: { 'example.com/revision-id': id } } } } } }, mergePatch);
    const revisions = async () =>
      Object.fromEntries(
        (await cluster.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=gw-rev' })).items.map((rs) => [
          rs.spec?.template?.metadata?.annotations?.['example.com/revision-id'],
          [rs.metadata?.annotations?.[REVISION], rs.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], rs.metadata?.uid],
        ]),
      );
    const settled = (generation: number, revision: string) => (x: V1Deployment) =>
      x.status?.observedGeneration === generation && x.metadata?.annotations?.[REVISION] === revision && progressing(x)?.reason === 'NewReplicaSetAvailable';

    expect((await waitFor('gw-rev', settled(1, '1'))).metadata?.generation).toBe(1);
    const first = await revisions();
    expect(first).toEqual({ a: ['1', undefined, expect.any(String)] });
    await setRevisionId('b');
    expect((await waitFor('gw-rev', settled(2, '2'))).metadata?.generation).toBe(2);
    expect(await revisions()).toEqual({ a: ['1', undefined, first.a![2]], b: ['2', undefined, expect.any(String)] });
    // Back to the first template: its ReplicaSet serves again, as revision 3, remembering it was 1.
    await setRevisionId('a');
    const back = await waitFor('gw-rev', settled(3, '3'));
    expect(back.metadata?.generation).toBe(3);
    const after = await revisions();
    expect(after).toEqual({ a: ['3', '1', first.a![2]], b: ['2', undefined, expect.any(String)] });
    expect(back.spec?.template.metadata?.annotations).toEqual({ 'example.com/revision-id': 'a' });
  });

  it('E3 E10 kubectl rollout history lists the revisions of a gateway, and kubectl rollout undo restores the previous template', async () => {
    const kubectl = await kubectlFor(cluster);
    try {
      await secret('creds-undo', { value: 'sk' });
      await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-undo', { secret: ['creds-undo', 'value'] }) });
      const settled = (generation: number, revision: string) => (x: V1Deployment) =>
        x.status?.observedGeneration === generation && x.metadata?.annotations?.[REVISION] === revision && progressing(x)?.reason === 'NewReplicaSetAvailable';
      await waitFor('gw-undo', settled(1, '1'));
      await kubectl.ok(['-n', ns, 'set', 'image', 'deployment/gw-undo', 'gateway=ghcr.io/openclaw/gateway:2']);
      await waitFor('gw-undo', settled(2, '2'));

      const history = await kubectl.ok(['-n', ns, 'rollout', 'history', 'deployment/gw-undo']);
      expect(history.split('\n').filter((line) => /^\d+\s/.test(line)).map((line) => line.split(/\s+/)[0])).toEqual(['1', '2']);
      expect(await kubectl.ok(['-n', ns, 'rollout', 'history', 'deployment/gw-undo', '--revision=1'])).toContain('ghcr.io/openclaw/gateway:1');

      expect((await kubectl.ok(['-n', ns, 'rollout', 'undo', 'deployment/gw-undo'])).trim()).toBe('deployment.apps/gw-undo rolled back');
      const back = await waitFor('gw-undo', settled(3, '3'));
      expect(back.spec?.template.spec?.containers.map((c) => c.image)).toEqual(['ghcr.io/openclaw/gateway:1']);
      const after = await kubectl.ok(['-n', ns, 'rollout', 'history', 'deployment/gw-undo']);
      expect(after.split('\n').filter((line) => /^\d+\s/.test(line)).map((line) => line.split(/\s+/)[0])).toEqual(['2', '3']);
    } finally {
      await kubectl.close();
    }
  });

  it('E3 a restarted simulator adopts the ReplicaSets and Pods that exist instead of replacing them', async () => {
    await secret('creds-adopt', { value: 'sk' });
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settings-adopt' }, data: { mode: 'fast', 'config.json': '{}' } } });
    for (const i of [0, 1, 2]) {
      const body = gateway(`gw-adopt-${i}`, { secret: ['creds-adopt', 'value'], configMap: ['settings-adopt', 'mode'] });
      const podSpec = body.spec!.template.spec!;
      body.spec!.replicas = 1 + (i % 2);
      body.spec!.template.metadata = { labels: { app: `gw-adopt-${i}`, adopt: 'yes' }, annotations: { 'example.com/revision-id': `r-${i}` } };
      podSpec.serviceAccountName = 'default';
      podSpec.containers[0]!.envFrom = [{ configMapRef: { name: 'settings-adopt' }, prefix: 'S_' }];
      podSpec.containers[0]!.volumeMounts = [{ name: 'config', mountPath: '/etc/openclaw', readOnly: true }];
      podSpec.volumes = [{ name: 'config', configMap: { name: 'settings-adopt', items: [{ key: 'config.json', path: 'openclaw.json' }] } }];
      await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    }
    for (const i of [0, 1, 2]) await waitFor(`gw-adopt-${i}`, (x) => progressing(x)?.reason === 'NewReplicaSetAvailable');
    const uids = async () => ({
      replicaSets: (await cluster.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'adopt=yes' })).items.map((rs) => [rs.metadata?.name, rs.metadata?.uid, rs.metadata?.annotations?.[REVISION]]).sort(),
      pods: (await cluster.core.listNamespacedPod({ namespace: ns, labelSelector: 'adopt=yes' })).items.map((p) => [p.metadata?.name, p.metadata?.uid, p.status?.phase]).sort(),
    });
    const before = await uids();
    expect(before.replicaSets).toHaveLength(3);
    expect(before.pods).toHaveLength(4);

    await simulator.stop();
    simulator = await startKubeletSimulator(cluster.kubeConfig, options);
    await afterReevaluation();
    expect(await uids()).toEqual(before);
    // What it found running, it shows as running.
    expect(simulator.containers(ns, { labelSelector: { adopt: 'yes' } }).map((c) => c.uid).sort()).toEqual(before.pods.map((p) => p[1]).sort());
  });

  it('E3 containers() shows each running container as it started: its env and files resolved as a kubelet does; serveView and fetchContainers show the same; nothing of it is written', async () => {
    const canary = `canary-${randomBytes(6).toString('hex')}`;
    await secret('view-creds', { value: canary, user: 'u' });
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'view-settings' }, data: { mode: 'fast', 'config.json': '{"a":1}', 'skills.json': '[]' } } });
    const fieldRef = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
    const body: V1Deployment = {
      metadata: { name: 'gw-view', labels: { app: 'gw-view', [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'gw-view' } },
        template: {
          metadata: { labels: { app: 'gw-view', tier: 'gw' }, annotations: { 'example.com/revision-id': 'rev-1' } },
          spec: {
            serviceAccountName: 'default',
            containers: [
              {
                name: 'gateway',
                image: 'ghcr.io/openclaw/gateway:1',
                envFrom: [{ configMapRef: { name: 'view-settings' }, prefix: 'CFG_' }, { secretRef: { name: 'view-creds' } }],
                env: [
                  { name: 'PLAIN', value: 'plain' },
                  { name: 'MODEL_KEY', valueFrom: { secretKeyRef: { name: 'view-creds', key: 'value' } } },
                  { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'view-settings', key: 'mode' } } },
                  { name: 'POD_NAME', ...fieldRef('metadata.name') },
                  { name: 'POD_NAMESPACE', ...fieldRef('metadata.namespace') },
                  { name: 'APP', ...fieldRef("metadata.labels['app']") },
                  { name: 'REVISION_ID', ...fieldRef("metadata.annotations['example.com/revision-id']") },
                  { name: 'SERVICE_ACCOUNT', ...fieldRef('spec.serviceAccountName') },
                  { name: 'PLAIN', value: 'overridden' },
                ],
                volumeMounts: [
                  { name: 'config', mountPath: '/etc/openclaw', readOnly: true },
                  { name: 'auth', mountPath: '/var/run/auth', readOnly: true },
                  { name: 'bundle', mountPath: '/bundle', readOnly: true },
                  { name: 'config', mountPath: '/etc/skills.json', subPath: 'skills.json', readOnly: true },
                ],
              },
              { name: 'sidecar', image: 'ghcr.io/openclaw/sidecar:1', env: [{ name: 'ONLY', value: 'sidecar' }] },
            ],
            volumes: [
              { name: 'config', configMap: { name: 'view-settings', items: [{ key: 'config.json', path: 'openclaw.json' }, { key: 'skills.json', path: 'skills.json' }] } },
              { name: 'auth', secret: { secretName: 'view-creds' } },
              { name: 'bundle', projected: { sources: [{ configMap: { name: 'view-settings', items: [{ key: 'mode', path: 'mode' }] } }, { secret: { name: 'view-creds', items: [{ key: 'value', path: 'secret/value' }] } }] } },
            ],
          },
        },
      },
    };
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    await waitFor('gw-view', (x) => available(x)?.status === 'True');
    const [pod] = await podsOf('gw-view');
    const expected = (value: string, p: V1Pod) => [
      {
        pod: p.metadata?.name,
        uid: p.metadata?.uid,
        labels: p.metadata?.labels,
        annotations: { 'example.com/revision-id': 'rev-1' },
        container: 'gateway',
        env: {
          CFG_mode: 'fast',
          'CFG_config.json': '{"a":1}',
          'CFG_skills.json': '[]',
          value,
          user: 'u',
          PLAIN: 'overridden',
          MODEL_KEY: value,
          MODE: 'fast',
          POD_NAME: p.metadata?.name,
          POD_NAMESPACE: ns,
          APP: 'gw-view',
          REVISION_ID: 'rev-1',
          SERVICE_ACCOUNT: 'default',
        },
        files: {
          '/etc/openclaw/openclaw.json': '{"a":1}',
          '/etc/openclaw/skills.json': '[]',
          '/var/run/auth/value': value,
          '/var/run/auth/user': 'u',
          '/bundle/mode': 'fast',
          '/bundle/secret/value': value,
          '/etc/skills.json': '[]',
        },
      },
      { pod: p.metadata?.name, uid: p.metadata?.uid, labels: p.metadata?.labels, annotations: { 'example.com/revision-id': 'rev-1' }, container: 'sidecar', env: { ONLY: 'sidecar' }, files: {} },
    ];
    expect(simulator.containers(ns, { labelSelector: { app: 'gw-view' } })).toEqual(expected(canary, pod!));
    expect(simulator.containers(ns, { podName: pod!.metadata?.name })).toEqual(expected(canary, pod!));
    expect(simulator.containers(ns, { labelSelector: { app: 'gw-view', tier: 'other' } })).toEqual([]);
    expect(simulator.containers('another-namespace')).toEqual([]);

    // The same over HTTP, for tests in another process; the URL's token is needed.
    const served = await simulator.serveView();
    try {
      expect(await fetchContainers(served.url, ns, { labelSelector: { app: 'gw-view', tier: 'gw' } })).toEqual(expected(canary, pod!));
      expect(await fetchContainers(served.url, ns, { podName: pod!.metadata?.name })).toEqual(expected(canary, pod!));
      expect((await fetch(`${new URL(served.url).origin}/containers?namespace=${ns}`)).status).toBe(404);
    } finally {
      await served.close();
    }

    // A running container keeps what it started with; a Pod that replaces it starts with what is there then.
    const rotated = `${canary}-rotated`;
    await cluster.core.patchNamespacedSecret({ name: 'view-creds', namespace: ns, body: { stringData: { value: rotated } } }, mergePatch);
    await afterReevaluation();
    expect(simulator.containers(ns, { labelSelector: { app: 'gw-view' } })).toEqual(expected(canary, pod!));
    await cluster.core.deleteNamespacedPod({ name: pod!.metadata!.name!, namespace: ns });
    const replaced = await until('the replacing Pod in the view', async () => {
      const view = simulator.containers(ns, { labelSelector: { app: 'gw-view' } });
      return view.length === 2 && view[0]!.uid !== pod!.metadata?.uid ? view : undefined;
    });
    const [next] = await podsOf('gw-view');
    expect(replaced).toEqual(expected(rotated, next!));

    // Never through a Kubernetes object: not in a Pod, ReplicaSet, Deployment, ConfigMap or Event.
    const written = JSON.stringify([
      await cluster.core.listNamespacedPod({ namespace: ns }),
      await cluster.apps.listNamespacedReplicaSet({ namespace: ns }),
      await cluster.apps.listNamespacedDeployment({ namespace: ns }),
      await cluster.core.listNamespacedConfigMap({ namespace: ns }),
      await cluster.core.listNamespacedEvent({ namespace: ns }),
    ]);
    expect(written).not.toContain(canary);

    // Only Pods that exist: scaled to zero, nothing runs.
    await cluster.apps.patchNamespacedDeployment({ name: 'gw-view', namespace: ns, body: [{ op: 'replace', path: '/spec/replicas', value: 0 }] }, jsonPatch);
    await until('no container of gw-view', async () => (simulator.containers(ns, { labelSelector: { app: 'gw-view' } }).length === 0 ? true : undefined));
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
    await waitingBecomes('gw-roll', [{ container: 'gateway', reason: 'CreateContainerConfigError', message: 'secret "creds-gone" not found' }]);
    const timedOut = await waitFor('gw-roll', (x) => progressing(x)?.status === 'False');
    expect(progressing(timedOut)).toMatchObject({ reason: 'ProgressDeadlineExceeded' });
    expect(progressing(timedOut)?.message).toMatch(/^ReplicaSet "gw-roll-[bcdfghjklmnpqrstvwxz2456789]{1,10}" has timed out progressing\.$/);
    await secret('creds-gone', { value: 'sk' });
    const done = await waitFor('gw-roll', (x) => progressing(x)?.reason === 'NewReplicaSetAvailable');
    expect(done.status).toMatchObject({ replicas: 1, updatedReplicas: 1, availableReplicas: 1 });
    expect(await podsOf('gw-roll')).toHaveLength(1);
  });

  it("E3 SG1 the crash hook: a gateway whose mounted openclaw.json asks to exit waits in CrashLoopBackOff with the kubelet's words and its exit in lastState; the old Pod keeps serving; a config without it runs", async () => {
    const config = (doc: unknown) => ({ metadata: { name: `crash-config-${randomBytes(3).toString('hex')}` }, data: { 'openclaw.json': JSON.stringify(doc) } });
    const good = (await cluster.core.createNamespacedConfigMap({ namespace: ns, body: config({ agents: {} }) })).metadata!.name!;
    const body = gateway('gw-crash', {});
    const podSpec = body.spec!.template.spec!;
    podSpec.containers[0]!.volumeMounts = [{ name: 'config', mountPath: '/etc/openclaw', readOnly: true }];
    podSpec.volumes = [{ name: 'config', configMap: { name: good } }];
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body });
    await waitFor('gw-crash', (x) => available(x)?.status === 'True');
    const [serving] = await podsOf('gw-crash');

    const bad = (await cluster.core.createNamespacedConfigMap({ namespace: ns, body: config({ agents: {}, 'x-kubelet-simulator': { exit: { code: 3, message: 'Invalid config at /etc/openclaw/openclaw.json: agents.x: unknown key' } } }) })).metadata!.name!;
    await cluster.apps.patchNamespacedDeployment({ name: 'gw-crash', namespace: ns, body: [{ op: 'replace', path: '/spec/template/spec/volumes/0/configMap/name', value: bad }] }, jsonPatch);
    const crashing = await until('a crashing Pod of gw-crash', async () => {
      const pod = (await podsOf('gw-crash')).find((p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff');
      return pod;
    });
    const status = crashing.status!.containerStatuses![0]!;
    expect(status.state!.waiting!.message).toBe(`back-off 10s restarting failed container=gateway pod=${crashing.metadata!.name}_${ns}(${crashing.metadata!.uid})`);
    expect(status).toMatchObject({ ready: false, restartCount: 1, lastState: { terminated: { exitCode: 3, reason: 'Error', message: 'Invalid config at /etc/openclaw/openclaw.json: agents.x: unknown key' } } });
    // A container that ran and exited leaves its Pod Running and not ready, as on a node.
    expect(crashing.status!.phase).toBe('Running');
    expect(crashing.status!.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    expect(await eventually(crashing.metadata!.name!, 'BackOff', `Back-off restarting failed container gateway in pod ${crashing.metadata!.name}_${ns}(${crashing.metadata!.uid})`)).toMatchObject({ type: 'Warning' });
    // The crashing template never becomes available: the old Pod keeps the Deployment available.
    const stuck = await waitFor('gw-crash', (x) => x.status?.observedGeneration === 2 && x.status?.updatedReplicas === 1);
    expect(stuck.status).toMatchObject({ availableReplicas: 1, unavailableReplicas: 1 });
    expect((await podsOf('gw-crash')).map((p) => p.metadata?.uid)).toContain(serving!.metadata?.uid);

    // Back to a config without the hook: its Pods run, the crashing one goes.
    await cluster.apps.patchNamespacedDeployment({ name: 'gw-crash', namespace: ns, body: [{ op: 'replace', path: '/spec/template/spec/volumes/0/configMap/name', value: good }] }, jsonPatch);
    await waitFor('gw-crash', (x) => progressing(x)?.reason === 'NewReplicaSetAvailable' && x.status?.updatedReplicas === 1 && x.status?.replicas === 1);
    expect((await podsOf('gw-crash')).every((p) => p.status?.containerStatuses?.every((c) => c.ready))).toBe(true);
  });

  it('E3 Deployments without the gateway label are left alone', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('not-a-gateway', { secret: ['nothing', 'value'] }, false) });
    // A labelled one created after it gets a status; by then the unlabelled one would have too.
    await secret('creds-after', { value: 'sk' });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-after', { secret: ['creds-after', 'value'] }) });
    await waitFor('gw-after', (x) => available(x)?.status === 'True');
    const untouched = await cluster.apps.readNamespacedDeployment({ name: 'not-a-gateway', namespace: ns });
    expect(untouched.status?.conditions).toBeUndefined();
    expect(untouched.metadata?.annotations?.[REVISION]).toBeUndefined();
    expect((await cluster.apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=not-a-gateway' })).items).toEqual([]);
    expect(errors).toEqual([]);
  });
});
