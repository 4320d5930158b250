import { describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { messageOf } from './protobuf.ts';
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
      const headers = { authorization: `Bearer ${cluster.emulator.token}`, 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' };
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

describe('protobuf forms of what the emulator serves', () => {
  it('E10 every built-in kind discovery lists, and every body a subresource or review takes, has a protobuf message, so a typed client never meets 415', async () => {
    // kubectl's typed clients (create role, auth can-i, create token …) send protobuf for any
    // built-in kind; a kind added to the server without its message answered 415 (the access
    // reviews and Role / ClusterRole / ClusterRoleBinding did, after the RBAC authorizer landed).
    const cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
    try {
      const headers = { authorization: `Bearer ${cluster.emulator.token}`, accept: 'application/json' };
      const groups = (await emulatorRequest(cluster.emulator, '/apis', { headers })).json() as { groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> };
      const versions = ['v1', ...groups.groups.filter((g) => !g.name.endsWith('openclaw.rocks') && g.name !== 'apiextensions.k8s.io').map((g) => g.preferredVersion.groupVersion)];
      const missing: string[] = [];
      let kinds = 0;
      for (const groupVersion of versions) {
        const path = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
        const list = (await emulatorRequest(cluster.emulator, path, { headers })).json() as { resources: Array<{ name: string; kind: string; group?: string; version?: string }> };
        for (const resource of list.resources) {
          const apiVersion = resource.group ? `${resource.group}/${resource.version}` : groupVersion;
          kinds++;
          if (!messageOf(apiVersion, resource.kind)) missing.push(`${apiVersion} ${resource.kind} (${resource.name})`);
        }
      }
      expect(kinds).toBeGreaterThan(20);
      expect(missing).toEqual([]);
    } finally {
      await cluster.close();
    }
  });
});
