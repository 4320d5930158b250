import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { apiFailure, b64, createNamespace, jsonPatch, mergePatch, startTestCluster, strategicMergePatch, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
  ns = await createNamespace(cluster, 'patch');
});
afterAll(() => cluster.close());

async function secret(name: string, data: Record<string, string>, labels: Record<string, string> = {}) {
  return cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, labels }, stringData: data } });
}

describe('merge patch', () => {
  it('E1 merge patch adds, replaces and (with null) removes keys', async () => {
    await secret('m1', { a: '1', b: '2' });
    const patched = await cluster.core.patchNamespacedSecret(
      { name: 'm1', namespace: ns, body: { data: { a: b64('one'), b: null, c: b64('3') } } },
      mergePatch,
    );
    expect(patched.data).toEqual({ a: b64('one'), c: b64('3') });
  });

  it('E1 stringData in a patch is folded into data', async () => {
    await secret('m2', { a: '1' });
    const patched = await cluster.core.patchNamespacedSecret({ name: 'm2', namespace: ns, body: { stringData: { a: 'rotated' } } }, mergePatch);
    expect(patched.data).toEqual({ a: b64('rotated') });
    expect(patched.stringData).toBeUndefined();
  });

  it('E1 strategic merge patch is accepted and merges maps', async () => {
    await secret('m3', { a: '1' }, { keep: 'yes' });
    const patched = await cluster.core.patchNamespacedSecret(
      { name: 'm3', namespace: ns, body: { metadata: { labels: { added: 'yes' } } } },
      strategicMergePatch,
    );
    expect(patched.metadata?.labels).toEqual({ keep: 'yes', added: 'yes' });
  });

  it('E10 a strategic merge patch on a custom resource, or on its status, answers 415 naming the accepted types, whether the object exists or not, and changes nothing', async () => {
    const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    const where = { group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: ns };
    await custom.createNamespacedCustomObject({ ...where, body: { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'smp' }, spec: { image: 'x', skills: ['a'] } } });
    const accepted = 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
    for (const [name, call] of [
      ['smp', () => custom.patchNamespacedCustomObject({ ...where, name: 'smp', body: { spec: { image: 'y' } } }, strategicMergePatch)],
      ['smp/status', () => custom.patchNamespacedCustomObjectStatus({ ...where, name: 'smp', body: { status: {} } }, strategicMergePatch)],
      ['absent', () => custom.patchNamespacedCustomObject({ ...where, name: 'absent', body: { spec: { image: 'y' } } }, strategicMergePatch)],
    ] as const) {
      const { code, body } = await apiFailure(call());
      expect({ name, code, reason: body.reason, message: body.message }).toEqual({ name, code: 415, reason: 'UnsupportedMediaType', message: accepted });
    }
    expect(((await custom.getNamespacedCustomObject({ ...where, name: 'smp' })) as { spec: { image: string } }).spec.image).toBe('x');
    // A merge patch is the way, as kubectl chooses for custom resources.
    const merged = (await custom.patchNamespacedCustomObject({ ...where, name: 'smp', body: { spec: { image: 'y' } } }, mergePatch)) as { spec: { image: string } };
    expect(merged.spec.image).toBe('y');
  });

  it('E1 a patch carrying a stale resourceVersion is a 409 Conflict', async () => {
    const created = await secret('m4', { a: '1' });
    await cluster.core.patchNamespacedSecret({ name: 'm4', namespace: ns, body: { stringData: { a: '2' } } }, mergePatch);
    const { code, body } = await apiFailure(
      cluster.core.patchNamespacedSecret(
        { name: 'm4', namespace: ns, body: { metadata: { resourceVersion: created.metadata?.resourceVersion }, stringData: { a: '3' } } },
        mergePatch,
      ),
    );
    expect(code).toBe(409);
    expect(body.reason).toBe('Conflict');
  });

  it('E1 patching a missing object is a 404', async () => {
    const { code, body } = await apiFailure(cluster.core.patchNamespacedSecret({ name: 'absent', namespace: ns, body: {} }, mergePatch));
    expect(code).toBe(404);
    expect(body.message).toBe('secrets "absent" not found');
  });
});

describe('JSON patch', () => {
  it('E1 applies add, replace, remove, copy, move and test operations in order', async () => {
    await secret('j1', { a: '1', b: '2' }, { app: 'x' });
    const patched = await cluster.core.patchNamespacedSecret(
      {
        name: 'j1',
        namespace: ns,
        body: [
          { op: 'test', path: '/data/a', value: b64('1') },
          { op: 'add', path: '/data/c', value: b64('3') },
          { op: 'replace', path: '/data/a', value: b64('one') },
          { op: 'remove', path: '/data/b' },
          { op: 'copy', from: '/data/c', path: '/data/d' },
          { op: 'move', from: '/data/c', path: '/data/e' },
          { op: 'add', path: '/metadata/labels/team~1name', value: 'core' },
        ],
      },
      jsonPatch,
    );
    expect(patched.data).toEqual({ a: b64('one'), d: b64('3'), e: b64('3') });
    expect(patched.metadata?.labels).toEqual({ app: 'x', 'team/name': 'core' });
  });

  it('E1 a failing test operation changes nothing and is a 422', async () => {
    const created = await secret('j2', { a: '1' });
    const { code, body } = await apiFailure(
      cluster.core.patchNamespacedSecret(
        {
          name: 'j2',
          namespace: ns,
          body: [
            { op: 'replace', path: '/data/a', value: b64('changed') },
            { op: 'test', path: '/metadata/resourceVersion', value: 'not-it' },
          ],
        },
        jsonPatch,
      ),
    );
    expect(code).toBe(422);
    expect(body.reason).toBe('Invalid');
    const after = await cluster.core.readNamespacedSecret({ name: 'j2', namespace: ns });
    expect(after.data).toEqual({ a: b64('1') });
    expect(after.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('E1 a JSON patch test on resourceVersion works as an optimistic lock', async () => {
    const created = await secret('j3', { a: '1' });
    const patched = await cluster.core.patchNamespacedSecret(
      {
        name: 'j3',
        namespace: ns,
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: created.metadata?.resourceVersion },
          { op: 'replace', path: '/data/a', value: b64('2') },
        ],
      },
      jsonPatch,
    );
    expect(patched.data).toEqual({ a: b64('2') });
  });

  it('E1 removing a missing path is a 422, a malformed patch a 400', async () => {
    await secret('j4', { a: '1' });
    const missing = await apiFailure(
      cluster.core.patchNamespacedSecret({ name: 'j4', namespace: ns, body: [{ op: 'remove', path: '/data/zzz' }] }, jsonPatch),
    );
    expect(missing.code).toBe(422);
    const malformed = await apiFailure(cluster.core.patchNamespacedSecret({ name: 'j4', namespace: ns, body: { not: 'a list' } }, jsonPatch));
    expect(malformed.code).toBe(400);
  });
});

describe('generation', () => {
  // As a real server answered on the E8 lane: the generic store writes no generation for these
  // kinds, keeps one a create sends (rest.BeforeCreate leaves it), and never lets an update change it.
  it('E7 E8 Secrets, ConfigMaps and Namespaces get no metadata.generation of their own: a create keeps one the client sends, an update keeps the stored one', async () => {
    const created = await secret('g1', { a: '1' });
    expect(created.metadata).not.toHaveProperty('generation');
    const changed = await cluster.core.patchNamespacedSecret({ name: 'g1', namespace: ns, body: { metadata: { generation: 7 }, stringData: { a: '2' } } }, mergePatch);
    expect(changed.metadata).not.toHaveProperty('generation');
    const configMap = await cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'g1', generation: 3 }, data: { a: '1' } } });
    expect(configMap.metadata?.generation).toBe(3);
    const patched = await cluster.core.patchNamespacedConfigMap({ name: 'g1', namespace: ns, body: { metadata: { generation: 9 }, data: { a: '2' } } }, mergePatch);
    expect(patched.data).toEqual({ a: '2' });
    expect(patched.metadata?.generation).toBe(3);
    const namespace = await cluster.core.readNamespace({ name: ns });
    expect(namespace.metadata).not.toHaveProperty('generation');
  });

  it('E1 an update that changes nothing keeps the resourceVersion', async () => {
    const created = await secret('g2', { a: '1' });
    const same = await cluster.core.patchNamespacedSecret({ name: 'g2', namespace: ns, body: { stringData: { a: '1' } } }, mergePatch);
    expect(same.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });
});
