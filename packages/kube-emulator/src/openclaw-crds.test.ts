import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdForClientModels, OPENCLAW_CRD_DIR, readCrdFiles } from './crds.ts';
import { apiFailure, causesAsServed, createNamespace, mergePatch, startTestCluster, uniqueName, type TestCluster } from './testing.ts';
import type { KubeObject } from './types.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';

let preloaded: TestCluster;
let files: KubeObject[];

beforeAll(async () => {
  files = await readCrdFiles([OPENCLAW_CRD_DIR]);
  preloaded = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
});
afterAll(() => preloaded.close());

function specSchema(name: string): Obj {
  const crd = files.find((c) => c.metadata.name === name) as Obj;
  return crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
}

function instance(name: string, spec: Obj): Obj {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name }, spec };
}

describe('OpenClaw CRDs in deploy/crds', () => {
  it('K2 declare skills a set, env a map keyed by name, workspace.initialFiles a granular map and the config document a granular map at every level', () => {
    expect(files.map((c) => c.metadata.name)).toEqual([`openclawinstances.${GROUP}`, `openclawselfconfigs.${GROUP}`]);
    const spec = specSchema(`openclawinstances.${GROUP}`);
    expect(spec.skills).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'set', maxItems: 20 });
    expect(spec.env).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    expect(spec.env.items.properties.valueFrom.properties.secretKeyRef['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.env.items.properties.valueFrom.properties.configMapKeyRef['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.workspace.properties.initialFiles).toMatchObject({ 'x-kubernetes-map-type': 'granular', maxProperties: 50 });
    // RC3: no map type (granular) and no schema below it: deduced, so each key at any depth is owned on its own.
    expect(spec.config.properties.raw).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec.config.properties.raw['x-kubernetes-map-type']).toBeUndefined();
    expect(spec.config.properties.raw.properties).toBeUndefined();
    // What a revision names and the revision-owned model-auth Secret are atomic: one value each.
    expect(spec.revision['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.modelAuth['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.selfConfigure.properties.allowedActions.items.enum).toEqual(['skills', 'config', 'workspaceFiles', 'envVars']);
  });

  it('K2 the emulator preloads the same files: served with status, printer columns and short names', async () => {
    const crd = await preloaded.extensions.readCustomResourceDefinition({ name: `openclawinstances.${GROUP}` });
    const version = crd.spec.versions[0];
    expect(version?.schema?.openAPIV3Schema?.properties?.spec?.properties?.skills?.x_kubernetes_list_type).toBe('set');
    expect(version?.additionalPrinterColumns?.map((c) => c.name)).toEqual(['Image', 'Model', 'Revision', 'Ready', 'Reason', 'Age']);
    const resources = await preloaded.custom.getAPIResources({ group: GROUP, version: VERSION });
    // On the E8 lane other files add CRDs of their own to this group: there, only these two kinds'.
    const ours = (name: string) => preloaded.target === 'emulator' || /^openclaw(instances|selfconfigs)(\/status)?$/.test(name);
    const byName = Object.fromEntries(resources.resources.filter((r) => ours(r.name)).map((r) => [r.name, r.shortNames]));
    expect(byName).toEqual({
      openclawinstances: ['oci'],
      'openclawinstances/status': undefined,
      openclawselfconfigs: ['ocsc'],
      'openclawselfconfigs/status': undefined,
    });
  });

  it('K2 creating the CRDs through the apiextensions API keeps their schemas exactly and serves the kinds', async () => {
    // Under a group of their own, so that the server may already serve deploy/crds (the E8 lane's
    // real server is shared by every file and keeps what they install).
    const group = `${uniqueName('oc')}.example`;
    const renamed = files.map((crd) => {
      const copy = structuredClone(crd) as Obj;
      copy.spec.group = group;
      copy.metadata.name = `${copy.spec.names.plural}.${group}`;
      return copy;
    });
    for (const crd of renamed) await preloaded.objects.create(crdForClientModels(crd as KubeObject) as Obj);
    for (const crd of renamed) {
      const stored = (await preloaded.objects.read({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crd.metadata.name } })) as Obj;
      // Read back through the typed model and spelled for it, the schema is the file's.
      expect(stored.spec.versions[0].schema).toEqual((crdForClientModels(crd as KubeObject) as Obj).spec.versions[0].schema);
    }
    const ns = await createNamespace(preloaded, 'crds');
    const create = () =>
      preloaded.custom.createNamespacedCustomObject({
        group,
        version: VERSION,
        namespace: ns,
        plural: 'openclawselfconfigs',
        body: { apiVersion: `${group}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name: 'r1' }, spec: { instanceRef: 'i1', addSkills: ['npm:@scope/tool'] } },
      });
    // A real server serves a new CRD's kind a moment after it is Established.
    let created: Obj | undefined;
    for (let attempt = 0; attempt < 50 && !created; attempt += 1) {
      created = (await create().catch(async (error: unknown) => {
        if ((error as { code?: number }).code !== 404) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return undefined;
      })) as Obj | undefined;
    }
    expect(created?.spec).toEqual({ instanceRef: 'i1', addSkills: ['npm:@scope/tool'] });
  });
});

describe('custom resource validation', () => {
  let ns: string;
  const path = () => ({ group: GROUP, version: VERSION, namespace: ns, plural: 'openclawinstances' });
  beforeAll(async () => {
    ns = await createNamespace(preloaded, 'valid');
  });

  it('K2 a valid instance is stored; fields the schema does not declare are pruned', async () => {
    const created = (await preloaded.custom.createNamespacedCustomObject({
      ...path(),
      body: instance('ok', {
        image: 'ghcr.io/openclaw/gateway:1',
        skills: ['search', 'pack:browser@1.2', 'npm:@openclaw/mail'],
        env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }],
        workspace: { initialFiles: { 'AGENTS.md': '# hi' } },
        config: { raw: { anything: { goes: [1, 2] } } },
        selfConfigure: { enabled: true, allowedActions: ['skills'] },
        unknownField: 'dropped',
      }),
    })) as Obj;
    expect(created.spec.unknownField).toBeUndefined();
    expect(created.spec.config.raw).toEqual({ anything: { goes: [1, 2] } });
  });

  it('K2 an invalid instance is a 422 whose causes name each field', async () => {
    const tooManySkills = Array.from({ length: 21 }, (_, i) => `skill-${i}`);
    const files51 = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}.md`, 'x']));
    const { code, body } = await apiFailure(
      preloaded.custom.createNamespacedCustomObject({
        ...path(),
        body: instance('bad', {
          skills: [...tooManySkills.slice(0, 19), 'has space', 'x'.repeat(129)],
          env: [{ value: 'no name' }, { name: 'D', value: '1' }, { name: 'D', value: '2' }],
          workspace: { initialFiles: files51 },
          selfConfigure: { enabled: 'yes', allowedActions: ['skills', 'everything'] },
        }),
      }),
    );
    expect(code).toBe(422);
    expect(body.reason).toBe('Invalid');
    expect(body.details).toMatchObject({ name: 'bad', group: GROUP, kind: 'OpenClawInstance' });
    expect(causesAsServed(preloaded, body.details?.causes)).toEqual(causesAsServed(preloaded, [
      { reason: 'FieldValueTooMany', message: 'Too many: 21: must have at most 20 items', field: 'spec.skills' },
      { reason: 'FieldValueInvalid', message: `Invalid value: "has space": spec.skills[19] in body should match '^(npm:|pack:)?[A-Za-z0-9_/.@-]{1,128}$'`, field: 'spec.skills[19]' },
      { reason: 'FieldValueInvalid', message: `Invalid value: "${'x'.repeat(129)}": spec.skills[20] in body should match '^(npm:|pack:)?[A-Za-z0-9_/.@-]{1,128}$'`, field: 'spec.skills[20]' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.env[0].name' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: map[string]interface {}{"name":"D"}', field: 'spec.env[2]' },
      { reason: 'FieldValueTooMany', message: 'Too many: 51: must have at most 50 items', field: 'spec.workspace.initialFiles' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": spec.selfConfigure.enabled in body must be of type boolean: "string"', field: 'spec.selfConfigure.enabled' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "everything": supported values: "skills", "config", "workspaceFiles", "envVars"', field: 'spec.selfConfigure.allowedActions[1]' },
    ]));
    const many = await apiFailure(preloaded.custom.createNamespacedCustomObject({ ...path(), body: instance('bad2', { skills: tooManySkills }) }));
    expect(causesAsServed(preloaded, many.body.details?.causes)).toEqual(causesAsServed(preloaded, [{ reason: 'FieldValueTooMany', message: 'Too many: 21: must have at most 20 items', field: 'spec.skills' }]));
  });

  it('K2 a set list with a repeated item is a 422; updates and status writes are validated too', async () => {
    const dup = await apiFailure(preloaded.custom.createNamespacedCustomObject({ ...path(), body: instance('dup', { skills: ['a', 'a'] }) }));
    expect(dup.body.details?.causes).toEqual([{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: 'spec.skills[1]' }]);
    await preloaded.custom.createNamespacedCustomObject({ ...path(), body: instance('upd', { skills: ['a'] }) });
    const patched = await apiFailure(preloaded.custom.patchNamespacedCustomObject({ ...path(), name: 'upd', body: { spec: { skills: 'a' } } }, mergePatch));
    expect(patched.code).toBe(422);
    expect(patched.body.details?.causes?.[0]?.field).toBe('spec.skills');
    const status = await apiFailure(
      preloaded.custom.patchNamespacedCustomObjectStatus({ ...path(), name: 'upd', body: { status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } } }, mergePatch),
    );
    expect(causesAsServed(preloaded, status.body.details?.causes)).toEqual(causesAsServed(preloaded, [
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"', field: 'status.conditions[0].status' },
    ]));
  });

  it('K2 an OpenClawSelfConfig needs its instanceRef and limits each list to 10', async () => {
    const { code, body } = await apiFailure(
      preloaded.custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: 'openclawselfconfigs',
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'OpenClawSelfConfig',
          metadata: { name: 'sc' },
          spec: { addSkills: Array.from({ length: 11 }, (_, i) => `s${i}`), addEnvVars: [{ name: 'X' }] },
        },
      }),
    );
    expect(code).toBe(422);
    const expected = [
      { reason: 'FieldValueRequired', field: 'spec.instanceRef' },
      { reason: 'FieldValueTooMany', field: 'spec.addSkills' },
      { reason: 'FieldValueRequired', field: 'spec.addEnvVars[0].value' },
    ];
    const served = body.details?.causes?.map(({ reason, field }) => ({ reason, field }));
    expect(causesAsServed(preloaded, served)).toEqual(causesAsServed(preloaded, expected));
  });
});
