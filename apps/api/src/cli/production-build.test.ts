import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startKubeEmulator } from '@occ/kube-emulator/server';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../env.ts';
import { dropDatabase, recreateDatabase, testDatabaseMode } from '../test/database.ts';
import { waitFor } from '../test/operations.ts';

// R1 and the production build (issue 8): `npm run build`, then scripts/stage-production (the very
// script the Containerfile runs) into a temporary folder: compiled JavaScript, the package files
// and `npm ci --omit=dev` from the npm cache. The result is started as the image starts it, with
// plain node, NODE_ENV=production, a real PostgreSQL and an API server reached through a
// kubeconfig, and must migrate, serve /readyz, answer GraphQL, serve the console and stop on SIGTERM.

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe('R1 the production build', () => {
  it.runIf(testDatabaseMode() === 'postgres')(
    'R1 the built product, staged as the Containerfile stages it (npm ci --omit=dev, offline), migrates, starts with plain node and NODE_ENV=production, answers /readyz, GraphQL and the console, and stops on SIGTERM (PostgreSQL only)',
    async () => {
      // turbo rebuilds only what changed since the last build (the Prisma schema included). The
      // Prisma client in src/generated is current (`npm test` generates it first) and is not written
      // again: other test files run beside this one and spawn processes that import it, and
      // `prisma generate` empties the folder while it writes (ERR_MODULE_NOT_FOUND in a CI run).
      const build = run('npx', ['turbo', 'run', 'build', '--filter=@occ/api', '--filter=@occ/console', '--output-logs=errors-only'], { cwd: REPO_ROOT, env: { ...process.env, OCC_PRISMA_CLIENT_CURRENT: '1' } });
      expect(await build.exited, build.output()).toBe(0);

      const dir = await mkdtemp(path.join(tmpdir(), 'occ-image-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const app = path.join(dir, 'app');
      const stage = run(path.join(REPO_ROOT, 'scripts/stage-production'), [app], { cwd: REPO_ROOT, env: process.env });
      expect(await stage.exited, stage.output()).toBe(0);

      // What an image holds: compiled JavaScript and run-time dependencies, nothing for development.
      for (const absent of ['apps/api/src', 'packages/domain/src', 'node_modules/tsx', 'node_modules/vitest', 'node_modules/next', 'node_modules/turbo', 'node_modules/@occ/e2e', 'node_modules/@playwright']) {
        expect(existsSync(path.join(app, absent)), absent).toBe(false);
      }
      for (const present of ['apps/api/dist/cli/start.js', 'apps/api/dist/generated/prisma/client.js', 'node_modules/pg', 'node_modules/@prisma/client', 'node_modules/prisma', 'apps/console/out/index.html']) {
        expect(existsSync(path.join(app, present)), present).toBe(true);
      }

      const dbName = `occ_test_image_${process.pid}`;
      const databaseUrl = await recreateDatabase(process.env.DATABASE_URL!, dbName);
      cleanups.push(() => dropDatabase(process.env.DATABASE_URL!, dbName));
      const kube = await startKubeEmulator({});
      cleanups.push(() => kube.close());
      const kubeconfig = path.join(dir, 'kubeconfig.yaml');
      await writeFile(kubeconfig, kube.kubeconfigYaml());
      const keyFile = path.join(dir, 'bootstrap-key');
      // Only what a pod would have: no TEST_DATABASE, no tsx loader, no variables of this run.
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: dir,
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        KUBECONFIG: kubeconfig,
        OCC_PORT: '0',
        OCC_DATA_DIR: path.join(dir, 'data'),
        OCC_BOOTSTRAP_KEY_FILE: keyFile,
        OCC_METRICS_PORT: '0',
      };

      // The migration step (the manifests' Job), then a replica.
      const migrate = run(process.execPath, ['apps/api/dist/cli/migrate.js'], { cwd: app, env });
      expect(await migrate.exited, migrate.output()).toBe(0);
      const replica = run(process.execPath, ['--conditions=occ-dist', 'apps/api/dist/cli/start.js'], { cwd: app, env });
      const url = await waitFor(
        async () => /GraphQL:\s+(\S+)\/graphql/.exec(replica.output())?.[1] ?? (replica.child.exitCode !== null ? Promise.reject(new Error(replica.output())) : null),
        'the built product to start',
        120_000,
      );

      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ok', kubernetes: 'ok' } });
      const key = (await readFile(keyFile, 'utf8')).trim();
      expect(replica.output()).not.toContain(key);
      const answer = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '{ viewer { id kind } }' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ data: { viewer: { id: expect.stringMatching(/^spn_/), kind: 'SERVICE' } } });
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);

      // R6: the metrics listener, on its own port.
      const metricsUrl = /Metrics:\s+(\S+)/.exec(replica.output())?.[1];
      expect(metricsUrl, replica.output()).toBeDefined();
      const metrics = await (await fetch(metricsUrl!)).text();
      expect(metrics).toMatch(/occ_http_request_duration_seconds_count\{method="POST",route="\/graphql",status="200"\} [1-9]/);

      replica.child.kill('SIGTERM');
      expect(await replica.exited, replica.output()).toBe(0);
    },
    1_500_000,
  );
});
