import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { takeUnknownFields } from './field-validation.ts';
import { BUILT_IN_RESOURCES } from './registry.ts';
import { createNamespace, emulatorRequest, startTestCluster, type TestCluster } from './testing.ts';
import { WRITTEN } from './testing-objects.ts';
import type { JsonObject } from './types.ts';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
  ns = await createNamespace(cluster, 'fv');
});
afterAll(() => cluster.close());

function post(path: string, body: unknown, query = '') {
  return emulatorRequest(cluster.emulator, `${path}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cluster.emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const instances = () => `/apis/openclaw.rocks/v1alpha1/namespaces/${ns}/openclawinstances`;
const instance = (name: string) => ({
  apiVersion: 'openclaw.rocks/v1alpha1',
  kind: 'OpenClawInstance',
  metadata: { name, colour: 'red' },
  spec: { image: 'gw:1', foo: 1, env: [{ name: 'A', value: 'x', bogus: true }] },
});

describe('fieldValidation', () => {
  it('E6 by default (Warn) unknown fields are dropped and named in one Warning header each', async () => {
    const response = await post(instances(), instance('warned'));
    expect(response.status).toBe(201);
    expect(response.headerLines('warning')).toEqual([
      '299 - "unknown field \\"metadata.colour\\""',
      '299 - "unknown field \\"spec.env[0].bogus\\""',
      '299 - "unknown field \\"spec.foo\\""',
    ]);
    const created = response.json() as { metadata: Record<string, unknown>; spec: unknown };
    expect(created.spec).toEqual({ env: [{ name: 'A', value: 'x' }], image: 'gw:1' });
    expect(created.metadata).not.toHaveProperty('colour');
  });

  it('E6 Strict refuses the request with a 400 naming every unknown field; nothing is stored', async () => {
    const response = await post(instances(), instance('strict'), '?fieldValidation=Strict');
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'OpenClawInstance in version "v1alpha1" cannot be handled as a OpenClawInstance: strict decoding error: unknown field "metadata.colour", unknown field "spec.env[0].bogus", unknown field "spec.foo"',
    });
    const read = await emulatorRequest(cluster.emulator, `${instances()}/strict`, { headers: { authorization: `Bearer ${cluster.emulator.token}` } });
    expect(read.status).toBe(404);
  });

  it('E6 Ignore drops unknown fields without a warning; built-in kinds are checked the same way', async () => {
    const ignored = await post(instances(), instance('ignored'), '?fieldValidation=Ignore');
    expect([ignored.status, ignored.headerLines('warning')]).toEqual([201, []]);
    const configMap = await post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'cm' }, data: { a: '1' }, extra: true });
    expect(configMap.headerLines('warning')).toEqual(['299 - "unknown field \\"extra\\""']);
    expect(configMap.json()).not.toHaveProperty('extra');
    const strict = await post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'cm2' }, extra: true }, '?fieldValidation=Strict');
    expect([strict.status, (strict.json() as { message: string }).message]).toEqual([
      400,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra"',
    ]);
  });

  it('E6 a fieldValidation value other than Ignore, Warn or Strict is a 422', async () => {
    const response = await post(instances(), instance('bad'), '?fieldValidation=Loud');
    expect(response.status).toBe(422);
    expect((response.json() as { message: string }).message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });
});

describe('E6 pruning keeps what each built-in kind is written with', () => {
  it.each(BUILT_IN_RESOURCES.map((type) => [`${type.group}/${type.plural}`, type] as const))('E6 %s keeps every field its writers send', (key, type) => {
    const written = WRITTEN[key];
    expect(written, `add ${key} to WRITTEN`).toBeDefined();
    const object = { apiVersion: type.group ? `${type.group}/${type.version}` : type.version, kind: type.kind, ...structuredClone(written!) } as JsonObject;
    expect(takeUnknownFields(type, object)).toEqual([]);
    expect(object).toEqual({ apiVersion: object.apiVersion, kind: type.kind, ...written });
  });
});
