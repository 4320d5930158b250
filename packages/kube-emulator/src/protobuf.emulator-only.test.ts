import { describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { emulatorRequest, startTestCluster } from './testing.ts';

// The emulator's own protobuf decoder (E6: kubectl 1.33 sends some built-in creates as protobuf). A
// real server decodes protobuf with its generated codecs, so this checks nothing of it (L3).

/** A protobuf field: key (number, wire type 2) and length-delimited bytes. */
function field(number: number, bytes: Buffer | string): Buffer {
  const value = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return Buffer.concat([Buffer.from([(number << 3) | 2, value.length]), value]);
}

function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([field(1, apiVersion), field(2, kind)]);
  return Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, raw)]);
}

describe('protobuf request bodies', () => {
  it('E6 a ConfigMap in protobuf is read field by field; a custom resource in protobuf is 415', async () => {
    const cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
    try {
      const headers = { authorization: `Bearer ${cluster.emulator.token}`, 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' };
      // ConfigMap{metadata{name: "pb", generateName: ""}, data{"k": "v"}} as Go writes it (empty strings included).
      const metadata = Buffer.concat([field(1, 'pb'), field(2, '')]);
      const configMap = Buffer.concat([field(1, metadata), field(2, Buffer.concat([field(1, 'k'), field(2, 'v')]))]);
      const created = await emulatorRequest(cluster.emulator, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers, body: envelope('v1', 'ConfigMap', configMap) });
      expect(created.status).toBe(201);
      expect(created.headers['content-type']).toBe('application/json');
      const body = created.json() as { metadata: Record<string, unknown>; data: unknown };
      expect(body.data).toEqual({ k: 'v' });
      expect(body.metadata.name).toBe('pb');
      expect(body.metadata).not.toHaveProperty('generateName');

      const instance = await emulatorRequest(cluster.emulator, '/apis/openclaw.rocks/v1alpha1/namespaces/default/openclawinstances', {
        method: 'POST',
        headers,
        body: envelope('openclaw.rocks/v1alpha1', 'OpenClawInstance', field(1, field(1, 'x'))),
      });
      expect([instance.status, (instance.json() as { reason: string }).reason]).toEqual([415, 'UnsupportedMediaType']);
    } finally {
      await cluster.close();
    }
  });
});
