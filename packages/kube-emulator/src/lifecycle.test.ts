import { Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, jsonPatch, mergePatch, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

describe('object lifecycle', () => {
  it('E1 a finalizer holds a deleted object until an update removes it, then it is gone', async () => {
    const ns = await createNamespace(cluster, 'fin');
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held', finalizers: ['occ/cleanup'] } } });
    const seen: string[] = [];
    const controller = await new Watch(cluster.kubeConfig).watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      {},
      (type: string, object: { metadata: { name: string; deletionTimestamp?: string } }) =>
        seen.push(`${type} ${object.metadata.deletionTimestamp ? 'deleting' : 'live'}`),
      () => undefined,
    );

    await cluster.core.deleteNamespacedConfigMap({ name: 'held', namespace: ns });
    const marked = await cluster.core.readNamespacedConfigMap({ name: 'held', namespace: ns });
    expect(marked.metadata?.deletionTimestamp).toBeInstanceOf(Date);

    const adding = await apiFailure(
      cluster.core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: ['occ/cleanup', 'other/x'] } } }, mergePatch),
    );
    expect(adding.code).toBe(422);
    expect(adding.body.details?.causes?.[0]?.field).toBe('metadata.finalizers');

    await cluster.core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: [{ op: 'remove', path: '/metadata/finalizers' }] }, jsonPatch);
    expect((await apiFailure(cluster.core.readNamespacedConfigMap({ name: 'held', namespace: ns }))).code).toBe(404);

    const deadline = Date.now() + 3000;
    while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['ADDED live', 'MODIFIED deleting', 'DELETED deleting']);
    controller.abort();
  });

  it('E1 dryRun=All validates and answers without storing', async () => {
    const ns = await createNamespace(cluster, 'dry');
    const dry = await cluster.core.createNamespacedSecret({ namespace: ns, dryRun: 'All', body: { metadata: { name: 'trial' }, stringData: { a: 'b' } } });
    expect(dry.data).toEqual({ a: Buffer.from('b').toString('base64') });
    expect((await apiFailure(cluster.core.readNamespacedSecret({ name: 'trial', namespace: ns }))).code).toBe(404);
    const invalid = await apiFailure(cluster.core.createNamespacedSecret({ namespace: ns, dryRun: 'All', body: { metadata: { name: 'NO' } } }));
    expect(invalid.code).toBe(422);

    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'real' } } });
    await cluster.core.deleteNamespacedSecret({ name: 'real', namespace: ns, dryRun: 'All' });
    await expect(cluster.core.readNamespacedSecret({ name: 'real', namespace: ns })).resolves.toBeTruthy();
  });

  it('E1 deletecollection deletes what the selector selects', async () => {
    const ns = await createNamespace(cluster, 'coll');
    for (const [name, run] of [['a', 'old'], ['b', 'old'], ['c', 'new']] as const) {
      await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, labels: { run } } } });
    }
    await cluster.core.deleteCollectionNamespacedSecret({ namespace: ns, labelSelector: 'run=old' });
    const left = await cluster.core.listNamespacedSecret({ namespace: ns });
    expect(left.items.map((s) => s.metadata?.name)).toEqual(['c']);
  });

  it('E1 PUT of a missing secret is a 404, and a name that differs from the URL a 400', async () => {
    const ns = await createNamespace(cluster, 'put');
    const missing = await apiFailure(cluster.core.replaceNamespacedSecret({ name: 'ghost', namespace: ns, body: { metadata: { name: 'ghost' } } }));
    expect(missing.code).toBe(404);
    expect(missing.body.message).toBe('secrets "ghost" not found');
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'one' } } });
    const renamed = await apiFailure(cluster.core.replaceNamespacedSecret({ name: 'one', namespace: ns, body: { metadata: { name: 'two' } } }));
    expect(renamed.code).toBe(400);
    expect(renamed.body.message).toBe('the name of the object (two) does not match the name on the URL (one)');
  });

  it('E1 PUT with another uid in metadata is a 409 precondition failure', async () => {
    const ns = await createNamespace(cluster, 'uid');
    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' } } });
    const { code, body } = await apiFailure(
      cluster.core.replaceNamespacedSecret({ name: 's', namespace: ns, body: { metadata: { name: 's', uid: 'another' } } }),
    );
    expect(code).toBe(409);
    expect(body.message).toBe(
      `Operation cannot be fulfilled on secrets "s": StorageError: invalid object, Code: 4, Key: /registry/secrets/${ns}/s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: another, UID in object meta: ${created.metadata?.uid}`,
    );
  });

  it('E1 a namespace delete with a wrong uid precondition is a 409 and keeps it', async () => {
    const ns = await createNamespace(cluster, 'nsuid');
    const { code, body } = await apiFailure(cluster.core.deleteNamespace({ name: ns, body: { preconditions: { uid: 'nope' } } }));
    expect(code).toBe(409);
    // Namespaces have their own REST Delete, worded differently from the generic store.
    expect(body.message).toMatch(new RegExp(`^Operation cannot be fulfilled on namespaces "${ns}": Precondition failed: UID in precondition: nope, UID in object meta: [0-9a-f-]{36}$`));
    expect(body.details).toEqual({ name: ns, kind: 'namespaces' });
    await expect(cluster.core.readNamespace({ name: ns })).resolves.toBeTruthy();
  });
});
