import { Watch } from '@kubernetes/client-node';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, b64, startTestCluster } from './testing.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-emulator-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CRD = {
  metadata: { name: 'instances.openclaw.rocks' },
  spec: {
    group: 'openclaw.rocks',
    scope: 'Namespaced',
    names: { plural: 'instances', singular: 'instance', kind: 'OpenClawInstance', listKind: 'OpenClawInstanceList' },
    versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } } }],
  },
};

describe('data file', () => {
  it('E1 objects, custom resources and the resourceVersion counter survive a close and restart', async () => {
    const dataFile = join(dir, 'state', 'kube.json');
    const first = await startTestCluster({ dataFile, token: 'fixed-token' });
    await first.core.createNamespace({ body: { metadata: { name: 'keep' } } });
    const secret = await first.core.createNamespacedSecret({ namespace: 'keep', body: { metadata: { name: 's' }, stringData: { value: 'v' } } });
    await first.extensions.createCustomResourceDefinition({ body: CRD });
    const instance = (await first.custom.createNamespacedCustomObject({
      group: 'openclaw.rocks',
      version: 'v1alpha1',
      namespace: 'keep',
      plural: 'instances',
      body: { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'agent' }, spec: { skills: ['a'] } },
    })) as Obj;
    const lastVersion = Number(instance.metadata.resourceVersion);
    await first.close();

    const onDisk = JSON.parse(await readFile(dataFile, 'utf8')) as Obj;
    expect(onDisk.resourceVersion).toBe(String(lastVersion));

    const second = await startTestCluster({ dataFile, token: 'fixed-token' });
    try {
      const again = await second.core.readNamespacedSecret({ name: 's', namespace: 'keep' });
      expect(again.metadata?.uid).toBe(secret.metadata?.uid);
      expect(again.metadata?.resourceVersion).toBe(secret.metadata?.resourceVersion);
      expect(again.data).toEqual({ value: b64('v') });
      const reread = (await second.custom.getNamespacedCustomObject({
        group: 'openclaw.rocks',
        version: 'v1alpha1',
        namespace: 'keep',
        plural: 'instances',
        name: 'agent',
      })) as Obj;
      expect(reread.spec).toEqual({ skills: ['a'] });

      const next = await second.core.createNamespacedConfigMap({ namespace: 'keep', body: { metadata: { name: 'later' } } });
      expect(Number(next.metadata?.resourceVersion)).toBeGreaterThan(lastVersion);

      // The event history does not survive a restart: a watch from before it has expired.
      const seen: Obj[] = [];
      let ended = false;
      await new Watch(second.kubeConfig).watch(
        '/api/v1/namespaces/keep/secrets',
        { resourceVersion: secret.metadata!.resourceVersion! },
        (type: string, object: Obj) => seen.push({ type, object }),
        () => {
          ended = true;
        },
      );
      const deadline = Date.now() + 3000;
      while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    } finally {
      await second.close();
    }
  });

  it('E1 writes the data file shortly after a change, without waiting for close', async () => {
    const dataFile = join(dir, 'debounced.json');
    const cluster = await startTestCluster({ dataFile });
    try {
      await cluster.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'soon' } } });
      const deadline = Date.now() + 2000;
      let names: string[] = [];
      while (Date.now() < deadline) {
        try {
          const data = JSON.parse(await readFile(dataFile, 'utf8')) as Obj;
          names = ((data.collections.secrets ?? []) as Obj[]).map((s) => s.metadata.name);
          if (names.includes('soon')) break;
        } catch {
          // not written yet
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(names).toContain('soon');
    } finally {
      await cluster.close();
    }
  });

  it('E1 without a data file nothing survives a restart', async () => {
    const first = await startTestCluster();
    await first.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'ephemeral' } } });
    await first.close();
    const second = await startTestCluster();
    try {
      expect((await apiFailure(second.core.readNamespacedSecret({ name: 'ephemeral', namespace: 'default' }))).code).toBe(404);
    } finally {
      await second.close();
    }
  });
});
