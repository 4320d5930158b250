import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, b64, createNamespace, mergePatch, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

describe('namespaces', () => {
  it('E1 creates, reads, lists and labels a cluster-scoped namespace', async () => {
    const name = uniqueName('team');
    const created = await cluster.core.createNamespace({ body: { metadata: { name, labels: { owner: 'occ' } } } });
    expect(created.kind).toBe('Namespace');
    expect(created.metadata?.namespace).toBeUndefined();
    expect(created.status?.phase).toBe('Active');
    // Kubernetes 1.21+ labels every namespace with its name; the E8 lane's 1.20 does not
    // (REAL-SERVER-DIFFERENCES.md D1), and this checks that it still does not.
    const nameLabel = cluster.target === 'real' ? {} : { 'kubernetes.io/metadata.name': name };
    expect(created.metadata?.labels).toEqual({ owner: 'occ', ...nameLabel });

    const read = await cluster.core.readNamespace({ name });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const listed = await cluster.core.listNamespace({ labelSelector: 'owner=occ' });
    expect(listed.kind).toBe('NamespaceList');
    expect(listed.items.map((n) => n.metadata?.name)).toContain(name);

    const patched = await cluster.core.patchNamespace({ name, body: { metadata: { labels: { tier: 'gold' } } } }, mergePatch);
    expect(patched.metadata?.labels?.tier).toBe('gold');
    expect(patched.metadata).not.toHaveProperty('generation'); // E7: namespaces have none
    // Deletion: namespace-deletion.needs-controllers.test.ts (the namespace controller finishes it).
  });

  it('E1 the built-in namespaces exist and default cannot be deleted', async () => {
    const names = (await cluster.core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
    const { code, body } = await apiFailure(cluster.core.deleteNamespace({ name: 'default' }));
    expect(code).toBe(403);
    expect(body.reason).toBe('Forbidden');
    expect(body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('E1 namespace names must be DNS-1123 labels (no dots)', async () => {
    const { code, body } = await apiFailure(cluster.core.createNamespace({ body: { metadata: { name: 'has.dot' } } }));
    expect(code).toBe(422);
    expect(body.details).toMatchObject({ name: 'has.dot', kind: 'Namespace' });
    expect(body.details?.causes?.[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    expect(body.details?.causes?.[0]?.message).toContain('a lowercase RFC 1123 label must consist of');
  });
});

describe('configmaps', () => {
  it('E1 creates, gets, lists, replaces, patches and deletes a configmap', async () => {
    const ns = await createNamespace(cluster, 'cm');
    const created = await cluster.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'settings', labels: { app: 'gw' } }, data: { 'openclaw.json': '{"a":1}' } },
    });
    expect(created.kind).toBe('ConfigMap');
    expect(created.metadata).not.toHaveProperty('generation'); // E7: configmaps have none

    const read = await cluster.core.readNamespacedConfigMap({ name: 'settings', namespace: ns });
    expect(read.data).toEqual({ 'openclaw.json': '{"a":1}' });

    const replaced = await cluster.core.replaceNamespacedConfigMap({
      name: 'settings',
      namespace: ns,
      body: { ...read, data: { 'openclaw.json': '{"a":2}' } },
    });
    expect(replaced.data).toEqual({ 'openclaw.json': '{"a":2}' });
    expect(replaced.metadata).not.toHaveProperty('generation');

    const patched = await cluster.core.patchNamespacedConfigMap(
      { name: 'settings', namespace: ns, body: { data: { extra: 'yes' } } },
      mergePatch,
    );
    expect(patched.data).toEqual({ 'openclaw.json': '{"a":2}', extra: 'yes' });

    const list = await cluster.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'app=gw' });
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['settings']);

    const status = await cluster.core.deleteNamespacedConfigMap({ name: 'settings', namespace: ns });
    expect(status.details).toMatchObject({ name: 'settings', kind: 'configmaps' });
    expect((await apiFailure(cluster.core.readNamespacedConfigMap({ name: 'settings', namespace: ns }))).code).toBe(404);
  });

  it('E1 an immutable configmap refuses data changes with 422', async () => {
    const ns = await createNamespace(cluster, 'cmi');
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'frozen' }, immutable: true, data: { k: 'v' } } });
    const { code, body } = await apiFailure(
      cluster.core.patchNamespacedConfigMap({ name: 'frozen', namespace: ns, body: { data: { k: 'w' } } }, mergePatch),
    );
    expect(code).toBe(422);
    expect(body.message).toBe('ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
  });

  it('E1 binaryData must be base64', async () => {
    const ns = await createNamespace(cluster, 'cmb');
    const ok = await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'bin' }, binaryData: { b: b64('\u0000\u0001') } } });
    expect(ok.binaryData).toEqual({ b: b64('\u0000\u0001') });
    const { code } = await apiFailure(
      cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'bad' }, binaryData: { b: '%%%' } } }),
    );
    expect(code).toBe(400);
  });
});

describe('events', () => {
  it('E1 creates, lists by involvedObject field selector, and deletes events', async () => {
    const ns = await createNamespace(cluster, 'ev');
    const event: CoreV1Event = {
      metadata: { name: 'instance.1' },
      involvedObject: { kind: 'OpenClawInstance', name: 'agent-a', namespace: ns, apiVersion: 'openclaw.rocks/v1alpha1' },
      reason: 'SelfConfigDenied',
      message: 'skills are not allowed',
      type: 'Warning',
      source: { component: 'occ-controller' },
      count: 1,
    };
    const created = await cluster.core.createNamespacedEvent({ namespace: ns, body: event });
    expect(created.kind).toBe('Event');
    await cluster.core.createNamespacedEvent({
      namespace: ns,
      body: { ...event, metadata: { name: 'other.1' }, involvedObject: { ...event.involvedObject, name: 'agent-b' }, type: 'Normal' },
    });

    const forA = await cluster.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=agent-a' });
    expect(forA.kind).toBe('EventList');
    expect(forA.items.map((e) => e.metadata?.name)).toEqual(['instance.1']);
    const warnings = await cluster.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'type=Warning,reason=SelfConfigDenied' });
    expect(warnings.items.map((e) => e.metadata?.name)).toEqual(['instance.1']);
    const all = await cluster.core.listEventForAllNamespaces({ fieldSelector: `metadata.namespace=${ns}` });
    expect(all.items).toHaveLength(2);

    const read = await cluster.core.readNamespacedEvent({ name: 'instance.1', namespace: ns });
    const replaced = await cluster.core.replaceNamespacedEvent({ name: 'instance.1', namespace: ns, body: { ...read, count: 2 } });
    expect(replaced.count).toBe(2);

    await cluster.core.deleteNamespacedEvent({ name: 'instance.1', namespace: ns });
    expect((await cluster.core.listNamespacedEvent({ namespace: ns })).items.map((e) => e.metadata?.name)).toEqual(['other.1']);
  });

  it('E1 an event whose involvedObject lives in another namespace is a 422', async () => {
    const ns = await createNamespace(cluster, 'ev2');
    const { code, body } = await apiFailure(
      cluster.core.createNamespacedEvent({
        namespace: ns,
        body: { metadata: { name: 'x' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'elsewhere' } },
      }),
    );
    expect(code).toBe(422);
    expect(body.details?.causes?.[0]?.field).toBe('involvedObject.namespace');
  });
});
