import { Watch, type V1ConfigMap, type V1OwnerReference } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, emulatorRequest, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await createNamespace(cluster, 'gc');
});
afterAll(() => cluster.close());

async function owner(name: string): Promise<V1OwnerReference> {
  const created = await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: created.metadata?.uid ?? '' };
}

async function dependent(name: string, owners: V1OwnerReference[]): Promise<void> {
  await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, ownerReferences: owners } } });
}

async function gone(read: () => Promise<unknown>): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const failure = await read().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (failure !== undefined) return (await apiFailure(Promise.reject(failure))).code === 404;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** DELETE over plain HTTPS: the typed client reads the answer as a Status and drops an object's metadata. */
async function deleteConfigMap(name: string, propagationPolicy: string): Promise<{ status: number; body: V1ConfigMap }> {
  const response = await emulatorRequest(cluster.emulator, `/api/v1/namespaces/${ns}/configmaps/${name}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${cluster.emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ propagationPolicy }),
  });
  return { status: response.status, body: response.json() as V1ConfigMap };
}

const secret = (name: string) => () => cluster.core.readNamespacedSecret({ namespace: ns, name });
const configMap = (name: string) => () => cluster.core.readNamespacedConfigMap({ namespace: ns, name });

describe('garbage collection', () => {
  it('E7 background (the default): deleting the owner deletes its dependents after it', async () => {
    await dependent('bg-child', [await owner('bg-owner')]);
    await cluster.core.deleteNamespacedConfigMap({ namespace: ns, name: 'bg-owner' });
    expect(await gone(secret('bg-child'))).toBe(true);
  });

  it('E7 a dependent with another live owner only loses the reference to the deleted one', async () => {
    const first = await owner('two-a');
    const second = await owner('two-b');
    await dependent('two-child', [first, second]);
    await cluster.core.deleteNamespacedConfigMap({ namespace: ns, name: 'two-a' });
    const deadline = Date.now() + 10_000;
    let refs: V1OwnerReference[] | undefined = [];
    while (Date.now() < deadline) {
      refs = (await cluster.core.readNamespacedSecret({ namespace: ns, name: 'two-child' })).metadata?.ownerReferences;
      if (refs?.length === 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(refs?.map((r) => r.name)).toEqual(['two-b']);
  });

  it('E7 foreground: the owner stays with the foregroundDeletion finalizer until its dependents are gone, then goes', async () => {
    const ref = await owner('fg-owner');
    await dependent('fg-child', [{ ...ref, blockOwnerDeletion: true }]);
    const events: string[] = [];
    const watch = await new Watch(cluster.kubeConfig).watch(`/api/v1/namespaces/${ns}/secrets`, {}, (type, object: V1ConfigMap) => {
      if (type === 'DELETED') events.push(`secret/${object.metadata?.name}`);
    }, () => undefined);
    const cmWatch = await new Watch(cluster.kubeConfig).watch(`/api/v1/namespaces/${ns}/configmaps`, {}, (type, object: V1ConfigMap) => {
      if (type === 'DELETED') events.push(`configmap/${object.metadata?.name}`);
    }, () => undefined);
    try {
      const answered = (await deleteConfigMap('fg-owner', 'Foreground')).body;
      // Not deleted yet: the answer is the object, held by the garbage collector's finalizer.
      expect(answered.kind).toBe('ConfigMap');
      expect(answered.metadata?.finalizers).toEqual(['foregroundDeletion']);
      expect(answered.metadata?.deletionTimestamp).toBeTruthy();
      expect(await gone(configMap('fg-owner'))).toBe(true);
      expect(await gone(secret('fg-child'))).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
      expect(events.filter((e) => e.includes('fg-'))).toEqual(['secret/fg-child', 'configmap/fg-owner']);
    } finally {
      watch.abort();
      cmWatch.abort();
    }
  });

  it('E7 orphan: the owner goes and its dependents stay, without the reference to it', async () => {
    await dependent('or-child', [await owner('or-owner')]);
    const answered = (await deleteConfigMap('or-owner', 'Orphan')).body;
    expect(answered.metadata?.finalizers).toEqual(['orphan']);
    expect(await gone(configMap('or-owner'))).toBe(true);
    const child = await cluster.core.readNamespacedSecret({ namespace: ns, name: 'or-child' });
    expect(child.metadata?.ownerReferences).toBeUndefined();
  });

  it('E7 an unknown propagationPolicy is a 422 naming the supported ones', async () => {
    await owner('bad-policy');
    const { code, body } = await apiFailure(cluster.core.deleteNamespacedConfigMap({ namespace: ns, name: 'bad-policy', body: { propagationPolicy: 'Sideways' } }));
    expect(code).toBe(422);
    expect(body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
  });
});
