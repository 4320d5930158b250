// Fairness bench (P7), run by `npm run bench` (the API workspace runs every bench/api/*.bench.ts).
//
// Budget (the only reason this file exits non-zero besides a failure): another user's
// `{ viewer { id } }` p95 while four readers spend their budgets as fast as the limits let them is
// within 2× its p95 with the server idle, measured in one run, whichever document they send.
//
// What it measures, on one namespace of OCC_BENCH_FAIRNESS_SIZE (100) secrets, configurations and
// agents filled through the services (each agent with an OpenClawInstance written by two
// managers), through the HTTP app as `npm start` serves it with the configured budget
// (OCC_GRAPHQL_*, read as `npm start` reads them; the defaults unless set):
//   1. The most expensive documents the limits allow: for each of a few selections (lists at their
//      largest page, with the fields that load the most per row), as many aliases of it as stay
//      within P3's limits (cost 10,000, aliases 20, tokens 1,000, depth 12), each timed alone on an
//      app without a budget; printed with their time per 1,000 points.
//   2. Idle: one person's `{ viewer { id } }`, one request every 20 ms for
//      OCC_BENCH_FAIRNESS_IDLE_SECONDS (10), p50/p95; before every loaded run, which is compared
//      with the idle run just before it (the machine's load drifts).
//   3. Loaded, once per document, cheapest per point first: the same sampling for
//      OCC_BENCH_FAIRNESS_SECONDS (30) while four other people (namespace viewers, new principals
//      for each document, so each starts with its whole budget) send it from another process as
//      fast as they can: one more loop each than its cap on requests at once, each loop sending
//      again when answered; a 429 waits its Retry-After (what a client does); at most
//      OCC_BENCH_FAIRNESS_MAX_REQUESTS (20,000) a client. Every heavy client must be refused at
//      least once (or the limits were never reached and the run proves nothing).
//   4. A flood, printed with no budget (OCC_BENCH_FAIRNESS_FLOOD_SECONDS, 10; 0 skips it): the
//      cheapest document's clients ignoring Retry-After. That is a request rate, which no cost
//      budget bounds: every refusal is still parsed, authenticated and answered.
// It prints the documents, their costs and what one answer keeps of its cost (P7 gives back what
// its short pages did not hold), p50/p95 idle and under each load with the ratio, and per heavy
// client what it was answered and the points its answers kept.
//
// PostgreSQL: a scratch database beside DATABASE_URL's (dropped after); skipped without it.
// Alone: cd apps/api && DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres
//   ../../scripts/node-env node --expose-gc --import tsx ../../bench/api/fairness.bench.ts

import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { uuidOf } from '@occ/domain/ids';
import { AGENT_ID_LABEL, agentInstanceName, kubernetesNamespaceName } from '@occ/domain/kubernetes-names';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { readEnv } from '../../apps/api/src/env.ts';
import { getOperationAST } from 'graphql';
import { documentCost, resultCost } from '../../apps/api/src/graphql/cost.ts';
import { LIMITS } from '../../apps/api/src/graphql/limits.ts';
import { parseWithinLimits } from '../../apps/api/src/graphql/parse.ts';
import { PrincipalBudget } from '../../apps/api/src/graphql/principal-budget.ts';
import { schema } from '../../apps/api/src/graphql/schema/index.ts';
import { validateWithinLimits } from '../../apps/api/src/graphql/validation.ts';
import { createHttpApp, listen } from '../../apps/api/src/http/server.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { fillNamespace } from '../../apps/api/src/seed/fill.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../../apps/api/src/services/principals.ts';
import type { ClientCounts, ClientsPlan } from './fairness-clients.ts';
import { median, percentile, scratchDatabase, sleep, table } from './kube-support.ts';

const SIZE = Number(process.env.OCC_BENCH_FAIRNESS_SIZE ?? 100);
const IDLE_SECONDS = Number(process.env.OCC_BENCH_FAIRNESS_IDLE_SECONDS ?? 10);
const LOAD_SECONDS = Number(process.env.OCC_BENCH_FAIRNESS_SECONDS ?? 30);
const FLOOD_SECONDS = Number(process.env.OCC_BENCH_FAIRNESS_FLOOD_SECONDS ?? 10);
const MAX_REQUESTS = Number(process.env.OCC_BENCH_FAIRNESS_MAX_REQUESTS ?? 20_000);
const HEAVY_CLIENTS = 4;
const PACE_MS = 20;
const BUDGET = 2;
const VIEWER = '{ viewer { id } }';

/** Selections inside `namespace(id: $ns)`, each repeated under aliases up to the limits. */
const SELECTIONS: Array<{ name: string; selection: string }> = [
  {
    name: 'agents, configuration, bindings, secrets',
    selection: 'agents(first: 100) { edges { node { id name status configuration { id name secretBindings { envName secret { id name version } } } } } }',
  },
  {
    name: "secrets' consumers, references, exposure, blast radius, versions",
    selection:
      'secrets(first: 100) { edges { node { id consumers { total } references { currentVersion } exposure { hiddenCount } blastRadius { total { agents } } staleConsumers { total } versions { number } } } }',
  },
  {
    name: "agents' grants, owners, runtime, revisions",
    selection:
      'agents(first: 100) { edges { node { id missingGrants { action } accessBindings { id } fieldOwnership { resourceVersion } runtime { phase } servicePrincipal { id } revisions(first: 1) { edges { node { id } } } } } }',
  },
  {
    name: "configurations' blast radius and generations",
    selection:
      'configurations(first: 100) { edges { node { id name secretBindings { envName } blastRadius { total { agents } } generations(first: 5) { edges { node { generation } } } } } }',
  },
];

/** As many aliases of the selection as P3's limits allow (cost, aliases, tokens, depth). */
function widest(selection: string, variables: Record<string, unknown>): { query: string; cost: number; aliases: number } {
  let best: { query: string; cost: number; aliases: number } | null = null;
  for (let n = 1; n <= LIMITS.aliases; n++) {
    const query = `query($ns: ID!) { namespace(id: $ns) { ${Array.from({ length: n }, (_, i) => `a${i}: ${selection}`).join(' ')} } }`;
    let document;
    try {
      document = parseWithinLimits(query);
    } catch {
      break; // over the token limit
    }
    if (validateWithinLimits(schema, document, undefined, variables).length > 0) break;
    best = { query, cost: documentCost(schema, document, variables), aliases: n };
  }
  if (!best) throw new Error(`no form of this selection is within the limits: ${selection}`);
  return best;
}

/** What an answer to the query keeps of its cost once P7 gives back what its short pages did not hold. */
function keptCost(query: string, variables: Record<string, unknown>, data: unknown): number {
  const document = parseWithinLimits(query);
  const operation = getOperationAST(document);
  if (!operation) throw new Error('the document has no operation');
  return Math.max(1, Math.ceil(resultCost(schema, document, operation, variables, data)));
}

async function post(url: string, key: string, query: string, variables: Record<string, unknown> = {}): Promise<{ ms: number; status: number; body: { data?: unknown; errors?: unknown[] } }> {
  const began = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: unknown; errors?: unknown[] };
  return { ms: performance.now() - began, status: res.status, body };
}

/** One `{ viewer { id } }` every PACE_MS (start to start; the next waits for the answer), for `seconds`. */
async function sampleViewer(url: string, key: string, seconds: number): Promise<number[]> {
  const samples: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const began = performance.now();
    const answer = await post(url, key, VIEWER);
    if (answer.status !== 200 || answer.body.errors) throw new Error(`the measured user was answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    samples.push(answer.ms);
    await sleep(Math.max(0, PACE_MS - (performance.now() - began)));
  }
  return samples;
}

/** The heavy clients in their own process (fairness-clients.ts); resolves once they run, and with their counts. */
function heavyClients(plan: ClientsPlan): { started: Promise<void>; done: Promise<ClientCounts[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fairness-clients.ts', import.meta.url))], {
    env: { ...process.env, OCC_FAIRNESS_CLIENTS: JSON.stringify(plan) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let markStarted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    if (output.startsWith('started\n')) markStarted();
  });
  const done = new Promise<ClientCounts[]>((resolve, reject) => {
    child.once('close', (code) => {
      const last = output.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('[')) reject(new Error(`the heavy clients exited ${code}: ${output.slice(-300)}`));
      else resolve(JSON.parse(last) as ClientCounts[]);
    });
  });
  done.catch(() => markStarted());
  return { started, done };
}

const ms = (v: number) => `${v.toFixed(2)} ms`;

/**
 * Each agent gets an OpenClawInstance as a deploy and one applied SelfConfig request write it (two
 * field managers, env from secretKeyRefs, config keys, a workspace file), so that Agent.fieldOwnership
 * reads real objects and their managedFields, not absent ones. Labelled with the agent's id (what
 * the field selects by), not the installation's, so the instance reconciler renders no gateway.
 */
async function giveInstances(agentIds: string[], namespaceId: string): Promise<void> {
  const custom = runtime.kubeConfig.makeApiClient(CustomObjectsApi);
  const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
  const namespace = kubernetesNamespaceName(namespaceId);
  const target = { group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace };
  const body = (name: string, agentId: string, spec: Record<string, unknown>) => ({
    apiVersion: 'openclaw.rocks/v1alpha1',
    kind: 'OpenClawInstance',
    metadata: { name, labels: { [AGENT_ID_LABEL]: uuidOf(agentId) } },
    spec,
  });
  const started = Date.now();
  for (let i = 0; i < agentIds.length; i += 8) {
    await Promise.all(
      agentIds.slice(i, i + 8).map(async (agentId) => {
        const name = agentInstanceName(agentId);
        const env = Array.from({ length: 5 }, (_, n) => ({ name: `TOKEN_${n}`, valueFrom: { secretKeyRef: { name: `occ-bench-${n}`, key: 'value', optional: false } } }));
        const controller = { image: 'ghcr.io/openclaw/openclaw:1', skills: ['base', 'web'], env, config: { raw: { model: 'm', channels: { telegram: { enabled: true } } } }, workspace: { initialFiles: { 'AGENTS.md': '# agent' } }, selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars'] } };
        await custom.patchNamespacedCustomObject({ ...target, name, body: body(name, agentId, controller), fieldManager: 'occ-controller', force: true }, apply);
        const agent = { skills: ['fetch'], env: [{ name: 'MY_FLAG', value: 'on' }], config: { raw: { temperature: 0.2 } } };
        await custom.patchNamespacedCustomObject({ ...target, name, body: body(name, agentId, agent), fieldManager: 'openclaw-selfconfig', force: true }, apply);
      }),
    );
  }
  process.stderr.write(`instances ${agentIds.length}/${agentIds.length} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  process.stderr.write('fairness bench: set DATABASE_URL to a PostgreSQL server (it creates and drops its own database); skipped.\n');
  process.exit(0);
}

const database = await scratchDatabase(serverUrl, 'occ_bench_fairness');
const logger = createLogger(() => {}, 'error');
const runtime = await startRuntime({ env: { dataDir: '/tmp/occ-bench-fairness-unused', databaseUrl: database.url, kubeconfig: null }, logger, inMemory: true, migrate: migrateDatabase });
const limits = readEnv().requestBudget; // OCC_GRAPHQL_*, as npm start reads them
const app = createHttpApp({ deps: runtime.deps, production: false, consoleDir: '/nonexistent', requestBudget: new PrincipalBudget({ limits }) });
// The documents are timed on an app without a budget, so that choosing them spends nobody's.
const unlimited = createHttpApp({ deps: runtime.deps, production: false, consoleDir: '/nonexistent', requestBudget: null });
const servers = [await listen(app, '127.0.0.1', 0), await listen(unlimited, '127.0.0.1', 0)];
const [graphqlUrl, unlimitedUrl] = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/graphql`) as [string, string];
let overBudget = false;

try {
  const boot = runtime.installation.bootstrapPrincipalId;
  const actor: Actor = { principalId: boot, kind: 'SERVICE', name: 'bench', apiKeyId: 'bench' };
  const started = Date.now();
  const filled = await fillNamespace(runtime.deps, actor, { namespace: 'bench-fairness', secrets: SIZE, configurations: SIZE, agents: SIZE, audit: 0 }, {
    parallel: 8,
    onProgress: ({ phase, done, total }) => process.stderr.write(`fill ${phase} ${done}/${total} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`),
  });
  await runtime.worker.stop();
  await giveInstances(filled.agentIds, filled.namespaceId);
  const person = async (name: string) => {
    const user = await createHumanPrincipal(runtime.db, name, boot);
    await grantBuiltInRole(runtime.db, user.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: filled.namespaceId }, boot);
    return user.apiKey;
  };
  const measured = await person('bench-measured');
  const variables = { ns: filled.namespaceId };

  // 1. The most expensive documents the limits allow, timed without a budget.
  // kept: what one answer keeps of the cost (the same answer each time: nothing changes the rows).
  const candidates: Array<{ name: string; query: string; cost: number; kept: number; aliases: number; p50: number }> = [];
  for (const { name, selection } of SELECTIONS) {
    const form = widest(selection, variables);
    const first = await post(unlimitedUrl, measured, form.query, variables);
    if (first.status !== 200 || first.body.errors) throw new Error(`${name}: ${first.status} ${JSON.stringify(first.body).slice(0, 300)}`);
    for (let i = 0; i < 3; i++) await post(unlimitedUrl, measured, form.query, variables);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) times.push((await post(unlimitedUrl, measured, form.query, variables)).ms);
    candidates.push({ name, ...form, kept: keptCost(form.query, variables, first.body.data), p50: median(times) });
  }
  candidates.sort((a, b) => a.p50 / a.cost - b.p50 / b.cost);
  process.stdout.write(
    table(
      `Documents at P3's limits, ${SIZE} rows of each kind, timed alone without a budget (10 runs after 4)`,
      ['selection', 'aliases', 'cost', 'kept', 'p50', 'per 1,000 points'],
      candidates.map((c) => [c.name, String(c.aliases), String(c.cost), String(c.kept), ms(c.p50), ms((c.p50 * 1000) / c.cost)]),
    ),
  );
  const limit = limits.HUMAN;
  process.stdout.write(`\nBudget per person: ${limit.points} points over ${limit.windowSeconds} s (${(limit.points / limit.windowSeconds).toFixed(0)} a second), ${limit.concurrency} requests at once; ${HEAVY_CLIENTS} heavy clients of ${limit.concurrency + 1} loops each (one more than the cap)\n`);

  await sampleViewer(graphqlUrl, measured, 1); // warm
  const p95 = (xs: number[]) => percentile(xs, 95);
  const rows: string[][] = [];
  const clientRows: string[][] = [];
  const ratios: number[] = [];
  let phase = 0;

  /**
   * 2. Idle, then 3. loaded: the heavy clients (four people of their own, budgets whole) sending
   * `load` while the measured person samples; the ratio is against the idle run just before it,
   * since the machine's load drifts (idle p95 moved from 8.4 to 12.0 ms within one run).
   */
  const loadedBy = async (load: (typeof candidates)[number], seconds: number, honorRetryAfter: boolean, label: string) => {
    phase++;
    const idle = await sampleViewer(graphqlUrl, measured, IDLE_SECONDS);
    rows.push([`idle before ${label}`, '-', String(idle.length), ms(median(idle)), ms(p95(idle)), '-']);
    const heavy = await Promise.all(Array.from({ length: HEAVY_CLIENTS }, (_, i) => person(`bench-heavy-${phase}-${i}`)));
    const clients = heavyClients({ graphqlUrl, keys: heavy, query: load.query, variables, parallel: limit.concurrency + 1, seconds, maxRequests: MAX_REQUESTS, honorRetryAfter });
    await clients.started;
    const samples = await sampleViewer(graphqlUrl, measured, seconds);
    const counts = await clients.done;
    const ratio = p95(samples) / p95(idle);
    rows.push([label, load.name, String(samples.length), ms(median(samples)), ms(p95(samples)), ratio.toFixed(2)]);
    for (const [i, c] of counts.entries()) {
      clientRows.push([`${label} ${i}`, String(c.sent), String(c.ok), String(c.withErrors), String(c.rateLimited), String(c.concurrencyLimited), String(c.other), c.okP50Ms === null ? '-' : ms(c.okP50Ms), String((c.ok + c.withErrors) * load.kept)]);
    }
    if (counts.some((c) => c.other > 0)) throw new Error('a heavy client was answered something other than a 200 or a 429 from the limiter');
    if (honorRetryAfter && counts.some((c) => c.rateLimited + c.concurrencyLimited === 0)) {
      throw new Error(`${load.name}: a heavy client was never refused, so the limits were not reached and the run proves nothing`);
    }
    return ratio;
  };

  // Each document in turn, the heavy clients honouring Retry-After.
  for (const load of candidates) ratios.push(await loadedBy(load, LOAD_SECONDS, true, `loaded ${ratios.length + 1}`));
  // 4. A flood of the cheapest per point, Retry-After ignored (printed, no budget).
  if (FLOOD_SECONDS > 0) await loadedBy(candidates[0]!, FLOOD_SECONDS, false, 'flood');

  process.stdout.write(table(`\n{ viewer { id } } of another person, one every ${PACE_MS} ms (${new Date().toISOString()})`, ['phase', 'heavy document', 'requests', 'p50', 'p95', 'p95 / idle p95'], rows));
  process.stdout.write(
    table('Heavy clients', ['client', 'sent', 'answered', 'with errors', 'RATE_LIMITED', 'CONCURRENCY_LIMITED', 'other', 'answered p50', 'points kept'], clientRows),
  );
  const worst = Math.max(...ratios);
  overBudget = worst > BUDGET;
  process.stdout.write(`\nBudget: loaded p95 / idle p95 ≤ ${BUDGET} with every document: the largest is ${worst.toFixed(2)}: ${overBudget ? 'OVER BUDGET' : 'within budget'}\n`);
} finally {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  await runtime.close();
  await database.drop();
}
process.exit(overBudget ? 1 : 0);
