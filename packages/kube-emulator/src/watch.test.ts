import { makeInformer, type KubernetesObject, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, mergePatch, startTestCluster, type TestCluster } from './testing.ts';
import { record, summary, until } from './watch-testing.ts';

// Watch as both servers serve it (the E8 lane runs this file against a real one). What needs the
// emulator's own knobs (a short history, a fast bookmark clock, stopping the server) is in
// watch.emulator-only.test.ts.

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

describe('watch', () => {
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
    // In no particular order: a real server sends them from its watch cache (found by the E8 lane).
    expect(summary(watch.seen).sort()).toEqual(['ADDED a', 'ADDED b']);
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
