// Embedded cluster bench, run by `npm run bench` (the API workspace runs every bench/api/*.bench.ts).
//
// Budget (the only reason this file exits non-zero besides a failure): a GraphQL page's p95 while
// another process writes to the embedded cluster as fast as it answers is within 1.5× its p95 with
// the cluster quiet, in the same run.
//
// The product as `npm start` runs it: the embedded API server with its data files in the data folder
// (persistence on), filled before the start with OCC_BENCH_CLUSTER_OBJECTS (20,000) ConfigMaps, and
// the runtime in this process; PostgreSQL (a scratch database beside DATABASE_URL's) in place of
// PGlite, so the database's own cost does not share the event loop. A namespace viewer reads one
// namespace's secrets page (50 secrets), one request every 20 ms, in alternating windows of
// OCC_BENCH_CLUSTER_SECONDS (8): quiet; during a burst (cluster-writer.ts in another process:
// server-side applies of ConfigMaps, 4 in flight, through the kubeconfig `npm start` writes); and
// the 2 s right after the burst (when the earlier persistence rewrote the whole store). Prints
// p50/p95 per window, the ratios to quiet, and the writes answered per second.
//
// Alone: cd apps/api && DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres
//   ../../scripts/node-env node --import tsx ../../bench/api/embedded-cluster.bench.ts

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { createHttpApp, listen } from '../../apps/api/src/http/server.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { fillNamespace } from '../../apps/api/src/seed/fill.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../../apps/api/src/services/principals.ts';
import { filledDataFile } from '../cluster-fill.ts';
import { percentile, scratchDatabase, sleep, table } from './kube-support.ts';

const OBJECTS = Number(process.env.OCC_BENCH_CLUSTER_OBJECTS ?? 20_000);
const SECONDS = Number(process.env.OCC_BENCH_CLUSTER_SECONDS ?? 8);
const PAIRS = Number(process.env.OCC_BENCH_CLUSTER_PAIRS ?? 3);
const IN_FLIGHT = 4;
const PACE_MS = 20;
const BUDGET = 1.5;
const PAGE = 'query($ns: ID!) { namespace(id: $ns) { secrets(first: 50) { edges { node { id name version } } } } }';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  process.stderr.write('embedded cluster bench: set DATABASE_URL to a PostgreSQL server (it creates and drops its own database); skipped.\n');
  process.exit(0);
}

/** The data file `npm start`'s embedded cluster would have after OBJECTS ConfigMaps were written, in 50 namespaces. */
async function fillDataFile(file: string): Promise<void> {
  const text = filledDataFile(OBJECTS, 'filler-', (i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: `filler-${i % 50}`, labels: { 'app.kubernetes.io/managed-by': 'occ' } },
    data: { 'openclaw.json': JSON.stringify({ agent: `cm-${i}`, model: 'gpt', skills: ['search', 'browse'] }) },
  }));
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, text, { mode: 0o600 });
}

async function post(url: string, key: string, variables: Record<string, unknown>): Promise<number> {
  const began = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query: PAGE, variables }) });
  const body = (await res.json()) as { errors?: unknown[]; data?: { namespace?: { secrets?: { edges?: unknown[] } } } };
  if (res.status !== 200 || body.errors || body.data?.namespace?.secrets?.edges?.length !== 50) throw new Error(`the page was answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - began;
}

async function sample(url: string, key: string, variables: Record<string, unknown>, until: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  while (!until()) {
    const began = performance.now();
    samples.push(await post(url, key, variables));
    await sleep(Math.max(0, PACE_MS - (performance.now() - began)));
  }
  return samples;
}

const database = await scratchDatabase(serverUrl, 'occ_bench_cluster');
const dataDir = await mkdtemp(path.join(tmpdir(), 'occ-bench-cluster-'));
await fillDataFile(path.join(dataDir, 'kube', 'objects.json'));
const logger = createLogger(() => {}, 'error');
const startedAt = performance.now();
const runtime = await startRuntime({ env: { dataDir, databaseUrl: database.url, kubeconfig: null }, logger, migrate: migrateDatabase });
process.stderr.write(`runtime started on a cluster of ${OBJECTS} ConfigMaps in ${((performance.now() - startedAt) / 1000).toFixed(1)} s\n`);
const app = createHttpApp({ deps: runtime.deps, production: false, consoleDir: '/nonexistent', requestBudget: null });
const server = await listen(app, '127.0.0.1', 0);
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
let overBudget = false;
try {
  const boot = runtime.installation.bootstrapPrincipalId;
  const actor: Actor = { principalId: boot, kind: 'SERVICE', name: 'bench', apiKeyId: 'bench' };
  const filled = await fillNamespace(runtime.deps, actor, { namespace: 'bench-page', secrets: 50, configurations: 0, agents: 0, audit: 0 }, { parallel: 8 });
  const reader = await createHumanPrincipal(runtime.db, 'bench-reader', boot);
  await grantBuiltInRole(runtime.db, reader.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: filled.namespaceId }, boot);
  const variables = { ns: filled.namespaceId };
  for (let i = 0; i < 20; i++) await post(url, reader.apiKey, variables); // warm

  const writer = fileURLToPath(new URL('./cluster-writer.ts', import.meta.url));
  const kubeconfig = path.join(dataDir, 'kubeconfig.yaml');
  const windows = { quiet: [] as number[], burst: [] as number[], after: [] as number[] };
  let written = 0;
  let burstSeconds = 0;
  for (let pair = 0; pair < PAIRS; pair++) {
    const quietUntil = performance.now() + SECONDS * 1000;
    windows.quiet.push(...(await sample(url, reader.apiKey, variables, () => performance.now() > quietUntil)));
    const child = spawn(process.execPath, ['--import', 'tsx', writer, kubeconfig, 'default', String(SECONDS + 1), String(IN_FLIGHT)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    // The writer needs about a second to load; the burst window is its last SECONDS.
    await sleep(1000);
    const burstStart = performance.now();
    windows.burst.push(...(await sample(url, reader.apiKey, variables, () => done)));
    burstSeconds += (performance.now() - burstStart) / 1000;
    if ((await exited) !== 0) throw new Error('the cluster writer failed');
    written += Number(output.trim());
    const afterUntil = performance.now() + 2000;
    windows.after.push(...(await sample(url, reader.apiKey, variables, () => performance.now() > afterUntil)));
  }
  const p = (xs: number[], q: number) => percentile(xs, q);
  const quiet95 = p(windows.quiet, 95);
  const rows = (Object.entries(windows) as [keyof typeof windows, number[]][]).map(([name, xs]) => [
    name,
    String(xs.length),
    `${p(xs, 50).toFixed(1)} ms`,
    `${p(xs, 95).toFixed(1)} ms`,
    `${(p(xs, 95) / quiet95).toFixed(2)}×`,
  ]);
  process.stdout.write(
    table(
      `A namespace viewer's secrets page (50 rows) every ${PACE_MS} ms, ${PAIRS} × ${SECONDS} s windows; cluster of ${OBJECTS} ConfigMaps with its data files`,
      ['window', 'requests', 'p50', 'p95', 'p95 / quiet'],
      rows,
    ),
  );
  process.stdout.write(`burst: ${written} applies answered, ${(written / burstSeconds).toFixed(0)}/s, ${IN_FLIGHT} in flight from another process\n`);
  const ratio = p(windows.burst, 95) / quiet95;
  overBudget = ratio > BUDGET;
  process.stdout.write(`budget: page p95 during the burst ≤ ${BUDGET}× quiet: ${overBudget ? 'OVER' : 'ok'} (${ratio.toFixed(2)}×)\n`);
} finally {
  server.close();
  await runtime.close();
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
}
if (overBudget) process.exitCode = 1;
