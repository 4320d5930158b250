import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { MAX_NESTING_DEPTH } from './nesting.ts';
import { createNamespace, emulatorRequest, startTestCluster, type TestCluster } from './testing.ts';

// E1 bodies nested past any limit are a 400 Status, never a 500 (20,000 levels were once answered
// 500 "Maximum call stack size exceeded"). Through every write path: create, replace, merge patch,
// JSON patch (whose result nests deeper than its body) and server-side apply. The emulator refuses
// above MAX_NESTING_DEPTH. Emulator-only: it sends raw bodies through the emulator's request helper;
// what a real server answers (D12 in REAL-SERVER-DIFFERENCES.md) is not checked on the lane.

let cluster: TestCluster;
let ns: string;
beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
  ns = await createNamespace(cluster, 'nest');
});
afterAll(() => cluster.close());

const REAL_MAX = 10_000;
const limit = () => MAX_NESTING_DEPTH;
const base = `/apis/openclaw.rocks/v1alpha1/namespaces`;

/** A value nesting `levels` objects: {"a":{"a":…1}}; built as text, so no walk of ours builds it. */
const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{"a":1' + '}'.repeat(levels);
/** A whole OpenClawSelfConfig of exactly `depth` levels (object, spec, configPatch …). */
const selfConfig = (name: string, depth: number, resourceVersion?: string) =>
  `{"apiVersion":"openclaw.rocks/v1alpha1","kind":"OpenClawSelfConfig","metadata":{"name":"${name}"${resourceVersion ? `,"resourceVersion":"${resourceVersion}"` : ''}},"spec":{"instanceRef":"x","configPatch":${nested(depth - 2)}}}`;

function send(method: string, path: string, type: string, body: string) {
  return emulatorRequest(cluster.emulator, path, { method, headers: { authorization: `Bearer ${cluster.emulator.token}`, 'content-type': type }, body });
}

function expectDepthRefused(response: { status: number; text: string }) {
  expect(response.status, response.text.slice(0, 300)).toBe(400);
  const status = JSON.parse(response.text) as { kind: string; reason: string; message: string };
  expect(status).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  expect(status.message).toMatch(/exceeded max depth/);
}

describe('E1 nesting depth', () => {
  // The class, not one example: around the limit, well past it, and far past a real server's.
  const depths = () => [...new Set([3, limit() - 1, limit(), limit() + 1, 1_600, REAL_MAX + 1, 20_000])].sort((a, b) => a - b);

  it('E1 create, replace, merge patch and apply: accepted up to the limit, a 400 Status above it, never a 500', async () => {
    for (const depth of depths()) {
      const name = `d-${depth}`;
      const created = await send('POST', `${base}/${ns}/openclawselfconfigs`, 'application/json', selfConfig(name, depth));
      const applied = await send('PATCH', `${base}/${ns}/openclawselfconfigs/${name}-a?fieldManager=e1`, 'application/apply-patch+yaml', selfConfig(`${name}-a`, depth));
      for (const response of [created, applied]) {
        if (depth <= limit()) expect(response.status, `${depth}: ${response.text.slice(0, 200)}`).toBe(201);
        else expectDepthRefused(response);
      }
      // Replace and merge patch of an object that exists, with a body of this depth.
      const small = `s-${depth}`;
      const first = await send('POST', `${base}/${ns}/openclawselfconfigs`, 'application/json', selfConfig(small, 3));
      expect(first.status).toBe(201);
      const { resourceVersion } = (JSON.parse(first.text) as { metadata: { resourceVersion: string } }).metadata;
      const replaced = await send('PUT', `${base}/${ns}/openclawselfconfigs/${small}`, 'application/json', selfConfig(small, depth, resourceVersion));
      const merged = await send('PATCH', `${base}/${ns}/openclawselfconfigs/${small}`, 'application/merge-patch+json', `{"spec":{"configPatch":${nested(depth - 2)}}}`);
      for (const response of [replaced, merged]) {
        if (depth <= limit()) expect(response.status, `${depth}: ${response.text.slice(0, 200)}`).toBe(200);
        else expectDepthRefused(response);
      }
    }
  }, 120_000);

  it('E1 a JSON patch whose result nests past the limit is a 400, though its own body is shallow', async () => {
    const name = 'json-patch';
    expect((await send('POST', `${base}/${ns}/openclawselfconfigs`, 'application/json', selfConfig(name, limit()))).status).toBe(201);
    const deepest = `/spec/configPatch${'/a'.repeat(limit() - 3)}`;
    const ok = await send('PATCH', `${base}/${ns}/openclawselfconfigs/${name}`, 'application/json-patch+json', JSON.stringify([{ op: 'add', path: `${deepest}/b`, value: 2 }]));
    expect(ok.status, ok.text.slice(0, 200)).toBe(200);
    const deeper = await send('PATCH', `${base}/${ns}/openclawselfconfigs/${name}`, 'application/json-patch+json', JSON.stringify([{ op: 'add', path: `${deepest}/b`, value: JSON.parse(nested(limit())) }]));
    expectDepthRefused(deeper);
  }, 60_000);
});
