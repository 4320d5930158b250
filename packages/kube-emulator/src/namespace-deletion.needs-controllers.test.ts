import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, startTestCluster, type TestCluster } from './testing.ts';

// Namespace deletion is finished by the namespace controller (kube-controller-manager): it empties
// the namespace and removes its `kubernetes` finalizer. The E8 lane runs no controllers (L1 in
// REAL-SERVER-DIFFERENCES.md), so these run on the emulator, which deletes the contents at once;
// they wait rather than assume that, so a cluster with its controllers passes them too.

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

async function gone(read: () => Promise<unknown>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const failure = await apiFailure(read()).catch(() => null);
    if (failure?.code === 404) return;
    if (Date.now() > deadline) throw new Error(`${what} still there after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('namespace deletion', () => {
  it('E1 deleting a namespace answers it, then it and every object in it go, and nothing outside it', async () => {
    const doomed = await createNamespace(cluster, 'doomed');
    const kept = await createNamespace(cluster, 'kept');
    await cluster.core.createNamespacedSecret({ namespace: doomed, body: { metadata: { name: 's' } } });
    await cluster.core.createNamespacedConfigMap({ namespace: doomed, body: { metadata: { name: 'c' } } });
    await cluster.core.createNamespacedSecret({ namespace: kept, body: { metadata: { name: 's' } } });

    const answer = await cluster.core.deleteNamespace({ name: doomed });
    // The real server answers the namespace itself, in its Terminating phase.
    expect(answer.kind).toBe('Namespace');

    await gone(() => cluster.core.readNamespace({ name: doomed }), `namespace ${doomed}`);
    expect((await cluster.core.listNamespacedSecret({ namespace: doomed })).items).toEqual([]);
    expect((await cluster.core.listNamespacedConfigMap({ namespace: doomed })).items).toEqual([]);
    expect((await cluster.core.listNamespacedSecret({ namespace: kept })).items).toHaveLength(1);
    const again = await apiFailure(cluster.core.createNamespacedSecret({ namespace: doomed, body: { metadata: { name: 's' } } }));
    expect(again.code).toBe(404);
  });
});
