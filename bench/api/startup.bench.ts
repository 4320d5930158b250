// Start-up bench, run by `npm run bench` (the API workspace runs every bench/api/*.bench.ts).
//
// Budget (the only reason this file exits non-zero besides a failure): a second `npm start` on the
// embedded defaults, from spawn until it prints that it is running, takes at most 3× the floor,
// medians of runs alternating in one run (the machine is shared; absolute times drift).
//
// - The product: `npm start` exactly as the README gives it (npm, scripts/node-env, db-generate's
//   check, scripts/start.ts: the console's and the bundle's checks, then the product from its
//   bundle: PGlite, the embedded API server on its thread, the webhook, migrations checked, the
//   installation, the worker, the leader, the HTTP listener), in a data folder made by a first start (timed apart: initdb, the migrations, the
//   installation's first objects). DATABASE_URL and KUBECONFIG are removed from its environment, so
//   it runs on its embedded defaults as a new user's would. Stopped with SIGINT after each start.
// - The floor (startup-bare.mjs): plain Node opening PGlite on the same data folder, serving it on
//   a Unix socket as the product does, and an HTTP server listening.
//
// Prints each side's median and spread, the ratio, the product's steps (from its log lines' times,
// since spawn) and its resident memory once running (the Node process named in state.json).
// Alone: cd apps/api && ../../scripts/node-env node --expose-gc --import tsx ../../bench/api/startup.bench.ts

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../apps/api/src/env.ts';
import { median, table } from './kube-support.ts';

const STARTS = Number(process.env.OCC_BENCH_STARTUP_RUNS ?? 5);
const BUDGET = 3;
const BARE = fileURLToPath(new URL('./startup-bare.mjs', import.meta.url));

interface Run {
  ms: number;
  output: string;
  child: ChildProcess;
  began: number;
}

/** Spawns in a process group of its own (npm's children included) and waits for `ready` in its output. */
async function run(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Run> {
  const began = Date.now();
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (ready.test(output)) {
        clearInterval(check);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(check);
        reject(new Error(`${command} ${args.join(' ')} exited ${child.exitCode} before it was ready:\n${output.slice(-3000)}`));
      }
    }, 5);
  });
  return { ms: performance.now() - t0, output, child, began };
}

/** SIGINT to the whole group (as Ctrl-C would), then waits for it to exit: npm may exit before the product it ran has closed PGlite, so `pid` (the product's) is waited for too. */
async function stop(r: Run, pid?: number): Promise<void> {
  if (r.child.exitCode === null) {
    const exited = new Promise((resolve) => r.child.once('exit', resolve));
    process.kill(-r.child.pid!, 'SIGINT');
    await exited;
  }
  while (pid !== undefined && alive(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const dir = await mkdtemp(path.join(tmpdir(), 'occ-bench-startup-'));
const dataDir = path.join(dir, 'data');
// eslint-disable-next-line no-restricted-properties -- the product is started as a user would, in this environment less the external stores
const { DATABASE_URL: _db, KUBECONFIG: _kube, ...inherited } = process.env;
const productEnv = { ...inherited, OCC_DATA_DIR: dataDir, OCC_PORT: '0', NODE_ENV: 'development' };
const product = () => run('npm', ['start'], productEnv, /is running/);
const bare = () => run(process.execPath, [BARE, path.join(dataDir, 'pglite'), dir], inherited, /^listening$/m);

/** The product's log lines (JSON on stderr) as steps: milliseconds since spawn and the message. */
function steps(r: Run): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const line of r.output.split('\n')) {
    const at = line.indexOf('{"level"');
    if (at < 0) continue;
    try {
      const entry = JSON.parse(line.slice(at)) as { time?: string; msg?: string };
      if (entry.time && entry.msg) out.push([entry.msg, Date.parse(entry.time) - r.began]);
    } catch {
      // a line that is not one JSON object (npm's and turbo's own output)
    }
  }
  return out;
}

async function productPid(): Promise<number> {
  return (JSON.parse(await readFile(path.join(dataDir, 'state.json'), 'utf8')) as { pid: number }).pid;
}

async function rssMb(): Promise<number> {
  const status = await readFile(`/proc/${await productPid()}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

let overBudget = false;
try {
  const first = await product();
  process.stdout.write(`first start (initdb, migrations, the installation): ${(first.ms / 1000).toFixed(2)} s\n`);
  await stop(first, await productPid());

  const times = { product: [] as number[], bare: [] as number[] };
  const rss: number[] = [];
  const productSteps = new Map<string, number[]>();
  for (let i = 0; i < STARTS; i++) {
    const p = await product();
    times.product.push(p.ms);
    rss.push(await rssMb());
    for (const [msg, ms] of steps(p)) productSteps.set(msg, [...(productSteps.get(msg) ?? []), ms]);
    await stop(p, await productPid());
    const b = await bare();
    times.bare.push(b.ms);
    await stop(b);
  }
  const ratio = median(times.product) / median(times.bare);
  const s = (xs: number[]) => (median(xs) / 1000).toFixed(2);
  const spread = (xs: number[]) => `${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)}`;
  process.stdout.write(
    table(`Second start, spawn to serving, ${STARTS} each alternating (${new Date().toISOString()})`, ['start', 'median s', 'range s'], [
      ['npm start (embedded defaults)', s(times.product), spread(times.product)],
      ['bare PGlite + socket + listen', s(times.bare), spread(times.bare)],
    ]),
  );
  process.stdout.write(
    table(
      'npm start, its log lines (median ms since spawn)',
      ['step', 'ms'],
      [...productSteps].filter(([, ms]) => ms.length === STARTS).map(([msg, ms]) => [msg, median(ms).toFixed(0)]),
    ),
  );
  process.stdout.write(`\nResident memory once running (the product's Node process, median): ${median(rss).toFixed(0)} MB\n`);
  overBudget = ratio > BUDGET;
  process.stdout.write(`Budget: npm start / bare ≤ ${BUDGET}: ${ratio.toFixed(2)}: ${overBudget ? 'OVER BUDGET' : 'within budget'}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(overBudget ? 1 : 0);
