import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, startTestCluster, type TestCluster } from './testing.ts';
import { record, until } from './watch-testing.ts';

// Watch behaviours that depend on the server's own settings, which a test can set only on the
// emulator (L3): a history short enough to expire a resourceVersion, a bookmark interval of 100 ms,
// and a server the test stops. A real server has the same behaviours on its own clock (etcd
// compaction every 5 minutes, bookmarks about once a minute).

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ watchHistorySize: 50 });
});
afterAll(() => cluster.close());

describe('watch (emulator settings)', () => {
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

  it('E1 closing the server ends open watches', async () => {
    const own = await startTestCluster();
    const watch = await record(own, '/api/v1/namespaces');
    await until(() => watch.seen.length >= 4, 'the built-in namespaces');
    await own.close();
    await until(() => watch.ended, 'the watch to end');
  });
});
