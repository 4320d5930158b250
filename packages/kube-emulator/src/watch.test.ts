import { makeInformer, Watch, type KubernetesObject, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, mergePatch, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ watchHistorySize: 50 });
});
afterAll(() => cluster.close());

interface Seen {
  type: string;
  name: string;
  resourceVersion: string;
  object: Record<string, unknown>;
}

/** A client-node Watch that records what arrives and when it ends. */
async function record(testCluster: TestCluster, path: string, query: Record<string, string | number | boolean> = {}) {
  const seen: Seen[] = [];
  let ended = false;
  let endError: unknown;
  const controller = await new Watch(testCluster.kubeConfig).watch(
    path,
    query,
    (type: string, object: Record<string, unknown>) => {
      const metadata = (object.metadata ?? {}) as Record<string, string>;
      seen.push({ type, name: metadata.name ?? '', resourceVersion: metadata.resourceVersion ?? '', object });
    },
    (error: unknown) => {
      ended = true;
      endError = error;
    },
  );
  return {
    seen,
    controller,
    get ended() {
      return ended;
    },
    get endError() {
      return endError;
    },
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function summary(seen: Seen[]): string[] {
  return seen.map((e) => `${e.type} ${e.name}`);
}

describe('watch', () => {
  it('E7 a watch that allows bookmarks gets periodic BOOKMARKs at the current resourceVersion; one that does not gets none', async () => {
    const fast = await startTestCluster({ watchBookmarkIntervalMs: 100 });
    try {
      const quiet = await createNamespace(fast, 'quiet');
      const busy = await createNamespace(fast, 'busy');
      const list = await fast.core.listNamespacedSecret({ namespace: quiet });
      const path = `/api/v1/namespaces/${quiet}/secrets`;
      const withBookmarks = await record(fast, path, { resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true });
      const without = await record(fast, path, { resourceVersion: list.metadata?.resourceVersion ?? '' });
      // A write elsewhere moves the resourceVersion on; the quiet watch learns it from a bookmark.
      const elsewhere = await fast.core.createNamespacedSecret({ namespace: busy, body: { metadata: { name: 'elsewhere' } } });
      const target = Number(elsewhere.metadata?.resourceVersion);
      await until(() => withBookmarks.seen.some((e) => e.type === 'BOOKMARK' && Number(e.resourceVersion) >= target), 'a bookmark past the write');
      const bookmark = withBookmarks.seen.find((e) => e.type === 'BOOKMARK');
      expect(bookmark?.object).toMatchObject({ kind: 'Secret', apiVersion: 'v1' });
      expect(withBookmarks.seen.every((e) => e.type === 'BOOKMARK')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(without.seen).toEqual([]);
      withBookmarks.controller.abort();
      without.controller.abort();
    } finally {
      await fast.close();
    }
  });

  it('E1 streams ADDED, MODIFIED and DELETED from a list resourceVersion through client-node Watch', async () => {
    const ns = await createNamespace(cluster, 'w1');
    const list = await cluster.core.listNamespacedSecret({ namespace: ns });
    const watch = await record(cluster, `/api/v1/namespaces/${ns}/secrets`, { resourceVersion: list.metadata!.resourceVersion! });

    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's1' }, stringData: { v: '1' } } });
    await cluster.core.patchNamespacedSecret({ name: 's1', namespace: ns, body: { stringData: { v: '2' } } }, mergePatch);
    await cluster.core.deleteNamespacedSecret({ name: 's1', namespace: ns });
    await until(() => watch.seen.length >= 3, 'three events');

    expect(summary(watch.seen)).toEqual(['ADDED s1', 'MODIFIED s1', 'DELETED s1']);
    expect(watch.seen[0]?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const versions = watch.seen.map((e) => Number(e.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(3);
    expect(watch.seen[1]?.object).toMatchObject({ kind: 'Secret', apiVersion: 'v1', data: { v: Buffer.from('2').toString('base64') } });
    watch.controller.abort();
  });

  it('E1 without a resourceVersion starts with ADDED for every existing object', async () => {
    const ns = await createNamespace(cluster, 'w2');
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
    const watch = await record(cluster, `/api/v1/namespaces/${ns}/configmaps`);
    await until(() => watch.seen.length >= 2, 'initial state');
    expect(summary(watch.seen)).toEqual(['ADDED a', 'ADDED b']);
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' } } });
    await until(() => watch.seen.length >= 3, 'a live event');
    expect(summary(watch.seen)[2]).toBe('ADDED c');
    watch.controller.abort();
  });

  it('E1 a watch from an older, still retained resourceVersion replays what happened after it', async () => {
    const ns = await createNamespace(cluster, 'w3');
    const before = await cluster.core.listNamespacedSecret({ namespace: ns });
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'r1' } } });
    await cluster.core.patchNamespacedSecret({ name: 'r1', namespace: ns, body: { metadata: { labels: { x: 'y' } } } }, mergePatch);
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'r2' } } });
    await cluster.core.deleteNamespacedSecret({ name: 'r1', namespace: ns });

    const watch = await record(cluster, `/api/v1/namespaces/${ns}/secrets`, { resourceVersion: before.metadata!.resourceVersion! });
    await until(() => watch.seen.length >= 4, 'the replay');
    expect(summary(watch.seen)).toEqual(['ADDED r1', 'MODIFIED r1', 'ADDED r2', 'DELETED r1']);
    watch.controller.abort();
  });

  it('E1 a resourceVersion older than the retained history gets 200 then one 410 Expired ERROR, and the stream ends', async () => {
    const ns = await createNamespace(cluster, 'w4');
    const old = await cluster.core.listNamespacedConfigMap({ namespace: ns });
    // The history keeps 50 writes in this suite; push the old version out of it.
    for (let i = 0; i < 60; i++) await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `c${i}` } } });

    const watch = await record(cluster, `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: old.metadata!.resourceVersion! });
    await until(() => watch.ended, 'the stream to end');
    expect(watch.endError).toBeNull();
    expect(watch.seen).toHaveLength(1);
    expect(watch.seen[0]?.type).toBe('ERROR');
    expect(watch.seen[0]?.object).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: expect.stringMatching(new RegExp(`^too old resource version: ${old.metadata!.resourceVersion} \\(\\d+\\)$`)),
      reason: 'Expired',
      code: 410,
    });
  });

  it('E1 a label-selected watch sees objects enter (ADDED) and leave (DELETED) the selection', async () => {
    const ns = await createNamespace(cluster, 'w5');
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'plain' } } });
    const watch = await record(cluster, `/api/v1/namespaces/${ns}/secrets`, { labelSelector: 'role in (gateway),!retired' });
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'gw', labels: { role: 'gateway' } } } });
    await cluster.core.patchNamespacedSecret({ name: 'plain', namespace: ns, body: { metadata: { labels: { role: 'gateway' } } } }, mergePatch);
    await cluster.core.patchNamespacedSecret({ name: 'gw', namespace: ns, body: { metadata: { labels: { retired: 'yes' } } } }, mergePatch);
    await cluster.core.patchNamespacedSecret({ name: 'gw', namespace: ns, body: { stringData: { ignored: 'yes' } } }, mergePatch);
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'unrelated' } } });
    await cluster.core.patchNamespacedSecret({ name: 'plain', namespace: ns, body: { stringData: { k: 'v' } } }, mergePatch);
    await until(() => watch.seen.length >= 4, 'four events');
    expect(summary(watch.seen)).toEqual(['ADDED gw', 'ADDED plain', 'DELETED gw', 'MODIFIED plain']);
    watch.controller.abort();
  });

  it('E1 a field-selected watch across all namespaces follows one name', async () => {
    const ns = await createNamespace(cluster, 'w6');
    const watch = await record(cluster, '/api/v1/secrets', { fieldSelector: `metadata.namespace=${ns},metadata.name=target` });
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'noise' } } });
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'target' } } });
    await cluster.core.deleteNamespacedSecret({ name: 'target', namespace: ns });
    await until(() => watch.seen.length >= 2, 'two events');
    expect(summary(watch.seen)).toEqual(['ADDED target', 'DELETED target']);
    watch.controller.abort();
  });

  it('E1 closing the watch from the client ends it and the server keeps serving', async () => {
    const ns = await createNamespace(cluster, 'w7');
    const watch = await record(cluster, `/api/v1/namespaces/${ns}/secrets`, { resourceVersion: '0' });
    watch.controller.abort();
    await until(() => watch.ended, 'the done callback');
    const countAtAbort = watch.seen.length;
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'after' } } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(watch.seen).toHaveLength(countAtAbort);
    await expect(cluster.core.readNamespacedSecret({ name: 'after', namespace: ns })).resolves.toBeTruthy();
  });

  it('E1 closing the server ends open watches', async () => {
    const own = await startTestCluster();
    const watch = await record(own, '/api/v1/namespaces');
    await until(() => watch.seen.length >= 4, 'the built-in namespaces');
    await own.close();
    await until(() => watch.ended, 'the watch to end');
  });

  it('E1 a client-node informer lists then follows changes', async () => {
    const ns = await createNamespace(cluster, 'w8');
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'pre' } } });
    const informer = makeInformer<V1Secret & KubernetesObject>(cluster.kubeConfig, `/api/v1/namespaces/${ns}/secrets`, () =>
      cluster.core.listNamespacedSecret({ namespace: ns }),
    );
    const events: string[] = [];
    informer.on('add', (s) => events.push(`add ${s.metadata?.name}`));
    informer.on('update', (s) => events.push(`update ${s.metadata?.name}`));
    informer.on('delete', (s) => events.push(`delete ${s.metadata?.name}`));
    await informer.start();
    await until(() => events.includes('add pre'), 'the initial list');
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'live' } } });
    await cluster.core.patchNamespacedSecret({ name: 'live', namespace: ns, body: { stringData: { a: 'b' } } }, mergePatch);
    await cluster.core.deleteNamespacedSecret({ name: 'pre', namespace: ns });
    await until(() => events.length >= 4, 'informer events');
    expect(events).toEqual(['add pre', 'add live', 'update live', 'delete pre']);
    expect(informer.list().map((s) => s.metadata?.name)).toEqual(['live']);
    await informer.stop();
  });
});
