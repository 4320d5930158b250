// Server-side apply scenarios (rule E2). Each asserts the object and the exact managedFields,
// serialized (key order included), as kube-apiserver writes them. The clock is fixed so that
// entries sort by manager name within their operation.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { apiFailure, atFixedTime, createEstablishedCrd, createNamespace, jsonPatch, mergePatch, serverSideApply, startTestCluster, type TestCluster } from './testing.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GROUP = 'openclaw.rocks';
const API_VERSION = `${GROUP}/v1alpha1`;
const TIME = '2026-01-01T00:00:00Z';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR], clock: () => new Date(TIME) });
  ns = await createNamespace(cluster, 'ssa');
});
afterAll(() => cluster.close());

const path = () => ({ group: GROUP, version: 'v1alpha1', namespace: ns, plural: 'openclawinstances' });

let counter = 0;
function fresh(): string {
  counter += 1;
  return `inst-${counter}`;
}

async function apply(name: string, manager: string, spec: Obj, force = false): Promise<Obj> {
  return (await cluster.custom.patchNamespacedCustomObject(
    {
      ...path(),
      name,
      body: { apiVersion: API_VERSION, kind: 'OpenClawInstance', metadata: { name }, spec },
      fieldManager: manager,
      ...(force ? { force: true } : {}),
    },
    serverSideApply,
  )) as Obj;
}

async function read(name: string): Promise<Obj> {
  return (await cluster.custom.getNamespacedCustomObject({ ...path(), name })) as Obj;
}

function entry(manager: string, operation: 'Apply' | 'Update', fieldsV1: Obj, subresource?: string): Obj {
  // D9: managedFields entries name their subresource from 1.22 on; the lane's 1.20 does not.
  const named = subresource && cluster.target === 'emulator' ? { subresource } : {};
  return { manager, operation, apiVersion: API_VERSION, time: TIME, fieldsType: 'FieldsV1', fieldsV1, ...named };
}

/** Go's json.Marshal of a map: keys sorted at every level. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Obj)[key])]));
}

/**
 * Exact: the same entries, in the same order, with the key order down to FieldsV1 a real server
 * writes for a custom resource (an unstructured map, so every level's keys are sorted).
 */
function expectManaged(object: Obj, entries: Obj[]): void {
  // On the E8 lane's real server the clock is not ours: its times are read as TIME (testing.ts).
  // Its entries sort by operation, then time, then manager (L4): two applies a second apart come
  // in time order, so there the order is compared by that rule, on the entries' real times.
  const managed = atFixedTime(cluster, object.metadata.managedFields, TIME) as Obj[];
  const expected = cluster.target === 'real' ? inServerOrder(object.metadata.managedFields as Obj[], entries) : entries;
  expect(managed).toEqual(expected);
  expect(JSON.stringify(managed)).toBe(JSON.stringify(sortedKeys(expected)));
}

/** The expected entries in the order a real server keeps: operation (Apply first), then the live entry's time, then manager. */
function inServerOrder(live: Obj[], entries: Obj[]): Obj[] {
  const timeOf = (e: Obj) => String(live.find((l) => l.manager === e.manager && l.operation === e.operation && (l.subresource ?? '') === (e.subresource ?? ''))?.time ?? '');
  const rank = (e: Obj) => (e.operation === 'Apply' ? 0 : 1);
  return [...entries].sort((a, b) => rank(a) - rank(b) || timeOf(a).localeCompare(timeOf(b)) || String(a.manager).localeCompare(String(b.manager)));
}

const v = (value: unknown) => `v:${JSON.stringify(value)}`;
const k = (key: Obj) => `k:${JSON.stringify(key)}`;

describe('server-side apply scenarios', () => {
  it('E2 two appliers on a set list: the one dropped by its sole owner goes, the one both own stays', async () => {
    const name = fresh();
    await apply(name, 'alice', { skills: ['only-alice', 'shared'] });
    const both = await apply(name, 'bob', { skills: ['shared', 'only-bob'] });
    expect(both.spec.skills).toEqual(['only-alice', 'shared', 'only-bob']);
    expectManaged(both, [
      entry('alice', 'Apply', { 'f:spec': { 'f:skills': { [v('only-alice')]: {}, [v('shared')]: {} } } }),
      entry('bob', 'Apply', { 'f:spec': { 'f:skills': { [v('only-bob')]: {}, [v('shared')]: {} } } }),
    ]);

    const after = await apply(name, 'alice', { model: 'gpt' });
    expect(after.spec).toEqual({ skills: ['shared', 'only-bob'], model: 'gpt' });
    expectManaged(after, [
      entry('alice', 'Apply', { 'f:spec': { 'f:model': {} } }),
      entry('bob', 'Apply', { 'f:spec': { 'f:skills': { [v('only-bob')]: {}, [v('shared')]: {} } } }),
    ]);
  });

  it('E2 unsetting a scalar its sole owner applied removes it', async () => {
    const name = fresh();
    await apply(name, 'alice', { image: 'gw:1', model: 'gpt' });
    const after = await apply(name, 'alice', { image: 'gw:1' });
    expect(after.spec).toEqual({ image: 'gw:1' });
    expectManaged(after, [entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } })]);
  });

  it('E2 unsetting a scalar shared with another applier keeps it, owned by the other', async () => {
    const name = fresh();
    await apply(name, 'alice', { image: 'gw:1', model: 'gpt' });
    const shared = await apply(name, 'bob', { model: 'gpt' });
    expectManaged(shared, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {}, 'f:model': {} } }),
      entry('bob', 'Apply', { 'f:spec': { 'f:model': {} } }),
    ]);
    const after = await apply(name, 'alice', { image: 'gw:1' });
    expect(after.spec).toEqual({ image: 'gw:1', model: 'gpt' });
    expectManaged(after, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('bob', 'Apply', { 'f:spec': { 'f:model': {} } }),
    ]);
  });

  it('E2 unsetting a scalar shared with an updater keeps it, owned by the updater', async () => {
    const name = fresh();
    await cluster.custom.createNamespacedCustomObject({
      ...path(),
      fieldManager: 'occ-api',
      body: { apiVersion: API_VERSION, kind: 'OpenClawInstance', metadata: { name }, spec: { model: 'gpt' } },
    });
    await apply(name, 'alice', { image: 'gw:1', model: 'gpt' });
    const after = await apply(name, 'alice', { image: 'gw:1' });
    expect(after.spec).toEqual({ model: 'gpt', image: 'gw:1' });
    expectManaged(after, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('occ-api', 'Update', { 'f:spec': { '.': {}, 'f:model': {} } }),
    ]);
  });

  it('E2 changing a map-list item value another manager owns is a 409 naming the manager and the field; nothing changes', async () => {
    const name = fresh();
    const before = await apply(name, 'alice', { env: [{ name: 'LOG_LEVEL', value: 'info' }] });
    const { code, body } = await apiFailure(apply(name, 'bob', { env: [{ name: 'LOG_LEVEL', value: 'debug' }] }));
    expect(code).toBe(409);
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alice": .spec.env[name="LOG_LEVEL"].value',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.env[name="LOG_LEVEL"].value' }] },
      code: 409,
    });
    const after = await read(name);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec.env).toEqual([{ name: 'LOG_LEVEL', value: 'info' }]);
    expectManaged(after, [entry('alice', 'Apply', { 'f:spec': { 'f:env': { [k({ name: 'LOG_LEVEL' })]: { '.': {}, 'f:name': {}, 'f:value': {} } } } })]);
  });

  it('E2 force moves ownership of the conflicting field and only that field', async () => {
    const name = fresh();
    await apply(name, 'alice', { env: [{ name: 'LOG_LEVEL', value: 'info' }] });
    const forced = await apply(name, 'bob', { env: [{ name: 'LOG_LEVEL', value: 'debug' }] }, true);
    expect(forced.spec.env).toEqual([{ name: 'LOG_LEVEL', value: 'debug' }]);
    const item = k({ name: 'LOG_LEVEL' });
    expectManaged(forced, [
      entry('alice', 'Apply', { 'f:spec': { 'f:env': { [item]: { '.': {}, 'f:name': {} } } } }),
      entry('bob', 'Apply', { 'f:spec': { 'f:env': { [item]: { '.': {}, 'f:name': {}, 'f:value': {} } } } }),
    ]);
  });

  it('E2 an apply after an Update shares what it sets to the same value, adds its own items, and conflicts with the updater on a changed value', async () => {
    const name = fresh();
    await cluster.custom.createNamespacedCustomObject({
      ...path(),
      fieldManager: 'occ-api',
      body: { apiVersion: API_VERSION, kind: 'OpenClawInstance', metadata: { name }, spec: { image: 'gw:1', skills: ['a'] } },
    });
    const applied = await apply(name, 'alice', { image: 'gw:1', skills: ['b'] });
    expect(applied.spec).toEqual({ image: 'gw:1', skills: ['a', 'b'] });
    expectManaged(applied, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {}, 'f:skills': { [v('b')]: {} } } }),
      entry('occ-api', 'Update', { 'f:spec': { '.': {}, 'f:image': {}, 'f:skills': { '.': {}, [v('a')]: {} } } }),
    ]);
    const { code, body } = await apiFailure(apply(name, 'alice', { image: 'gw:2', skills: ['b'] }));
    expect(code).toBe(409);
    expect(body.message).toBe(`Apply failed with 1 conflict: conflict with "occ-api" using ${API_VERSION}: .spec.image`);
    expect(body.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: `conflict with "occ-api" using ${API_VERSION}`, field: '.spec.image' },
    ]);
  });

  it('E2 atomic values are replaced whole and owned as one field: an atomic map (spec.revision) and a secretKeyRef', async () => {
    const name = fresh();
    const ref = (secret: string) => ({ name: 'TOKEN', valueFrom: { secretKeyRef: { name: secret, key: 'value', optional: false } } });
    await apply(name, 'alice', { revision: { id: 'rev_a', number: 1 }, env: [ref('s1')] });
    const replaced = await apply(name, 'alice', {
      revision: { id: 'rev_b', number: 2 },
      env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's2', key: 'value' } } }],
    });
    expect(replaced.spec.revision).toEqual({ id: 'rev_b', number: 2 });
    expect(replaced.spec.env).toEqual([{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's2', key: 'value' } } }]);
    expectManaged(replaced, [
      entry('alice', 'Apply', {
        'f:spec': {
          'f:env': { [k({ name: 'TOKEN' })]: { '.': {}, 'f:name': {}, 'f:valueFrom': { 'f:secretKeyRef': {} } } },
          'f:revision': {},
        },
      }),
    ]);
    const { body } = await apiFailure(apply(name, 'bob', { revision: { id: 'rev_c', number: 3 } }));
    expect(body.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.revision' }]);
  });

  it('E2 K2 RC3 the config document is granular at every level: each manager owns the keys it set, dropping one removes only it, a conflict names the key, lists are atomic (D10 on 1.20: granular at the first level only)', async () => {
    const name = fresh();
    // Different top-level keys: both servers keep them apart.
    await apply(name, 'occ-controller', { config: { raw: { agents: { defaults: { model: 'a' } }, tools: { allow: ['x'] } } } });
    await apply(name, 'openclaw-selfconfig', { config: { raw: { notes: { style: 'short' } } } });
    const apart = await apply(name, 'occ-controller', { config: { raw: { agents: { defaults: { model: 'b' } }, tools: { allow: ['x', 'y'] } } } });
    expect(apart.spec.config.raw).toEqual({ agents: { defaults: { model: 'b' } }, tools: { allow: ['x', 'y'] }, notes: { style: 'short' } });
    if (cluster.target === 'real') {
      // D10: kube-apiserver 1.20 types the values below a preserve-unknown-fields object as atomic
      // (kube-openapi made them deduced, granular at every level, in May 2021: Kubernetes 1.22).
      expectManaged(apart, [
        entry('occ-controller', 'Apply', { 'f:spec': { 'f:config': { 'f:raw': { 'f:agents': {}, 'f:tools': {} } } } }),
        entry('openclaw-selfconfig', 'Apply', { 'f:spec': { 'f:config': { 'f:raw': { 'f:notes': {} } } } }),
      ]);
      const { body } = await apiFailure(apply(name, 'openclaw-selfconfig', { config: { raw: { notes: { style: 'short' }, tools: { web: { enabled: true } } } } }));
      expect(body.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "occ-controller"', field: '.spec.config.raw.tools' }]);
      return;
    }
    expectManaged(apart, [
      entry('occ-controller', 'Apply', { 'f:spec': { 'f:config': { 'f:raw': { 'f:agents': { 'f:defaults': { 'f:model': {} } }, 'f:tools': { 'f:allow': {} } } } } }),
      entry('openclaw-selfconfig', 'Apply', { 'f:spec': { 'f:config': { 'f:raw': { 'f:notes': { 'f:style': {} } } } } }),
    ]);
    // Under one top-level key too: each manager owns its own key there.
    const both = await apply(name, 'openclaw-selfconfig', { config: { raw: { notes: { style: 'short' }, tools: { web: { enabled: true } } } } });
    expect(both.spec.config.raw.tools).toEqual({ allow: ['x', 'y'], web: { enabled: true } });
    // A key the other manager holds is a conflict naming its path.
    const { body } = await apiFailure(apply(name, 'openclaw-selfconfig', { config: { raw: { notes: { style: 'short' }, tools: { web: { enabled: true } }, agents: { defaults: { model: 'c' } } } } }));
    expect(body.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "occ-controller"', field: '.spec.config.raw.agents.defaults.model' }]);
    // Dropping its key removes only that key: the other manager's stay.
    const dropped = await apply(name, 'openclaw-selfconfig', { config: { raw: { notes: { style: 'short' } } } });
    // The map it emptied stays as null, as K2 describes for a granular map emptied of its items.
    expect(dropped.spec.config.raw.tools).toEqual({ allow: ['x', 'y'], web: null });
    expect(dropped.spec.config.raw.agents).toEqual({ defaults: { model: 'b' } });
  });

  it('E2 granular map keys are owned one by one: dropping a key removes only that key', async () => {
    const name = fresh();
    await apply(name, 'alice', { workspace: { initialFiles: { 'AGENTS.md': 'a', 'notes/todo.md': 't' } } });
    await apply(name, 'bob', { workspace: { initialFiles: { 'SOUL.md': 's' } } });
    const after = await apply(name, 'alice', { workspace: { initialFiles: { 'AGENTS.md': 'a2' } } });
    expect(after.spec.workspace.initialFiles).toEqual({ 'AGENTS.md': 'a2', 'SOUL.md': 's' });
    expectManaged(after, [
      entry('alice', 'Apply', { 'f:spec': { 'f:workspace': { 'f:initialFiles': { 'f:AGENTS.md': {} } } } }),
      entry('bob', 'Apply', { 'f:spec': { 'f:workspace': { 'f:initialFiles': { 'f:SOUL.md': {} } } } }),
    ]);
  });

  it('E2 an apply that omits a whole category drops every item of it that only this manager owned', async () => {
    const name = fresh();
    await apply(name, 'occ-controller', { image: 'gw:1', skills: ['base'], env: [{ name: 'BASE', value: '1' }] });
    await apply(name, 'openclaw-selfconfig', {
      skills: ['extra'],
      env: [{ name: 'EXTRA', value: '2' }],
      workspace: { initialFiles: { 'x.md': 'x' } },
    });
    // Sending skills only, as if env and files were not this request's business, removes them.
    const after = await apply(name, 'openclaw-selfconfig', { skills: ['extra'] });
    // D6: 1.20 removes only the items, leaving the emptied granular map as null (its schema allows
    // null, K2); current servers also remove the named fields nobody owns any more (SMD v4.1).
    const emptied = cluster.target === 'real' ? { workspace: { initialFiles: null } } : {};
    expect(after.spec).toEqual({ image: 'gw:1', skills: ['base', 'extra'], env: [{ name: 'BASE', value: '1' }], ...emptied });
    expectManaged(after, [
      entry('occ-controller', 'Apply', {
        'f:spec': { 'f:env': { [k({ name: 'BASE' })]: { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:image': {}, 'f:skills': { [v('base')]: {} } },
      }),
      entry('openclaw-selfconfig', 'Apply', { 'f:spec': { 'f:skills': { [v('extra')]: {} } } }),
    ]);
  });
});

describe('K2 emptying what one applier filled (found by the E8 lane)', () => {
  // A list or granular map that an apply empties of the items its manager alone owned is left as
  // null by structured-merge-diff's RemoveItems (1.20, and current releases after the revert of
  // structured-merge-diff#306), which a `type: array`/`object` schema refuses: every later deploy
  // of an agent whose configuration dropped its last skill, env binding or file, or that turned
  // selfConfigure off, was a 422 on a real server. The CRD marks these fields nullable, and the
  // emulator leaves them null as a real server does.
  it('K2 W4 occ-controller empties skills, env, workspace files and allowedActions in turn, and the instance stays valid and reads as empty', async () => {
    const name = fresh();
    const full = { image: 'x', skills: ['a'], env: [{ name: 'A', value: '1' }], workspace: { initialFiles: { 'a.md': 'a' } }, selfConfigure: { enabled: true, allowedActions: ['skills'] } };
    await apply(name, 'occ-controller', full);
    const steps: [string, Obj][] = [
      ['skills', { ...full, skills: [] }],
      ['env', { ...full, skills: [], env: [] }],
      ['files', { ...full, skills: [], env: [], workspace: { initialFiles: {} } }],
      ['actions', { ...full, skills: [], env: [], workspace: { initialFiles: {} }, selfConfigure: { enabled: false, allowedActions: [] } }],
    ];
    for (const [what, spec] of steps) {
      const after = await apply(name, 'occ-controller', spec);
      const seen: Obj = { skills: after.spec.skills, env: after.spec.env, files: after.spec.workspace?.initialFiles, actions: after.spec.selfConfigure?.allowedActions };
      // Emptied by the removal of its items, while its field is still sent: null on both servers.
      expect(seen[what], what).toBeNull();
    }
    // Applying the same again changes nothing and is still valid.
    const again = await apply(name, 'occ-controller', steps.at(-1)![1]);
    expect(again.spec.selfConfigure.enabled).toBe(false);
  });
});

describe('server-side apply semantics', () => {
  it('E2 a map-list key of several fields is encoded as JSON with its fields sorted by name', async () => {
    const plural = 'routes';
    await createEstablishedCrd(cluster, {
        metadata: { name: `${plural}.${GROUP}` },
        spec: {
          group: GROUP,
          scope: 'Namespaced',
          names: { plural, singular: 'route', kind: 'Route', listKind: 'RouteList' },
          versions: [
            {
              name: 'v1alpha1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      properties: {
                        targets: {
                          type: 'array',
                          x_kubernetes_list_type: 'map',
                          x_kubernetes_list_map_keys: ['port', 'host'],
                          items: { type: 'object', required: ['port', 'host'], properties: { port: { type: 'integer' }, host: { type: 'string' }, weight: { type: 'integer' } } },
                        },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
    });
    const applied = (await cluster.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: 'v1alpha1',
        namespace: ns,
        plural,
        name: 'r1',
        fieldManager: 'alice',
        body: { apiVersion: API_VERSION, kind: 'Route', metadata: { name: 'r1' }, spec: { targets: [{ port: 80, host: 'b', weight: 1 }] } },
      },
      serverSideApply,
    )) as Obj;
    expect(JSON.stringify(applied.metadata.managedFields[0].fieldsV1)).toBe(
      '{"f:spec":{"f:targets":{"k:{\\"host\\":\\"b\\",\\"port\\":80}":{".":{},"f:host":{},"f:port":{},"f:weight":{}}}}}',
    );
  });

  it('E2 apply creates a missing object (201); an identical apply changes nothing, resourceVersion included', async () => {
    const name = fresh();
    const body = { apiVersion: API_VERSION, kind: 'OpenClawInstance', metadata: { name }, spec: { image: 'gw:1', skills: ['a'] } };
    const response = await cluster.custom.patchNamespacedCustomObjectWithHttpInfo({ ...path(), name, body, fieldManager: 'alice' }, serverSideApply);
    expect(response.httpStatusCode).toBe(201);
    const created = response.data as Obj;
    expect(created.metadata.generation).toBe(1);
    expectManaged(created, [entry('alice', 'Apply', { 'f:spec': { 'f:image': {}, 'f:skills': { [v('a')]: {} } } })]);
    const again = await apply(name, 'alice', { image: 'gw:1', skills: ['a'] });
    expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(again.metadata.managedFields).toEqual(created.metadata.managedFields);
  });

  it('E2 an apply carrying metadata.resourceVersion is conditional: a stale one is a 409 and changes nothing', async () => {
    const name = fresh();
    const first = await apply(name, 'alice', { skills: ['a'] });
    await apply(name, 'bob', { skills: ['b'] });
    const stale = await apiFailure(
      cluster.custom.patchNamespacedCustomObject(
        {
          ...path(),
          name,
          fieldManager: 'alice',
          body: { apiVersion: API_VERSION, kind: 'OpenClawInstance', metadata: { name, resourceVersion: first.metadata.resourceVersion }, spec: { skills: [] } },
        },
        serverSideApply,
      ),
    );
    expect(stale.code).toBe(409);
    expect(stale.body.message).toBe(
      `Operation cannot be fulfilled on openclawinstances.${GROUP} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    );
    expect((await read(name)).spec.skills).toEqual(['a', 'b']);
  });

  it('E2 updates record ownership under fieldManager, or the User-Agent before its first "/"', async () => {
    const name = fresh();
    await apply(name, 'alice', { image: 'gw:1', model: 'gpt' });
    // client-node 2 sends its own User-Agent ("kubernetes-client-javascript/<version>").
    const patched = (await cluster.custom.patchNamespacedCustomObject({ ...path(), name, body: { spec: { model: 'claude' } } }, mergePatch)) as Obj;
    expectManaged(patched, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('kubernetes-client-javascript', 'Update', { 'f:spec': { 'f:model': {} } }),
    ]);
    const replaced = (await cluster.custom.replaceNamespacedCustomObject({
      ...path(),
      name,
      fieldManager: 'occ-api',
      body: { ...patched, spec: { ...patched.spec, skills: ['s'] } },
    })) as Obj;
    expectManaged(replaced, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('kubernetes-client-javascript', 'Update', { 'f:spec': { 'f:model': {} } }),
      entry('occ-api', 'Update', { 'f:spec': { 'f:skills': { '.': {}, [v('s')]: {} } } }),
    ]);
    const jsonPatched = (await cluster.custom.patchNamespacedCustomObject(
      { ...path(), name, fieldManager: 'json-patcher', body: [{ op: 'add', path: '/spec/skills/-', value: 't' }] },
      jsonPatch,
    )) as Obj;
    expect(jsonPatched.spec.skills).toEqual(['s', 't']);
    expect(jsonPatched.metadata.managedFields.map((e: Obj) => [e.manager, e.operation, JSON.stringify(e.fieldsV1)])).toEqual([
      ['alice', 'Apply', '{"f:spec":{"f:image":{}}}'],
      ['json-patcher', 'Update', '{"f:spec":{"f:skills":{"v:\\"t\\"":{}}}}'],
      ['kubernetes-client-javascript', 'Update', '{"f:spec":{"f:model":{}}}'],
      ['occ-api', 'Update', '{"f:spec":{"f:skills":{".":{},"v:\\"s\\"":{}}}}'],
    ]);
  });

  it('E2 an update or merge patch that removes fields takes them out of its manager\'s entry (and the object)', async () => {
    const name = fresh();
    await apply(name, 'alice', { image: 'gw:1' });
    const added = (await cluster.custom.patchNamespacedCustomObject(
      { ...path(), name, fieldManager: 'occ-api', body: { spec: { model: 'gpt', skills: ['a', 'b'] } } },
      mergePatch,
    )) as Obj;
    expectManaged(added, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('occ-api', 'Update', { 'f:spec': { 'f:model': {}, 'f:skills': { '.': {}, [v('a')]: {}, [v('b')]: {} } } }),
    ]);
    // A merge patch that nulls model: occ-api no longer owns it.
    const unset = (await cluster.custom.patchNamespacedCustomObject(
      { ...path(), name, fieldManager: 'occ-api', body: { spec: { model: null } } },
      mergePatch,
    )) as Obj;
    expect(unset.spec).toEqual({ image: 'gw:1', skills: ['a', 'b'] });
    expectManaged(unset, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('occ-api', 'Update', { 'f:spec': { 'f:skills': { '.': {}, [v('a')]: {}, [v('b')]: {} } } }),
    ]);
    // A replace that drops skill "b": occ-api's entry loses it too.
    const replaced = (await cluster.custom.replaceNamespacedCustomObject({
      ...path(),
      name,
      fieldManager: 'occ-api',
      body: { ...unset, spec: { image: 'gw:1', skills: ['a'] } },
    })) as Obj;
    expectManaged(replaced, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('occ-api', 'Update', { 'f:spec': { 'f:skills': { '.': {}, [v('a')]: {} } } }),
    ]);
    // Removing everything it owned drops the entry altogether.
    const emptied = (await cluster.custom.patchNamespacedCustomObject(
      { ...path(), name, fieldManager: 'occ-api', body: { spec: { skills: null } } },
      mergePatch,
    )) as Obj;
    expectManaged(emptied, [entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } })]);
  });

  it('E2 the status subresource is tracked apart: the main endpoint ignores status, /status ignores the rest', async () => {
    const name = fresh();
    await apply(name, 'alice', { image: 'gw:1' });
    const statusBody = (spec: Obj) => ({
      apiVersion: API_VERSION,
      kind: 'OpenClawInstance',
      metadata: { name },
      spec,
      status: { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    if (cluster.target === 'real') {
      // D7: 1.20 looks for conflicts in the spec part of an apply to /status before resetting it
      // (current servers reset the fields a subresource may not write first, ResetFieldsStrategy).
      const conflict = await apiFailure(
        cluster.custom.patchNamespacedCustomObjectStatus({ ...path(), name, body: statusBody({ image: 'ignored' }), fieldManager: 'kubelet-sim' }, serverSideApply),
      );
      expect([conflict.code, conflict.body.details?.causes?.map((c) => c.field)]).toEqual([409, ['.spec.image']]);
    }
    const { spec: _spec, ...statusOnly } = statusBody({});
    const viaStatus = (await cluster.custom.patchNamespacedCustomObjectStatus(
      { ...path(), name, body: cluster.target === 'real' ? statusOnly : statusBody({ image: 'ignored' }), fieldManager: 'kubelet-sim' },
      serverSideApply,
    )) as Obj;
    expect(viaStatus.spec).toEqual({ image: 'gw:1' });
    expect(viaStatus.status.phase).toBe('Ready');
    const mainBody = { ...statusBody({ image: 'gw:1' }), status: { phase: 'Ignored' } };
    if (cluster.target === 'real') {
      // D7 again, the other way round: the status part of an apply to the main endpoint.
      const conflict = await apiFailure(cluster.custom.patchNamespacedCustomObject({ ...path(), name, body: mainBody, fieldManager: 'alice' }, serverSideApply));
      expect([conflict.code, conflict.body.details?.causes?.map((c) => c.field)]).toEqual([409, ['.status.phase']]);
    }
    const { status: _status, ...specOnly } = mainBody;
    const viaMain = (await cluster.custom.patchNamespacedCustomObject(
      { ...path(), name, body: cluster.target === 'real' ? specOnly : mainBody, fieldManager: 'alice' },
      serverSideApply,
    )) as Obj;
    expect(viaMain.status.phase).toBe('Ready');
    expectManaged(viaMain, [
      entry('alice', 'Apply', { 'f:spec': { 'f:image': {} } }),
      entry('kubelet-sim', 'Apply', { 'f:status': { 'f:conditions': { [k({ type: 'Ready' })]: { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } }, 'status'),
    ]);
    const statusUpdate = (await cluster.custom.patchNamespacedCustomObjectStatus(
      { ...path(), name, fieldManager: 'observer', body: { spec: { image: 'ignored' }, status: { observedGeneration: 1 } } },
      mergePatch,
    )) as Obj;
    expect(statusUpdate.spec).toEqual({ image: 'gw:1' });
    // D7: 1.20 computes the updater's fields before resetting spec, so it records spec.image too.
    const observed = cluster.target === 'real' ? { 'f:spec': { 'f:image': {} }, 'f:status': { 'f:observedGeneration': {} } } : { 'f:status': { 'f:observedGeneration': {} } };
    expect((atFixedTime(cluster, statusUpdate.metadata.managedFields, TIME) as Obj[]).at(-1)).toEqual(entry('observer', 'Update', observed, 'status'));
  });

  it('E2 built-in schemas: Deployment containers and their env merge by name; Secret data keys are owned one by one', async () => {
    const deployment = (manager: string, body: Obj) =>
      cluster.objects.patch(
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'gw', namespace: ns }, ...body },
        undefined,
        undefined,
        manager,
        undefined,
        'application/apply-patch+yaml' as never,
      ) as Promise<Obj>;
    const labels = { app: 'gw' };
    await deployment('occ-controller', {
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'gateway', image: 'gw:1', env: [{ name: 'A', value: '1' }] }] } },
      },
    });
    const merged = await deployment('sidecar-injector', {
      spec: { template: { spec: { containers: [{ name: 'gateway', env: [{ name: 'B', value: '2' }] }] } } },
    });
    expect(merged.spec.template.spec.containers.map((c: Obj) => [c.name, c.env])).toEqual([
      ['gateway', [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]],
    ]);
    const injector = merged.metadata.managedFields.find((e: Obj) => e.manager === 'sidecar-injector');
    expect(JSON.stringify(injector.fieldsV1)).toBe(
      JSON.stringify({
        'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { [k({ name: 'gateway' })]: { '.': {}, 'f:env': { [k({ name: 'B' })]: { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:name': {} } } } } },
      }),
    );

    const secret = (manager: string, data: Obj) =>
      cluster.objects.patch(
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: ns }, data } as Obj,
        undefined,
        undefined,
        manager,
        undefined,
        'application/apply-patch+yaml' as never,
      ) as Promise<Obj>;
    await secret('alice', { a: 'YQ==' });
    const both = await secret('bob', { b: 'Yg==' });
    expect(both.data).toEqual({ a: 'YQ==', b: 'Yg==' });
    expect(both.metadata.managedFields.map((e: Obj) => [e.manager, e.operation, JSON.stringify(e.fieldsV1)])).toEqual([
      ['alice', 'Apply', '{"f:data":{"f:a":{}}}'],
      ['bob', 'Apply', '{"f:data":{"f:b":{}}}'],
    ]);
  });
});
