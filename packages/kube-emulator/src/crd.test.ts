import { Watch, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createEstablishedCrd, createNamespace, mergePatch, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

// A group of this file's own: on the E8 lane every file shares one real server, where two CRDs of
// one group may not name the same kind (the second is never Established: ListKindConflict).
const GROUP = `${uniqueName('crd')}.openclaw.rocks`;
// client-node's typed models spell the extension keys with underscores; with the wire spelling
// they would be dropped, the schema would be closed and every field pruned, as a real server does.
const OPEN_SCHEMA = { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } };

function selfConfigCrd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced'): V1CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: [`${plural.slice(0, 4)}${plural.slice(-6)}`] },
      versions: [
        { name: 'v1alpha1', served: true, storage: true, schema: OPEN_SCHEMA, subresources: { status: {} } },
        { name: 'v1beta1', served: true, storage: false, schema: OPEN_SCHEMA, subresources: { status: {} } },
      ],
    },
  };
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Waits (10 s at most) until `read` answers 404. */
async function gone(read: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if ((await read().then(() => 0, (error: { code?: number }) => error.code ?? -1)) === 404) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('still there after 10 s');
}

describe('custom resource definitions', () => {
  it('E1 creating a CRD makes its namespaced custom resources servable, with full CRUD', async () => {
    const plural = `selfconfigs${uniqueName('a').slice(2)}`;
    const kind = 'OpenClawSelfConfig';
    const ns = await createNamespace(cluster, 'crd');
    const path = { group: GROUP, version: 'v1alpha1', namespace: ns, plural };

    const before = await apiFailure(cluster.custom.listNamespacedCustomObject(path));
    expect(before.code).toBe(404);

    const crd = await createEstablishedCrd(cluster, selfConfigCrd(plural, kind));
    expect(crd.kind).toBe('CustomResourceDefinition');
    expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
    expect(crd.status?.acceptedNames?.kind).toBe(kind);
    expect(crd.status?.storedVersions).toEqual(['v1alpha1']);

    const created = (await cluster.custom.createNamespacedCustomObject({
      ...path,
      body: {
        apiVersion: `${GROUP}/v1alpha1`,
        kind,
        metadata: { name: 'req-1', labels: { agent: 'a1' } },
        spec: { instanceRef: 'agent-a', addSkills: ['search'] },
        status: { phase: 'Ignored' },
      },
    })) as Obj;
    expect(created.kind).toBe(kind);
    expect(created.apiVersion).toBe(`${GROUP}/v1alpha1`);
    expect(created.metadata.namespace).toBe(ns);
    expect(created.metadata.generation).toBe(1);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // With a status subresource, create drops status.
    expect(created.status).toBeUndefined();

    const read = (await cluster.custom.getNamespacedCustomObject({ ...path, name: 'req-1' })) as Obj;
    expect(read.spec).toEqual({ instanceRef: 'agent-a', addSkills: ['search'] });
    const asBeta = (await cluster.custom.getNamespacedCustomObject({ ...path, version: 'v1beta1', name: 'req-1' })) as Obj;
    expect(asBeta.apiVersion).toBe(`${GROUP}/v1beta1`);

    const list = (await cluster.custom.listNamespacedCustomObject({ ...path, labelSelector: 'agent=a1' })) as Obj;
    expect(list.kind).toBe(`${kind}List`);
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.items.map((i: Obj) => [i.kind, i.metadata.name])).toEqual([[kind, 'req-1']]);

    const replaced = (await cluster.custom.replaceNamespacedCustomObject({
      ...path,
      name: 'req-1',
      body: { ...read, spec: { ...read.spec, addSkills: ['search', 'browse'] } },
    })) as Obj;
    expect(replaced.metadata.generation).toBe(2);

    const patched = (await cluster.custom.patchNamespacedCustomObject(
      { ...path, name: 'req-1', body: [{ op: 'add', path: '/spec/removeSkills', value: ['old'] }] },
    )) as Obj;
    expect(patched.spec.removeSkills).toEqual(['old']);
    expect(patched.metadata.generation).toBe(3);

    const withStatus = (await cluster.custom.patchNamespacedCustomObjectStatus(
      { ...path, name: 'req-1', body: { status: { phase: 'Pending' } } },
      mergePatch,
    )) as Obj;
    expect(withStatus.status).toEqual({ phase: 'Pending' });
    expect(withStatus.metadata.generation).toBe(3);
    const statusIgnored = (await cluster.custom.patchNamespacedCustomObject(
      { ...path, name: 'req-1', body: { status: { phase: 'Applied' } } },
      mergePatch,
    )) as Obj;
    expect(statusIgnored.status).toEqual({ phase: 'Pending' });

    const deleted = (await cluster.custom.deleteNamespacedCustomObject({ ...path, name: 'req-1' })) as Obj;
    expect(deleted).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 'req-1', group: GROUP, kind: plural, uid: created.metadata.uid } });
    const { code, body } = await apiFailure(cluster.custom.getNamespacedCustomObject({ ...path, name: 'req-1' }));
    expect(code).toBe(404);
    expect(body.message).toBe(`${plural}.${GROUP} "req-1" not found`);
    expect(body.details).toEqual({ name: 'req-1', group: GROUP, kind: plural });
  });

  it('E1 E7 a custom resource replace without resourceVersion is a 422 worded as a real server, a stale one a 409', async () => {
    const plural = `instances${uniqueName('b').slice(2)}`;
    const ns = await createNamespace(cluster, 'crd2');
    await createEstablishedCrd(cluster, selfConfigCrd(plural, 'OpenClawInstance'));
    const path = { group: GROUP, version: 'v1alpha1', namespace: ns, plural };
    const created = (await cluster.custom.createNamespacedCustomObject({
      ...path,
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'OpenClawInstance', metadata: { name: 'i1' }, spec: { a: 1 } },
    })) as Obj;
    const noVersion = await apiFailure(
      cluster.custom.replaceNamespacedCustomObject({
        ...path,
        name: 'i1',
        body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'OpenClawInstance', metadata: { name: 'i1' }, spec: { a: 2 } },
      }),
    );
    expect(noVersion.code).toBe(422);
    // The generic store names the resource where a kind would be, and prints the uint64 0 as 0x0.
    expect(noVersion.body.message).toBe(`${plural}.${GROUP} "i1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`);
    expect(noVersion.body.details).toEqual({
      name: 'i1',
      group: GROUP,
      kind: plural,
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }],
    });
    await cluster.custom.patchNamespacedCustomObject({ ...path, name: 'i1', body: { spec: { a: 3 } } }, mergePatch);
    const stale = await apiFailure(cluster.custom.replaceNamespacedCustomObject({ ...path, name: 'i1', body: { ...created, spec: { a: 4 } } }));
    expect(stale.code).toBe(409);
    expect(stale.body.message).toBe(
      `Operation cannot be fulfilled on ${plural}.${GROUP} "i1": the object has been modified; please apply your changes to the latest version and try again`,
    );
    const wrongUid = await apiFailure(
      cluster.custom.deleteNamespacedCustomObject({ ...path, name: 'i1', body: { preconditions: { uid: 'x' } } }),
    );
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.body.message).toBe(
      `Operation cannot be fulfilled on OpenClawInstance.${GROUP} "i1": the UID in the precondition (x) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
    );
    expect(wrongUid.body.details).toEqual({ name: 'i1', group: GROUP, kind: 'OpenClawInstance' });
  });

  it('E1 a cluster-scoped CRD serves cluster custom objects', async () => {
    const plural = `policies${uniqueName('c').slice(2)}`;
    await createEstablishedCrd(cluster, selfConfigCrd(plural, 'ClawPolicy', 'Cluster'));
    const path = { group: GROUP, version: 'v1alpha1', plural };
    const created = (await cluster.custom.createClusterCustomObject({
      ...path,
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'ClawPolicy', metadata: { name: 'p1' }, spec: { level: 1 } },
    })) as Obj;
    expect(created.metadata.namespace).toBeUndefined();
    const list = (await cluster.custom.listClusterCustomObject(path)) as Obj;
    expect(list.items.map((i: Obj) => i.metadata.name)).toEqual(['p1']);
    const patched = (await cluster.custom.patchClusterCustomObject({ ...path, name: 'p1', body: { spec: { level: 2 } } }, mergePatch)) as Obj;
    expect(patched.spec.level).toBe(2);
    await cluster.custom.deleteClusterCustomObject({ ...path, name: 'p1' });
    expect((await apiFailure(cluster.custom.getClusterCustomObject({ ...path, name: 'p1' }))).code).toBe(404);
  });

  it('E1 deleting a CRD deletes its custom resources and stops serving them', async () => {
    const plural = `things${uniqueName('d').slice(2)}`;
    const ns = await createNamespace(cluster, 'crd3');
    await createEstablishedCrd(cluster, selfConfigCrd(plural, 'Thing'));
    const path = { group: GROUP, version: 'v1alpha1', namespace: ns, plural };
    await cluster.custom.createNamespacedCustomObject({ ...path, body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Thing', metadata: { name: 't1' } } });
    const crds = await cluster.extensions.listCustomResourceDefinition();
    expect(crds.items.map((c) => c.metadata?.name)).toContain(`${plural}.${GROUP}`);

    // The real server answers the CRD itself (client-node types it as a V1Status and keeps little of it).
    const answer = await cluster.extensions.deleteCustomResourceDefinition({ name: `${plural}.${GROUP}` });
    expect(answer.kind).toBe('CustomResourceDefinition');
    // A real server first deletes the resources (the customresourcecleanup finalizer), then the
    // CRD; a client waits for it to be gone. The emulator answers at once.
    await gone(() => cluster.extensions.readCustomResourceDefinition({ name: `${plural}.${GROUP}` }));
    expect((await apiFailure(cluster.custom.listNamespacedCustomObject(path))).code).toBe(404);
    await createEstablishedCrd(cluster, selfConfigCrd(plural, 'Thing'));
    const relisted = (await cluster.custom.listNamespacedCustomObject(path)) as Obj;
    expect(relisted.items).toEqual([]);
  });

  it('E1 a CRD whose name is not plural.group is a 422', async () => {
    const crd = selfConfigCrd('widgets', 'Widget');
    crd.metadata!.name = 'wrong.openclaw.rocks';
    const { code, body } = await apiFailure(cluster.extensions.createCustomResourceDefinition({ body: crd }));
    expect(code).toBe(422);
    expect(body.details).toMatchObject({ name: 'wrong.openclaw.rocks', group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
    expect(body.details?.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "wrong.openclaw.rocks": must be spec.names.plural+"."+spec.group',
      field: 'metadata.name',
    });
  });

  // Found by the E8 lane: a real server refuses this CRD, the emulator used to store it.
  it('E1 E8 a map list whose key property is neither required nor defaulted is a 422 naming each such key', async () => {
    const plural = `routes${uniqueName('r').slice(2)}`;
    const kind = `Route${plural.slice(-6)}`;
    const targets = (required: string[]) => ({
      type: 'array',
      x_kubernetes_list_type: 'map',
      x_kubernetes_list_map_keys: ['port', 'host'],
      items: { type: 'object', required, properties: { port: { type: 'integer' }, host: { type: 'string', default: 'x' }, weight: { type: 'integer' } } },
    });
    const crd = (required: string[]): V1CustomResourceDefinition => ({
      metadata: { name: `${plural}.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { targets: targets(required) } } } } } }],
      },
    });
    const { code, body } = await apiFailure(cluster.extensions.createCustomResourceDefinition({ body: crd([]) }));
    expect(code).toBe(422);
    // host has a default, so only port is named.
    expect(body.details?.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        message: 'Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        field: 'spec.validation.openAPIV3Schema.properties[spec].properties[targets].items.properties[port].default',
      },
    ]);
    // Required instead: stored.
    expect((await createEstablishedCrd(cluster, crd(['port']))).metadata?.name).toBe(`${plural}.${GROUP}`);
  });

  it('E1 custom resources can be watched', async () => {
    const plural = `watched${uniqueName('e').slice(2)}`;
    const ns = await createNamespace(cluster, 'crd4');
    await createEstablishedCrd(cluster, selfConfigCrd(plural, 'Watched'));
    const path = { group: GROUP, version: 'v1alpha1', namespace: ns, plural };
    const seen: string[] = [];
    const controller = await new Watch(cluster.kubeConfig).watch(
      `/apis/${GROUP}/v1alpha1/namespaces/${ns}/${plural}`,
      {},
      (type: string, object: Obj) => seen.push(`${type} ${object.kind} ${object.metadata.name}`),
      () => undefined,
    );
    await cluster.custom.createNamespacedCustomObject({ ...path, body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Watched', metadata: { name: 'w' } } });
    await cluster.custom.patchNamespacedCustomObjectStatus({ ...path, name: 'w', body: { status: { phase: 'Done' } } }, mergePatch);
    await cluster.custom.deleteNamespacedCustomObject({ ...path, name: 'w' });
    const deadline = Date.now() + 3000;
    while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['ADDED Watched w', 'MODIFIED Watched w', 'DELETED Watched w']);
    controller.abort();
  });

  it('E7 a custom resource comes back with its keys sorted at every level, as a real server re-encodes it', async () => {
    const plural = `instances${uniqueName('k').slice(2)}`;
    const ns = await createNamespace(cluster, 'crd-keys');
    await createEstablishedCrd(cluster, selfConfigCrd(plural, 'SortedThing'));
    const path = { group: GROUP, version: 'v1alpha1', namespace: ns, plural };
    const created = (await cluster.custom.createNamespacedCustomObject({
      ...path,
      body: { metadata: { name: 'z', labels: { zz: '1', aa: '2' } }, kind: 'SortedThing', spec: { zeta: { b: 1, a: 2 }, alpha: [{ y: 1, x: 2 }] }, apiVersion: `${GROUP}/v1alpha1` },
    })) as Obj;
    const read = (await cluster.custom.getNamespacedCustomObject({ ...path, name: 'z' })) as Obj;
    for (const object of [created, read]) {
      expect(Object.keys(object)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
      expect(Object.keys(object.metadata.labels)).toEqual(['aa', 'zz']);
      expect(Object.keys(object.spec)).toEqual(['alpha', 'zeta']);
      expect(Object.keys(object.spec.zeta)).toEqual(['a', 'b']);
      expect(Object.keys(object.spec.alpha[0])).toEqual(['x', 'y']);
    }
  });
});
