// Deploy → Ready as Deployments accumulate, run by `npm run bench` (the API workspace runs every
// bench/api/*.bench.ts).
//
// Budget (the only reason this file exits non-zero): the product's deploy → Ready p50 over the last
// tenth of the run, when the namespace holds OCC_BENCH_AGENTS (150) deployed agents, ≤ 1.2 × its
// p50 over the first tenth, when it held almost none: "flat as Deployments accumulate".
//
// Each round creates a new agent in the same Kubernetes namespace (a configuration binding one
// Secret, the agent's grant on it) and deploys it through the product: deployAgent → the worker →
// the instance reconciler → the kubelet simulator rolls its Deployment out → the revision ACTIVE
// (read from the database every 5 ms). So every round adds a gateway Deployment, its ReplicaSet, its
// Pod, its ConfigMap, ServiceAccount and RoleBinding, and an OpenClawInstance to what the cluster,
// the reconciler and the simulator hold. Alternating with it, as a control for the machine's load
// drifting over the run, a bare client-node change of one Deployment in a namespace of its own
// (an annotation on its pod template) → rolled out: it shares the cluster-wide costs with the
// product, not the namespace's. The run prints each path's p50 by tenths of the run, the
// last-tenth / first-tenth ratio of both, and the product's ratio to the control per tenth.
//
// PostgreSQL: a scratch database beside DATABASE_URL's (dropped after) when it is set, else
// embedded PGlite.

import pg from 'pg';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE } from '../../packages/kube-emulator/src/kubelet/simulator.ts';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { grantAccess } from '../../apps/api/src/services/access-grants.ts';
import { createAgent } from '../../apps/api/src/services/agents.ts';
import { createConfiguration } from '../../apps/api/src/services/configurations.ts';
import { deployAgent } from '../../apps/api/src/services/deploy-agent.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { createSecret } from '../../apps/api/src/services/secrets.ts';
import { benchCluster, type Deployment, deploymentsPath, median, readyNamespace, rolledOut, scratchDatabase, sleep, table, untilLeading, watchObject } from './kube-support.ts';

const AGENTS = Number(process.env.OCC_BENCH_AGENTS ?? 150);
const BUDGET = 1.2;

const begun = Date.now();
const progress = (what: string) => process.stderr.write(`deploy-accumulate bench: ${what} (${((Date.now() - begun) / 1000).toFixed(1)} s)\n`);
const cluster = await benchCluster('deploy-accumulate');
const database = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, 'accumulate') : null;
const runtime = await startRuntime({
  env: { dataDir: cluster.dir, databaseUrl: database?.url ?? null, kubeconfig: cluster.kubeconfig, gatewayReadySeconds: 60 },
  logger: createLogger(() => {}, 'error'),
  inMemory: true,
  migrate: migrateDatabase,
  instanceResyncMs: 3_600_000,
});
progress('runtime started');
let poller: pg.Client | null = null;
try {
  const deps = runtime.deps;
  const boot: Actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'bench' };
  const ns = await readyNamespace(deps, boot, `accumulate-${Date.now()}`);
  const token = await createSecret(deps, boot, { namespaceId: ns.id, name: 'telegram', value: 'tg-bench' });
  const cfg = await createConfiguration(deps, boot, {
    namespaceId: ns.id,
    name: 'bench',
    values: { skills: ['base'], channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
    secretBindings: [{ envName: 'TELEGRAM_TOKEN', source: { id: token.id } }],
  });
  await untilLeading(runtime, [() => runtime.instances.running()]);
  await runtime.instances.idle();
  progress('leading');

  poller = database ? new pg.Client({ connectionString: database.url }) : null;
  await poller?.connect();
  const revisionState = async (id: string): Promise<{ state: string; failureCode: string | null }> =>
    poller
      ? ((await poller.query<{ state: string; failureCode: string | null }>('SELECT state::text AS state, "failureCode" FROM "AgentRevision" WHERE id = $1', [id])).rows[0] ?? { state: 'MISSING', failureCode: null })
      : deps.db.agentRevision.findUniqueOrThrow({ where: { id }, select: { state: true, failureCode: true } });

  /** One new agent, deployed: deployAgent → revision ACTIVE (the agent's creation and grant are not timed). */
  async function productOnce(i: number): Promise<number> {
    const agent = await createAgent(deps, boot, { namespaceId: ns.id, name: `agent-${i}`, configurationId: cfg.id });
    await grantAccess(deps, boot, { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: token.id } });
    const t0 = performance.now();
    const revision = await deployAgent(deps, boot, { agentId: agent.id });
    for (const deadline = Date.now() + 90_000; ; await sleep(5)) {
      const r = await revisionState(revision.id);
      if (r.state === 'ACTIVE') return performance.now() - t0;
      if (r.state === 'FAILED') throw new Error(`deploy ${i} failed: ${r.failureCode}`);
      if (Date.now() > deadline) throw new Error(`deploy ${i} still ${r.state} after 90 s`);
    }
  }

  // The control: one Deployment in a namespace of its own, its pod template changed each round.
  const apps = cluster.direct.makeApiClient(AppsV1Api);
  const core = cluster.direct.makeApiClient(CoreV1Api);
  const controlNs = `accumulate-control-${Date.now()}`;
  await core.createNamespace({ body: { metadata: { name: controlNs } } });
  // The simulator rolls out gateway Deployments only (its label selector); the control is one.
  const labels = { [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE, app: 'control' };
  await apps.createNamespacedDeployment({
    namespace: controlNs,
    body: { metadata: { name: 'control', labels }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
  });
  async function controlOnce(i: number): Promise<number> {
    const t0 = performance.now();
    const patched = (await apps.patchNamespacedDeployment(
      { namespace: controlNs, name: 'control', body: { spec: { template: { metadata: { annotations: { round: String(i) } } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Deployment;
    const watch = await watchObject<Deployment>(cluster.direct, deploymentsPath(controlNs), 'control', rolledOut(patched.metadata?.generation ?? 1), {
      resourceVersion: patched.metadata!.resourceVersion!,
    });
    const { at } = await watch.done;
    return at - t0;
  }

  await productOnce(-1);
  await controlOnce(-1);
  progress('warmed up');
  const product: number[] = [];
  const control: number[] = [];
  for (let i = 0; i < AGENTS; i++) {
    product.push(await productOnce(i));
    control.push(await controlOnce(i));
    if ((i + 1) % 25 === 0) progress(`${i + 1}/${AGENTS} agents deployed`);
  }

  const tenth = Math.max(1, Math.floor(AGENTS / 10));
  const rows: string[][] = [];
  for (let t = 0; t * tenth < AGENTS; t++) {
    const p = product.slice(t * tenth, (t + 1) * tenth);
    const c = control.slice(t * tenth, (t + 1) * tenth);
    if (p.length < tenth) break;
    rows.push([`${t * tenth + 1}–${(t + 1) * tenth}`, `${median(p).toFixed(1)} ms`, `${median(c).toFixed(1)} ms`, `${(median(p) / median(c)).toFixed(2)}×`]);
  }
  const drift = (xs: number[]) => median(xs.slice(-tenth)) / median(xs.slice(0, tenth));
  const productDrift = drift(product);
  const out = [
    table(
      `Deploy → Ready as the namespace fills with deployed agents, ${AGENTS} rounds, ${database ? 'PostgreSQL' : 'PGlite'} (${new Date().toISOString()}); p50 by tenth of the run`,
      ['agents deployed before (rounds)', 'product: deployAgent → ACTIVE', 'control: bare Deployment change → rolled out', 'product / control'],
      rows,
    ),
    `Last tenth / first tenth, p50: the product ${productDrift.toFixed(2)}× (budget ${BUDGET}×), the control ${drift(control).toFixed(2)}×.`,
  ];
  const over = productDrift > BUDGET;
  out.push(over ? `OVER BUDGET: deploy → Ready grew ${productDrift.toFixed(2)}× as ${AGENTS} agents accumulated.` : `Within budget: ${productDrift.toFixed(2)}× ≤ ${BUDGET}×.`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (over) process.exitCode = 1;
} finally {
  await poller?.end();
  await runtime.close();
  await cluster.close();
  await database?.drop();
}
