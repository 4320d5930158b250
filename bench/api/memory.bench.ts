// Memory bench, run by `npm run bench` (the API workspace runs every bench/api/*.bench.ts).
//
// Budget (the only reason this file exits non-zero besides a failure): the resident memory of
// `npm start` on the embedded defaults, idle after a reader has walked every list, is at most 2× on
// a filled installation what it is on an empty one; medians of starts alternating in one run.
//
// Two data folders, each made by a first `npm start` exactly as the README gives it (DATABASE_URL and
// KUBECONFIG removed, so PGlite and the embedded API server): one left empty, one filled by
// `npm run seed` (OCC_BENCH_MEMORY_SECRETS 2,000 secrets, each a Kubernetes Secret;
// OCC_BENCH_MEMORY_AGENTS 500 agents, each with its principal and grants; 50 configurations;
// OCC_BENCH_MEMORY_AUDIT 200,000 audit events). Then OCC_BENCH_MEMORY_ROUNDS (2) rounds, each
// starting the product on one folder and then the other: RSS once running and idle; then, with
// the bootstrap key, every page (100 a page) of the namespaces, each namespace's secrets,
// configurations and agents, and OCC_BENCH_MEMORY_AUDIT_PAGES (200) pages of audit events; RSS
// again after 10 s idle. The process measured is the Node process that state.json names (PGlite
// and the embedded cluster run on its threads, so its RSS holds all three). With DATABASE_URL set,
// the same again on PostgreSQL (two scratch databases beside it, dropped after; the cluster still
// embedded): the product's own memory without PGlite's.
//
// Alone: cd apps/api && ../../scripts/node-env node --expose-gc --import tsx ../../bench/api/memory.bench.ts

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../apps/api/src/env.ts';
import { median, scratchDatabase, sleep, table } from './kube-support.ts';

const SECRETS = Number(process.env.OCC_BENCH_MEMORY_SECRETS ?? 2_000);
const AGENTS = Number(process.env.OCC_BENCH_MEMORY_AGENTS ?? 500);
const AUDIT = Number(process.env.OCC_BENCH_MEMORY_AUDIT ?? 200_000);
const AUDIT_PAGES = Number(process.env.OCC_BENCH_MEMORY_AUDIT_PAGES ?? 200);
const ROUNDS = Number(process.env.OCC_BENCH_MEMORY_ROUNDS ?? 2);
const IDLE_MS = 10_000;
const BUDGET = 2;

const begun = Date.now();
const progress = (what: string) => process.stderr.write(`memory bench: ${what} (${((Date.now() - begun) / 1000).toFixed(0)} s)\n`);

interface Started {
  child: ChildProcess;
  output: () => string;
}

const { DATABASE_URL: _db, KUBECONFIG: _kube, ...inherited } = process.env;
const envFor = (i: { dataDir: string; databaseUrl: string | null }) => ({ ...inherited, OCC_DATA_DIR: i.dataDir, OCC_PORT: '0', NODE_ENV: 'development', ...(i.databaseUrl ? { DATABASE_URL: i.databaseUrl } : {}) });

/** `npm start` in a process group of its own, until it prints that it is running. */
async function start(i: { dataDir: string; databaseUrl: string | null }): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: REPO_ROOT, env: envFor(i), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  for (const deadline = Date.now() + 180_000; !/is running/.test(output); await sleep(20)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output.slice(-3000)}`);
  }
  return { child, output: () => output };
}

async function stop(s: Started): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  process.kill(-s.child.pid!, 'SIGINT');
  await exited;
}

async function rssMb(dataDir: string): Promise<number> {
  const state = JSON.parse(await readFile(path.join(dataDir, 'state.json'), 'utf8')) as { pid: number };
  const status = await readFile(`/proc/${state.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** One GraphQL request; a 429 waits as long as Retry-After says, then asks again. */
async function gql(base: string, key: string, query: string, variables: Record<string, unknown>): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  for (;;) {
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
    if (res.status === 429) {
      await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
      continue;
    }
    const body = (await res.json()) as { data?: unknown; errors?: unknown[] };
    if (body.errors?.length) throw new Error(`GraphQL: ${JSON.stringify(body.errors).slice(0, 500)}`);
    return body.data;
  }
}

/** Walks a connection page by page (100 a page), at most `pages`; returns how many nodes it read. */
async function walk(base: string, key: string, query: string, variables: Record<string, unknown>, connection: (d: any) => any, pages = Infinity): Promise<number> { // eslint-disable-line @typescript-eslint/no-explicit-any
  let after: string | null = null;
  let read = 0;
  for (let page = 0; page < pages; page++) {
    const c = connection(await gql(base, key, query, { ...variables, first: 100, after }));
    read += c.edges.length;
    if (!c.pageInfo.hasNextPage) break;
    after = c.pageInfo.endCursor;
  }
  return read;
}

/** What a reader of everything reads: every list, page by page. */
async function readEverything(base: string, key: string): Promise<number> {
  const pageInfo = 'pageInfo { hasNextPage endCursor }';
  let read = 0;
  const namespaces: string[] = [];
  let after: string | null = null;
  for (;;) {
    const d = await gql(base, key, `query($after: String) { namespaces(first: 100, after: $after) { edges { node { id } } ${pageInfo} } }`, { after });
    namespaces.push(...d.namespaces.edges.map((e: { node: { id: string } }) => e.node.id));
    if (!d.namespaces.pageInfo.hasNextPage) break;
    after = d.namespaces.pageInfo.endCursor;
  }
  for (const ns of namespaces) {
    read += await walk(base, key, `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { secrets(first: $first, after: $after) { edges { node { id name version updatedAt } } ${pageInfo} } } }`, { ns }, (d) => d.namespace.secrets);
    read += await walk(base, key, `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { configurations(first: $first, after: $after) { edges { node { id name generation } } ${pageInfo} } } }`, { ns }, (d) => d.namespace.configurations);
    read += await walk(base, key, `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { agents(first: $first, after: $after) { edges { node { id name configuration { id name } } } ${pageInfo} } } }`, { ns }, (d) => d.namespace.agents);
  }
  read += await walk(base, key, `query($first: Int, $after: String) { auditEvents(first: $first, after: $after) { edges { node { id at action outcome } } ${pageInfo} } }`, {}, (d) => d.auditEvents, AUDIT_PAGES);
  return read;
}

const dir = await mkdtemp(path.join(tmpdir(), 'occ-bench-memory-'));
const databases = process.env.DATABASE_URL ? { empty: await scratchDatabase(process.env.DATABASE_URL, 'memory_empty'), filled: await scratchDatabase(process.env.DATABASE_URL, 'memory_filled') } : null;
interface Installation {
  label: string;
  dataDir: string;
  databaseUrl: string | null;
  key: string;
  running: number[];
  read: number[];
  nodes: number;
}
const installations: Installation[] = [];
for (const store of databases ? ['PGlite', 'PostgreSQL'] : ['PGlite']) {
  for (const fill of ['empty', 'filled'] as const) {
    installations.push({ label: `${store}, ${fill}`, dataDir: path.join(dir, `${store}-${fill}`), databaseUrl: store === 'PostgreSQL' ? databases![fill].url : null, key: '', running: [], read: [], nodes: 0 });
  }
}
let overBudget = false;
try {
  for (const i of installations) {
    const first = await start(i);
    i.key = /Bootstrap API key \(shown once\): (\S+)/.exec(first.output())?.[1] ?? '';
    if (!i.key) throw new Error(`no bootstrap key in the first start's output:\n${first.output().slice(-2000)}`);
    await stop(first);
    if (!i.label.endsWith('filled')) continue;
    const seed = spawn('npm', ['run', 'seed', '--', '--secrets', String(SECRETS), '--agents', String(AGENTS), '--audit', String(AUDIT), '--parallel', '8'], { cwd: REPO_ROOT, env: envFor(i), stdio: ['ignore', 'pipe', 'inherit'] });
    let seeded = '';
    seed.stdout!.on('data', (d: Buffer) => (seeded += d.toString()));
    const code = await new Promise<number | null>((resolve) => seed.once('exit', resolve));
    if (code !== 0) throw new Error(`npm run seed exited ${code}: ${seeded}`);
    progress(`${i.label}: ${seeded.trim()}`);
  }
  progress('installations made');

  for (let round = 0; round < ROUNDS; round++) {
    for (const i of installations) {
      const s = await start(i);
      try {
        await sleep(IDLE_MS);
        i.running.push(await rssMb(i.dataDir));
        const base = /GraphQL:\s+(http:\/\/\S+)\/graphql/.exec(s.output())?.[1];
        if (!base) throw new Error('no GraphQL address in the output');
        i.nodes = await readEverything(base, i.key);
        await sleep(IDLE_MS);
        i.read.push(await rssMb(i.dataDir));
      } finally {
        await stop(s);
      }
      progress(`round ${round + 1}, ${i.label}: ${i.running.at(-1)!.toFixed(0)} MB running, ${i.read.at(-1)!.toFixed(0)} MB after reading ${i.nodes} nodes`);
    }
  }
  const mb = (xs: number[]) => `${median(xs).toFixed(0)} MB`;
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (let k = 0; k < installations.length; k += 2) {
    const [empty, filled] = [installations[k]!, installations[k + 1]!];
    const ratio = median(filled.read) / median(empty.read);
    rows.push(
      [empty.label, mb(empty.running), mb(empty.read), String(empty.nodes)],
      [filled.label, mb(filled.running), mb(filled.read), String(filled.nodes)],
      ['filled / empty', `${(median(filled.running) / median(empty.running)).toFixed(2)}×`, `${ratio.toFixed(2)}×`, ''],
    );
    verdicts.push(`${filled.label.split(',')[0]} ${ratio.toFixed(2)}`);
    if (ratio > BUDGET) overBudget = true;
  }
  process.stdout.write(
    table(
      `Resident memory of npm start (the embedded cluster), idle, ${ROUNDS} starts of each alternating (${new Date().toISOString()}); filled: ${SECRETS} secrets, ${AGENTS} agents, ${AUDIT} audit events`,
      ['installation', 'once running (p50)', 'after reading every list (p50)', 'nodes read'],
      rows,
    ),
  );
  process.stdout.write(`Budget: filled / empty after reading ≤ ${BUDGET}: ${verdicts.join(', ')}: ${overBudget ? 'OVER BUDGET' : 'within budget'}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
  await databases?.empty.drop();
  await databases?.filled.drop();
}
process.exit(overBudget ? 1 : 0);
