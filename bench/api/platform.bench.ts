// Platform bench, run by `npm run bench` (the API workspace runs every
// bench/api/*.bench.ts). Side by side in one run, alternating, so machine load hits both alike:
//
// 1. Start: the built product (`node --conditions=occ-dist apps/api/dist/cli/start.js`, what the
//    image runs) against the development start (`node --import tsx apps/api/src/cli/start.ts`):
//    time from spawn to serving, and resident memory once serving.
// 2. A GraphQL request through the whole HTTP stack of the built product (security headers, request
//    id, authentication, limits, error policy, metrics, access log) against a bare graphql-yoga
//    server answering the same document from a constant: p50 and p95, sequential requests.
//
// Both products run with NODE_ENV=production against the local PostgreSQL (DATABASE_URL, a
// database of its own, migrated here) and an embedded API server in this process. It needs
// `npm run build` first and asserts nothing: it prints ratios.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSchema, createYoga } from 'graphql-yoga';
import pg from 'pg';
import { startKubeEmulator } from '../../packages/kube-emulator/src/server.ts';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { REPO_ROOT } from '../../apps/api/src/env.ts';

const STARTS = Number(process.env.OCC_BENCH_STARTS ?? 3);
const REQUESTS = Number(process.env.OCC_BENCH_REQUESTS ?? 400);
const QUERY = '{ viewer { id name } }';

if (!existsSync(path.join(REPO_ROOT, 'apps/api/dist/cli/start.js'))) {
  console.error('platform bench: run `npm run build` first (it measures the built product)');
  process.exit(1);
}
const server = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const dbName = `occ_bench_platform_${process.pid}`;
const admin = new pg.Client({ connectionString: server });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(server);
url.pathname = `/${dbName}`;
const databaseUrl = url.toString();
await migrateDatabase(databaseUrl);

const dir = await mkdtemp(path.join(tmpdir(), 'occ-bench-platform-'));
const kube = await startKubeEmulator({});
const kubeconfig = path.join(dir, 'kubeconfig.yaml');
await writeFile(kubeconfig, kube.kubeconfigYaml());
const keyFile = path.join(dir, 'bootstrap-key');
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  base: string;
  ms: number;
  rssMb: number;
}

async function start(kind: 'built' | 'tsx', n: number): Promise<Started> {
  const args = kind === 'built' ? ['--conditions=occ-dist', 'apps/api/dist/cli/start.js'] : ['--import', 'tsx', 'apps/api/src/cli/start.ts'];
  const began = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      KUBECONFIG: kubeconfig,
      OCC_PORT: '0',
      OCC_METRICS_PORT: 'off',
      OCC_LOG_LEVEL: 'warn',
      OCC_DATA_DIR: path.join(dir, `${kind}-${n}`),
      OCC_BOOTSTRAP_KEY_FILE: keyFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    const check = setInterval(() => {
      const match = /GraphQL:\s+(\S+)\/graphql/.exec(output);
      if (match) {
        clearInterval(check);
        resolve(match[1]!);
      } else if (child.exitCode !== null) {
        clearInterval(check);
        reject(new Error(`${kind} exited:\n${output}`));
      }
    }, 5);
  });
  const ms = performance.now() - began;
  await new Promise((r) => setTimeout(r, 500));
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  return { child, base, ms, rssMb };
}

async function stop(s: Started): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

try {
  // 1. Start time and memory, alternating.
  const runs: Record<'built' | 'tsx', { ms: number[]; rss: number[] }> = { built: { ms: [], rss: [] }, tsx: { ms: [], rss: [] } };
  let built: Started | null = null;
  for (let i = 0; i < STARTS; i++) {
    for (const kind of ['built', 'tsx'] as const) {
      const s = await start(kind, i);
      runs[kind].ms.push(s.ms);
      runs[kind].rss.push(s.rssMb);
      if (kind === 'built' && i === STARTS - 1) built = s;
      else await stop(s);
    }
  }
  console.log(`start (median of ${STARTS}, spawn to serving): built ${median(runs.built.ms).toFixed(0)} ms, tsx ${median(runs.tsx.ms).toFixed(0)} ms, built/tsx ${(median(runs.built.ms) / median(runs.tsx.ms)).toFixed(2)}`);
  console.log(`RSS once serving (median): built ${median(runs.built.rss).toFixed(0)} MB, tsx ${median(runs.tsx.rss).toFixed(0)} MB, built/tsx ${(median(runs.built.rss) / median(runs.tsx.rss)).toFixed(2)}`);

  // 2. One GraphQL request: the full stack of the built product against a bare yoga server.
  const key = (await readFile(keyFile, 'utf8')).trim();
  const bare = createYoga({
    schema: createSchema({
      typeDefs: 'type Principal { id: ID! name: String! } type Query { viewer: Principal }',
      resolvers: { Query: { viewer: () => ({ id: 'spn_bench', name: 'bootstrap' }) } },
    }),
    logging: false,
    graphiql: false,
  });
  const bareServer = createServer(bare);
  await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', () => r()));
  const bareBase = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;
  const request = async (base: string) => {
    const began = performance.now();
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: QUERY }),
    });
    const body = (await res.json()) as { data?: { viewer?: { id: string } } };
    if (!body.data?.viewer?.id) throw new Error(`no viewer from ${base}: ${JSON.stringify(body)}`);
    return performance.now() - began;
  };
  for (let i = 0; i < 50; i++) {
    await request(built!.base);
    await request(bareBase);
  }
  const times = { full: [] as number[], bare: [] as number[] };
  for (let i = 0; i < REQUESTS; i += 20) {
    for (let j = 0; j < 20; j++) times.full.push(await request(built!.base));
    for (let j = 0; j < 20; j++) times.bare.push(await request(bareBase));
  }
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(2);
  console.log(`GraphQL ${QUERY}, ${times.full.length} sequential requests each:`);
  console.log(`  full stack (built product): p50 ${p(times.full, 0.5)} ms, p95 ${p(times.full, 0.95)} ms`);
  console.log(`  bare graphql-yoga:          p50 ${p(times.bare, 0.5)} ms, p95 ${p(times.bare, 0.95)} ms`);
  console.log(`  full/bare: p50 ${(percentile(times.full, 0.5) / percentile(times.bare, 0.5)).toFixed(2)}, p95 ${(percentile(times.full, 0.95) / percentile(times.bare, 0.95)).toFixed(2)}`);
  bareServer.close();
  await stop(built!);
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await kube.close();
  await rm(dir, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
