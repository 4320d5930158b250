import { Watch } from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
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

  it('E1 a write is on disk without waiting for close: a server killed with SIGKILL right after it restarts with every write, and the data file was not rewritten per write', async () => {
    const stateDir = join(dir, 'killed');
    const dataFile = join(stateDir, 'objects.json');
    const kubeconfig = join(dir, 'killed.kubeconfig');
    const cli = join(dirname(new URL(import.meta.url).pathname), 'cli.ts');
    const start = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--data-file', dataFile, '--kubeconfig', kubeconfig, '--token', 'kill-test'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 40_000;
      while (!output.includes('listening on') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 25));
      expect(output).toContain('listening on');
      const config = new KubeConfig();
      config.loadFromString(await readFile(kubeconfig, 'utf8'));
      return { child, core: config.makeApiClient(CoreV1Api) };
    };
    const first = await start();
    const kill = async (child: typeof first.child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    };
    let lastVersion = '';
    try {
      const snapshotBefore = await stat(dataFile).then((s) => s.mtimeMs, () => null);
      for (let i = 0; i < 50; i++) {
        const made = await first.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } } });
        lastVersion = made.metadata!.resourceVersion!;
      }
      await first.core.deleteNamespacedConfigMap({ name: 'cm-7', namespace: 'default' });
      // The records reach the log in the turn after the answers; give the appends a moment, then kill.
      await new Promise((r) => setTimeout(r, 200));
      expect(await stat(dataFile).then((s) => s.mtimeMs, () => null)).toBe(snapshotBefore);
      expect((await readdir(stateDir)).filter((n) => n.startsWith('objects.json.wal-')).length).toBeGreaterThan(0);
    } finally {
      await kill(first.child);
    }
    const second = await start();
    try {
      const names = (await second.core.listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata!.name!);
      expect(names.filter((n) => n.startsWith('cm-')).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `cm-${i}`).filter((n) => n !== 'cm-7').sort());
      const next = await second.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after' } } });
      expect(Number(next.metadata!.resourceVersion)).toBeGreaterThan(Number(lastVersion));
    } finally {
      await kill(second.child);
    }
  }, 120_000);
});
