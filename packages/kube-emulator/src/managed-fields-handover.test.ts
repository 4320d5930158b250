// E10: metadata.managedFields written by clients, as a real kube-apiserver takes them (fieldmanager's
// decodeManagedFields): an update or a JSON / merge patch that sends managedFields replaces the
// stored ones, `[{}]` clears them, and entries the server cannot decode leave them as they were.
// kubectl 1.33 relies on this to move an object from client-side to server-side apply. The same file
// runs on the E8 lane's real server, with the machine's kubectl on both.
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlFor, type Kubectl } from './kubectl-testing.ts';
import { clusterRequest, createNamespace, jsonPatch, mergePatch, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let kubectl: Kubectl;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  kubectl = await kubectlFor(cluster);
  ns = await createNamespace(cluster, 'handover');
});
afterAll(async () => {
  await kubectl.close();
  await cluster.close();
});

interface Entry {
  manager: string;
  operation: string;
  fieldsV1?: unknown;
}

const owners = (entries: unknown) => ((entries ?? []) as Entry[]).map((e) => ({ manager: e.manager, operation: e.operation, fieldsV1: e.fieldsV1 }));

function configMap(name: string, data: Record<string, string>): string {
  return yaml.dump({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
}

describe('managedFields sent by clients', () => {
  it('E10 kubectl moves a client-side applied object to server-side apply: no conflict with kubectl-client-side-apply, the dropped key is pruned', async () => {
    await kubectl.ok(['apply', '-f', '-'], configMap('moved', { a: '1', b: '2' }));
    const next = configMap('moved', { a: '3' });

    const diff = await kubectl.run(['diff', '--server-side', '-f', '-'], next);
    expect(diff.stderr).not.toContain('conflict');
    expect(diff.code).toBe(1); // 1: differences found
    expect(diff.stdout).toContain('+  a: "3"');

    await kubectl.ok(['apply', '--server-side', '-f', '-'], next);
    const stored = await cluster.core.readNamespacedConfigMap({ name: 'moved', namespace: ns });
    expect(stored.data).toEqual({ a: '3' });
    const managers = owners(stored.metadata?.managedFields);
    expect(managers.map((m) => m.manager)).not.toContain('kubectl-client-side-apply');
    expect(managers).toContainEqual({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } });

    const again = await kubectl.run(['diff', '--server-side', '-f', '-'], next);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
  });

  it('E10 a JSON patch of metadata.managedFields hands ownership over, and a merge patch of [{}] clears it', async () => {
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owned' }, data: { a: '1' } }, fieldManager: 'maker' });
    const handedOver = [
      // Milliseconds, as client-node writes a Date: stored as metav1.Time writes it, in seconds.
      { manager: 'taker', operation: 'Apply', apiVersion: 'v1', time: '2026-01-02T03:04:05.678Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ];
    const patched = await cluster.core.patchNamespacedConfigMap(
      { name: 'owned', namespace: ns, body: [{ op: 'replace', path: '/metadata/managedFields', value: handedOver }], fieldManager: 'patcher' },
      jsonPatch,
    );
    expect(owners(patched.metadata?.managedFields)).toEqual([{ manager: 'taker', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
    // The time the client gave, not the time of the write.
    const raw = await clusterRequest(cluster, `/api/v1/namespaces/${ns}/configmaps/owned`, { headers: { accept: 'application/json' } });
    expect((JSON.parse(raw.body.toString('utf8')) as { metadata: { managedFields: { time: string }[] } }).metadata.managedFields[0]?.time).toBe('2026-01-02T03:04:05Z');

    await kubectl.ok(['-n', ns, 'patch', 'configmap', 'owned', '--type', 'merge', '-p', '{"metadata":{"managedFields":[{}]}}']);
    const cleared = await cluster.core.readNamespacedConfigMap({ name: 'owned', namespace: ns });
    expect(cleared.metadata?.managedFields).toBeUndefined();
    expect(cleared.data).toEqual({ a: '1' });
  });

  it('E10 an update keeps the managedFields it sends and adds its own change; entries the server cannot decode leave the stored ones', async () => {
    await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'updated' }, data: { a: '1' } }, fieldManager: 'maker' });
    const read = await cluster.core.readNamespacedConfigMap({ name: 'updated', namespace: ns });
    const sent = [{ manager: 'other', operation: 'Update', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }];
    const replaced = await cluster.core.replaceNamespacedConfigMap({
      name: 'updated',
      namespace: ns,
      body: { ...read, metadata: { ...read.metadata, managedFields: sent as never }, data: { a: '1', b: '2' } },
      fieldManager: 'replacer',
    });
    expect(owners(replaced.metadata?.managedFields)).toEqual([
      { manager: 'other', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
      { manager: 'replacer', operation: 'Update', fieldsV1: { 'f:data': { 'f:b': {} } } },
    ]);

    // No fieldsType: the stored entries stay, and the writer adds what it changed.
    const undecodable = [{ manager: 'intruder', operation: 'Apply', apiVersion: 'v1', fieldsV1: { 'f:data': {} } }];
    const kept = await cluster.core.patchNamespacedConfigMap(
      { name: 'updated', namespace: ns, body: { metadata: { managedFields: undecodable }, data: { c: '3' } }, fieldManager: 'replacer' },
      mergePatch,
    );
    expect(owners(kept.metadata?.managedFields)).toEqual([
      { manager: 'other', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
      { manager: 'replacer', operation: 'Update', fieldsV1: { 'f:data': { 'f:b': {}, 'f:c': {} } } },
    ]);
  });
});
