import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { NAMESPACE_ID_LABEL } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { startKubeEmulator, type KubeEmulator } from '@occ/kube-emulator/server';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../db/client.ts';
import { REPO_ROOT } from '../env.ts';
import { dropDatabase, recreateDatabase, testDatabaseMode } from '../test/database.ts';
import { waitFor } from '../test/operations.ts';

// R2–R4 end to end: two API processes started as `npm start` runs them (node + tsx, production
// settings), one PostgreSQL, one standalone API server. One is killed with SIGKILL in the middle
// of a namespace's provisioning; the other completes it exactly once.

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

function run(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, script)], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out, exited: new Promise((r) => child.on('exit', (code) => r(code))) };
}

describe('R2 R3 R4 two replicas', () => {
  // Two processes share one database: that needs a real server (PGlite is embedded in one process).
  it.runIf(testDatabaseMode() === 'postgres')(
    'R2 R3 R4 W1 two API processes on one PostgreSQL and one API server: the one provisioning a namespace is killed with SIGKILL, the other completes it exactly once (PostgreSQL only)',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'occ-two-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const dbName = `occ_test_two_${process.pid}`;
      const databaseUrl = await recreateDatabase(process.env.DATABASE_URL!, dbName);
      cleanups.push(() => dropDatabase(process.env.DATABASE_URL!, dbName));
      const kube: KubeEmulator = await startKubeEmulator({});
      cleanups.push(() => kube.close());
      const kubeconfig = path.join(dir, 'kubeconfig.yaml');
      await writeFile(kubeconfig, kube.kubeconfigYaml());
      const keyFile = path.join(dir, 'bootstrap-key');
      const base: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, KUBECONFIG: kubeconfig, TEST_DATABASE: '' };

      // R2: the migration step, then replicas that only check the schema.
      const migrate = run('apps/api/src/cli/migrate.ts', base);
      expect(await migrate.exited, migrate.output()).toBe(0);

      const env = (n: number): NodeJS.ProcessEnv => ({
        ...base,
        NODE_ENV: 'production',
        OCC_PORT: '0',
        OCC_DATA_DIR: path.join(dir, `replica-${n}`),
        OCC_CONSOLE_DIR: path.join(dir, 'no-console'),
        OCC_BOOTSTRAP_KEY_FILE: keyFile,
        OCC_WORK_LEASE_SECONDS: '2',
        OCC_LOG_LEVEL: 'warn',
        // Production listens for /metrics on 9464 by default; two replicas on one machine need two ports.
        OCC_METRICS_PORT: '0',
      });
      const replicas = [run('apps/api/src/cli/start.ts', env(1)), run('apps/api/src/cli/start.ts', env(2))];
      const urls = await Promise.all(
        replicas.map((r) => waitFor(async () => /GraphQL:\s+(\S+)/.exec(r.output())?.[1] ?? (r.child.exitCode !== null ? Promise.reject(new Error(r.output())) : null), 'a replica to start', 90_000)),
      );
      // R3: one bootstrap, its key in the file and on no replica's output.
      const key = (await readFile(keyFile, 'utf8')).trim();
      for (const r of replicas) expect(r.output()).not.toContain(key);

      const gql = async (url: string, query: string, variables: Record<string, unknown> = {}) => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
        return (await res.json()) as { data?: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
      };

      // Provisioning is slow enough to be caught in the middle: the first namespace create waits.
      kube.faults.add({ verb: 'create', path: '/api/v1/namespaces', times: 1, action: { type: 'delay', ms: 5_000 } });
      const created = await gql(urls[0]!, `mutation { createNamespace(input: { name: "two-replicas" }) { ... on CreateNamespaceSuccess { namespace { id } } } }`);
      const namespaceId: string = created.data!.createNamespace.namespace.id;

      const db = createDb(databaseUrl, { poolSize: 2 });
      cleanups.push(() => db.$disconnect());
      const running = await waitFor(
        async () => (await db.workItem.findFirst({ where: { idempotencyKey: `namespace.provision:${namespaceId}`, state: 'RUNNING' } })),
        'a replica to claim the provisioning',
      );
      const pid = Number(/-(\d+)-[0-9a-f]{8}(?:\/\d+)?$/.exec(running.leaseOwner!)![1]);
      const victim = replicas.findIndex((r) => r.child.pid === pid);
      expect(victim).toBeGreaterThanOrEqual(0);
      replicas[victim]!.child.kill('SIGKILL');
      await replicas[victim]!.exited;
      const survivor = urls[1 - victim]!;

      const ready = await waitFor(
        async () => {
          const ns = (await gql(survivor, `query($id: ID!) { namespace(id: $id) { status } }`, { id: namespaceId })).data?.namespace;
          return ns?.status === 'READY' ? ns : null;
        },
        'the survivor to complete the provisioning',
        90_000,
      );
      expect(ready.status).toBe('READY');
      const k8s = await kube.kubeConfig().makeApiClient(CoreV1Api).listNamespace({ labelSelector: `${NAMESPACE_ID_LABEL}=${uuidOf(namespaceId)}` });
      expect(k8s.items).toHaveLength(1);
      const events = await db.auditEvent.findMany({ where: { action: 'namespace.provision', resourceId: namespaceId } });
      expect(events.map((e) => e.outcome)).toEqual(['SUCCESS']);
      const item = await db.workItem.findFirstOrThrow({ where: { idempotencyKey: `namespace.provision:${namespaceId}` } });
      expect(item.state).toBe('SUCCEEDED');
      expect(item.attempts).toBeGreaterThanOrEqual(2);
      expect(item.leaseOwner).toBeNull();
      expect(await db.installation.count()).toBe(1);
      expect(await db.apiKey.count()).toBe(1);
    },
    240_000,
  );
});
