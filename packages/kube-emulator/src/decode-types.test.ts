import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTypeError } from './decode-types.ts';
import { capturedNameOf } from './openapi-docs.ts';
import { BUILT_IN_RESOURCES } from './registry.ts';
import { apiFailure, clusterRequest, createNamespace, mergePatch, startTestCluster, type TestCluster } from './testing.ts';
import { WRITTEN } from './testing-objects.ts';
import { isObject, type JsonObject } from './types.ts';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await createNamespace(cluster, 'types');
});
afterAll(() => cluster.close());

const deployment = (name: string, spec: JsonObject = {}, labels: JsonObject = { app: 'a' }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'a' } },
    template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'g', image: 'x', ports: [{ containerPort: 80 }] }] } },
    ...spec,
  },
});

/** POSTs a body as sent (client-node would refuse to serialise some of them). */
async function post(path: string, body: unknown): Promise<{ code: number; body: { reason: string; message: string } }> {
  const response = await clusterRequest(cluster, path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
  return { code: response.status, body: JSON.parse(response.body.toString()) as { reason: string; message: string } };
}

/** The 1.20 server words decoder errors with json-iterator's text; the emulator with current servers' encoding/json. */
function expectDecodeFailure(failure: { code: number; body: { reason: string; message: string } }, kind: string, text: string): void {
  expect([failure.code, failure.body.reason]).toEqual([400, 'BadRequest']);
  expect(failure.body.message).toMatch(new RegExp(`^${kind} in version "v1" cannot be handled as a ${kind}: `));
  if (cluster.target === 'emulator') expect(failure.body.message).toBe(`${kind} in version "v1" cannot be handled as a ${kind}: ${text}`);
}

describe('decoding built-in kinds', () => {
  it('E6 a value of the wrong type in a built-in kind is refused with a 400, whatever fieldValidation says, and nothing is stored', async () => {
    const cases: [string, object, string][] = [
      ['replicas', deployment('t-replicas', { replicas: 'two' }), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
      [
        'port',
        deployment('t-port', { template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'g', image: 'x', ports: [{ containerPort: 'http' }] }] } } }),
        'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
      ],
      ['label', deployment('t-label', {}, { app: 7 }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
      ['fraction', deployment('t-fraction', { replicas: 1.5 }), 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
      ['containers', deployment('t-containers', { template: { spec: { containers: { name: 'g' } } } }), 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container'],
    ];
    for (const [name, body, text] of cases) {
      const failure = await post(`/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Ignore`, body);
      expectDecodeFailure(failure, 'Deployment', text);
      const read = await apiFailure(cluster.apps.readNamespacedDeployment({ namespace: ns, name: `t-${name}` }));
      expect(read.code, name).toBe(404);
    }
    const secret = await post(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' }, data: { a: 1 } });
    expectDecodeFailure(secret, 'Secret', 'json: cannot unmarshal number into Go struct field Secret.data of type []uint8');
  });

  it('E6 a patch whose result does not decode is a 422 naming the patch; the object is unchanged', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: deployment('patched') as never });
    const failure = await apiFailure(cluster.apps.patchNamespacedDeployment({ namespace: ns, name: 'patched', body: { spec: { replicas: 'two' } } }, mergePatch));
    expect([failure.code, failure.body.reason]).toEqual([422, 'Invalid']);
    expect(failure.body.details?.causes?.map((c) => c.field)).toEqual(['patch']);
    if (cluster.target === 'emulator') {
      expect(failure.body.message).toBe(
        ' "" is invalid: patch: Invalid value: "{\\"spec\\":{\\"replicas\\":\\"two\\"}}": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
    }
    expect((await cluster.apps.readNamespacedDeployment({ namespace: ns, name: 'patched' })).spec?.replicas).toBe(1);
  });
});

/** Leaves whose Go types decode themselves (IntOrString, Time): their errors are not emulated (decode-types.ts). */
const SELF_DECODING_LEAVES = new Set(['targetPort', 'port', 'minAvailable', 'lastHeartbeatTime', 'lastTransitionTime', 'kubeletEndpoint']);

/** Every scalar leaf of a value with its path, and the value with that leaf given the wrong JSON type. */
function mistypedLeaves(value: unknown, path: string[] = []): { path: string; swap(): unknown }[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => mistypedLeaves(item, [...path, String(i)]).map((leaf) => ({ path: leaf.path, swap: () => value.map((v, j) => (j === i ? leaf.swap() : v)) })));
  }
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, item]) =>
      mistypedLeaves(item, [...path, key]).map((leaf) => ({ path: leaf.path, swap: () => ({ ...value, [key]: leaf.swap() }) })),
    );
  }
  const wrong = typeof value === 'string' ? 7 : 'x';
  return [{ path: path.join('.'), swap: () => wrong }];
}

describe('E6 decoding: every typed leaf of every built-in kind', () => {
  const captured = BUILT_IN_RESOURCES.filter((type) => capturedNameOf(type) !== undefined);
  it.each(captured.map((type) => [`${type.group}/${type.plural}`, type] as const))('E6 %s: each scalar leaf of the wrong type is a decode error', (key) => {
    const type = captured.find((t) => `${t.group}/${t.plural}` === key)!;
    const kindName = capturedNameOf(type)!;
    const written = WRITTEN[key]!;
    expect(decodeTypeError(kindName, structuredClone(written) as JsonObject)).toBeUndefined();
    const leaves = mistypedLeaves(written).filter((leaf) => !leaf.path.split('.').some((part) => SELF_DECODING_LEAVES.has(part)));
    expect(leaves.length).toBeGreaterThan(0);
    for (const leaf of leaves) {
      expect(decodeTypeError(kindName, leaf.swap() as JsonObject), `${key} ${leaf.path}`).toMatch(/^json: cannot unmarshal (string|number) into Go struct field \w+\.[\w.]+ of type /);
    }
  });
});
