// Deploy bench, run by `npm run bench` (the API workspace runs every
// bench/api/*.bench.ts).
//
// Budgets (the targets; the only reasons this file exits non-zero):
//   - deployAgent → Ready through the product, p50 ≤ 1.3 × the bare apply's p50, measured side by
//     side in this run (alternating, so machine load hits both alike);
//   - Kubernetes API requests per deploy in the agent's Kubernetes namespace ≤ the bare apply's.
//
// The product's path: deployAgent (admission) → the worker (re-check, prepare: source check,
// model-auth Secret, instance dry run; activation; the instance apply as occ-controller) → the
// instance reconciler on the leader (ConfigMap, ServiceAccount, RoleBinding, Deployment, each only
// when it differs; the instance's status) → revision.await, until the instance reports the
// revision's generation Ready and the revision is ACTIVE (read from the database every 5 ms).
// The bare path, in a Kubernetes namespace of its own: the same objects applied directly with
// client-node (the instance by SSA as occ-controller; the model-auth Secret; the gateway's children
// rendered by `renderGateway` from the applied instance, so they are exactly the product's), then
// one watch of the Deployment until it has rolled out (observedGeneration, updated, available,
// no old replicas, Available).
//
// It prints p50/p95 of both and their ratios, the process CPU each path used (the emulated API
// server and the kubelet simulator run in this process too, on a shared machine), when each step of
// the product's path happened (medians), the requests per deploy by verb and resource on both
// paths, the reconciler's own count, and the requests of the median deploy in order. Requests are
// counted by a pass-through proxy between the product and the embedded API server, by the namespace
// in their path: the agent's namespace for the product, the bare namespace for the bare path. The
// reconciler's caches (list and watch of every kind, cluster-wide paths) are opened once at start
// and are not per deploy: they are reported apart, as what the run opened while measuring; the
// leader Lease lives in `default`; the kubelet simulator talks to the server directly. The
// reconciler's periodic resync (and its look at Secrets) is set to an hour, so none falls inside
// the run.
//
// OCC_BENCH_DEPLOYS sets the deploys of each path (50). OCC_BENCH_PROFILE=1 adds diagnostics that
// slow the product (so that run's ratios are not the measurement): a CPU profile of each measured
// window, summed by who spent the time and by the product's own frames, and the SQL statements of
// each deploy by kind. PostgreSQL: a scratch database beside DATABASE_URL's (dropped after) when
// it is set, else embedded PGlite.

import { randomBytes, randomUUID } from 'node:crypto';
import { performance as loop } from 'node:perf_hooks';
import pg from 'pg';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import { renderGateway, type InstanceObject } from '@occ/domain/gateway-render';
import { agentInstanceName, FIELD_MANAGER, gatewayDeploymentName, harnessSecretName } from '@occ/domain/kubernetes-names';
import { instanceBody, renderModelAuthSecret, type RenderContext, type RenderRevision } from '@occ/domain/revision-render';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { grantAccess } from '../../apps/api/src/services/access-grants.ts';
import { createAgent } from '../../apps/api/src/services/agents.ts';
import { createConfiguration } from '../../apps/api/src/services/configurations.ts';
import { deployAgent } from '../../apps/api/src/services/deploy-agent.ts';
import { renderable } from '../../apps/api/src/services/deploy-work.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { createSecret } from '../../apps/api/src/services/secrets.ts';
import { add, benchCluster, type Deployment, deploymentsPath, type KubeRequest, median, openProfiler, percentile, readyNamespace, rolledOut, scratchDatabase, sleep, ssa, statementKind, sum, summarizeProfiles, table, tally, untilLeading, watchObject } from './kube-support.ts';

const DEPLOYS = Number(process.env.OCC_BENCH_DEPLOYS ?? 50);
const PROFILE = process.env.OCC_BENCH_PROFILE === '1';
const BUDGET_P50_RATIO = 1.3;
const GROUP_VERSION = 'openclaw.rocks/v1alpha1';
const instancesPath = (ns: string) => `/apis/${GROUP_VERSION}/namespaces/${ns}/openclawinstances`;

type Instance = InstanceObject & { status?: { observedGeneration?: number; running?: { generation?: number | null } | null; conditions?: Array<{ type: string; status: string }> } };



interface ProductSample {
  ms: number;
  /** Process CPU (user + system) while it ran, and the event loop's utilization: the emulated cluster runs in this process too. */
  cpuMs: number;
  busy: number;
  /** SQL statements from deployAgent to ACTIVE, by kind (OCC_BENCH_PROFILE=1 only). */
  sql: Map<string, number>;
  /** performance.now() offsets from the deployAgent call. */
  marks: Record<string, number>;
  /** Each state of the instance its watch delivered, at its offset. */
  instanceLog: Array<{ at: number; what: string }>;
  requests: Map<string, number>;
  reconciler: Record<string, number>;
  log: KubeRequest[];
  t0: number;
}

interface BareSample {
  ms: number;
  cpuMs: number;
  busy: number;
  marks: Record<string, number>;
  requests: Map<string, number>;
}

const begun = Date.now();
const progress = (what: string) => process.stderr.write(`deploy bench: ${what} (${((Date.now() - begun) / 1000).toFixed(1)} s)\n`);
const cluster = await benchCluster('deploy');
const { proxy, dir, kubeconfig, direct, proxied } = cluster;
const statements: Array<{ at: number; kind: string }> = [];
const database = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, 'deploy') : null;
const runtime = await startRuntime({
  env: { dataDir: dir, databaseUrl: database?.url ?? null, kubeconfig, gatewayReadySeconds: 60 },
  logger: createLogger(() => {}, 'error'),
  inMemory: true,
  migrate: migrateDatabase,
  instanceResyncMs: 3_600_000,
  // Diagnostics only: Prisma's query events cost a little, so the measured run goes without.
  ...(PROFILE ? { onQuery: (sql: string) => statements.push({ at: performance.now(), kind: statementKind(sql) }) } : {}),
});
progress('runtime started');
let poller: pg.Client | null = null;
try {
  const deps = runtime.deps;
  const custom = direct.makeApiClient(CustomObjectsApi);
  const core = direct.makeApiClient(CoreV1Api);
  const boot: Actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'bench' };
  const row = await readyNamespace(deps, boot, `bench-${Date.now()}`);
  const ns = { id: row.id };
  const k8sNs = row.k8sName;
  progress('namespace ready');
  const token = await createSecret(deps, boot, { namespaceId: ns.id, name: 'telegram', value: 'tg-bench' });
  const model = await createSecret(deps, boot, { namespaceId: ns.id, name: 'model', value: 'sk-bench' });
  const cfg = await createConfiguration(deps, boot, {
    namespaceId: ns.id,
    name: 'bench',
    values: { skills: ['base'], channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
    secretBindings: [{ envName: 'TELEGRAM_TOKEN', source: { id: token.id } }],
  });
  const agent = await createAgent(deps, boot, {
    namespaceId: ns.id,
    name: 'bench',
    configurationId: cfg.id,
    harnessAuth: { provider: 'openai', source: { id: model.id } },
    selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars'] },
  });
  for (const s of [token, model]) {
    await grantAccess(deps, boot, { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: s.id } });
  }
  const instanceName = agentInstanceName(agent.id);
  const deploymentName = gatewayDeploymentName(agent.id);
  const apps = direct.makeApiClient(AppsV1Api);

  // The bare path's namespace holds a copy of the bound Secret (same name), so its gateway resolves
  // the same secretKeyRef; its objects carry another installation id, so the product's reconciler
  // (whose caches select its own installation) never sees them.
  const bareNs = `bench-bare-${Date.now()}`;
  await core.createNamespace({ body: { metadata: { name: bareNs } } });
  const source = await core.readNamespacedSecret({ name: token.backend.name, namespace: k8sNs });
  await core.createNamespacedSecret({ namespace: bareNs, body: { metadata: { name: token.backend.name }, type: 'Opaque', data: source.data ?? {} } });
  const bareInstallation = `bare${randomBytes(12).toString('hex')}`.slice(0, runtime.installation.installationId.length);
  const bareAgentId = `agt_${randomUUID()}`;
  const secretNames = new Map([
    [token.id, token.backend.name],
    [model.id, model.backend.name],
  ]);

  const profiler = PROFILE ? await openProfiler() : null;
  type Profile = Awaited<ReturnType<NonNullable<typeof profiler>['stop']>>;
  const profiles = { product: [] as Profile[], bare: [] as Profile[] };

  async function quiesce(): Promise<void> {
    await runtime.worker.drain();
    await runtime.instances.idle();
    await sleep(30);
    await runtime.instances.idle();
  }

  // The revision's state, read every 5 ms: on PostgreSQL by a client of the bench's own (a plain
  // query costs a fraction of the product's ORM call, so the watching weighs little on the path
  // it watches); on PGlite, whose one connection the product holds, through the product's client.
  poller = database ? new pg.Client({ connectionString: database.url }) : null;
  await poller?.connect();
  const revisionState = async (id: string): Promise<{ state: string; failureCode: string | null }> =>
    poller
      ? ((await poller.query<{ state: string; failureCode: string | null }>('SELECT state::text AS state, "failureCode" FROM "AgentRevision" WHERE id = $1', [id])).rows[0] ?? { state: 'MISSING', failureCode: null })
      : deps.db.agentRevision.findUniqueOrThrow({ where: { id }, select: { state: true, failureCode: true } });

  async function productOnce(): Promise<{ sample: ProductSample; revision: RenderRevision }> {
    const live = (await custom.getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNs, name: instanceName }).catch(() => null)) as Instance | null;
    const before = live?.metadata.generation ?? 0;
    const from = proxy.log.length;
    const calls = { ...runtime.instances.calls };
    const marks: Record<string, number> = {};
    const instanceLog: Array<{ at: number; what: string }> = [];
    let generation = 0;
    const watch = await watchObject<Instance>(direct, instancesPath(k8sNs), instanceName, () => false, {
      ...(live?.metadata.resourceVersion ? { resourceVersion: live.metadata.resourceVersion } : {}),
      timeoutMs: 120_000,
      onEvent(o, at) {
        const st = o.status as { phase?: string; running?: { generation?: number | null; readyReplicas?: number } | null; conditions?: Array<{ type: string; status: string; reason?: string }> } | undefined;
        const ready = st?.conditions?.find((c) => c.type === 'Ready');
        instanceLog.push({ at, what: `· instance: generation ${o.metadata.generation ?? '?'}, status ${st?.phase ?? '-'}, Ready ${ready?.status ?? '-'} ${ready?.reason ?? ''}, running ${st?.running ? `generation ${st.running.generation ?? 'older'} × ${st.running.readyReplicas ?? 0}` : '-'}` });
        if (!generation && (o.metadata.generation ?? 0) > before) {
          generation = o.metadata.generation ?? 0;
          marks['instance spec applied'] ??= at;
        }
        if (!generation) return;
        if ((o.status?.observedGeneration ?? 0) >= generation) marks['status: generation rendered'] ??= at;
        if ((o.status?.running?.generation ?? 0) >= generation && o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) marks['status: Ready at it'] ??= at;
      },
    });
    const liveDeployment = (await apps.readNamespacedDeployment({ name: deploymentName, namespace: k8sNs }).catch(() => null)) as Deployment | null;
    const deploymentBefore = liveDeployment?.metadata?.generation ?? 0;
    let deploymentGeneration = 0;
    const deploymentWatch = await watchObject<Deployment>(direct, deploymentsPath(k8sNs), deploymentName, () => false, {
      ...(liveDeployment?.metadata?.resourceVersion ? { resourceVersion: liveDeployment.metadata.resourceVersion } : {}),
      timeoutMs: 120_000,
      onEvent(d, at) {
        if (!deploymentGeneration && (d.metadata?.generation ?? 0) > deploymentBefore) {
          deploymentGeneration = d.metadata?.generation ?? 0;
          marks['Deployment applied'] ??= at;
        }
        if (deploymentGeneration && rolledOut(deploymentGeneration)(d)) marks['Deployment rolled out'] ??= at;
      },
    });
    await profiler?.start();
    const cpu = process.cpuUsage();
    const elu = loop.eventLoopUtilization();
    const t0 = performance.now();
    const revision = await deployAgent(deps, boot, { agentId: agent.id });
    marks['deployAgent returned'] = performance.now();
    const deadline = Date.now() + 90_000;
    let polls = 0;
    for (;;) {
      polls++;
      const r = await revisionState(revision.id);
      marks[`revision ${r.state}`] ??= performance.now();
      if (r.state === 'ACTIVE') break;
      if (r.state === 'FAILED') throw new Error(`deploy failed: ${r.failureCode}`);
      if (Date.now() > deadline) throw new Error(`revision ${revision.number} still ${r.state} after 90 s`);
      await sleep(5);
    }
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const busy = loop.eventLoopUtilization(elu).utilization;
    if (profiler) profiles.product.push(await profiler.stop());
    const sql = new Map<string, number>();
    for (const st of statements) if (st.at >= t0) sql.set(st.kind, (sql.get(st.kind) ?? 0) + 1);
    // The bench's own reads of the revision's state are not the product's.
    if (!poller && sql.has('SELECT AgentRevision')) sql.set('SELECT AgentRevision', sql.get('SELECT AgentRevision')! - polls);
    statements.length = 0;
    watch.stop();
    deploymentWatch.stop();
    await quiesce();
    const to = proxy.log.length;
    const reconciler: Record<string, number> = {};
    for (const [verb, n] of Object.entries(runtime.instances.calls)) if (n - (calls[verb] ?? 0) > 0) reconciler[verb] = n - (calls[verb] ?? 0);
    for (const k of Object.keys(marks)) marks[k] = marks[k]! - t0;
    return {
      sample: { ms, cpuMs: (used.user + used.system) / 1000, busy, sql, marks, instanceLog: instanceLog.map((e) => ({ at: e.at - t0, what: e.what })), requests: tally(proxy.log, from, to, k8sNs), reconciler, log: proxy.log.slice(from, to).filter((r) => r.namespace === k8sNs), t0 },
      revision: renderable(revision),
    };
  }

  const bareObjects = KubernetesObjectApi.makeApiClient(proxied);
  const bareCore = proxied.makeApiClient(CoreV1Api);
  let lastBareSecret: string | null = null;
  async function bareOnce(template: RenderRevision, number: number): Promise<BareSample> {
    const revision: RenderRevision = { ...template, agentId: bareAgentId, number };
    const context: RenderContext = { installationId: bareInstallation, k8sNamespace: bareNs, revisionId: `rev_${randomUUID()}`, secretNames };
    const from = proxy.log.length;
    const marks: Record<string, number> = {};
    await profiler?.start();
    const cpu = process.cpuUsage();
    const elu = loop.eventLoopUtilization();
    const t0 = performance.now();
    const applied = (await ssa(bareObjects, instanceBody(revision, context))) as unknown as InstanceObject;
    await bareCore.createNamespacedSecret({ namespace: bareNs, body: renderModelAuthSecret(revision, context, 'sk-bench'), fieldManager: FIELD_MANAGER });
    const render = renderGateway(applied);
    let deployment: Deployment | null = null;
    for (const child of [render.serviceAccount, render.roleBinding, render.configMap, render.deployment]) {
      if (!child) continue;
      const result = (await ssa(bareObjects, child)) as Deployment;
      if (child === render.deployment) deployment = result;
    }
    marks['objects applied'] = performance.now() - t0;
    const watch = await watchObject<Deployment>(proxied, deploymentsPath(bareNs), render.deploymentName, rolledOut(deployment!.metadata!.generation ?? 1), {
      resourceVersion: deployment!.metadata!.resourceVersion!,
    });
    const { at } = await watch.done;
    const ms = at - t0;
    const used = process.cpuUsage(cpu);
    const busy = loop.eventLoopUtilization(elu).utilization;
    if (profiler) profiles.bare.push(await profiler.stop());
    marks['Deployment rolled out'] = ms;
    const requests = tally(proxy.log, from, proxy.log.length, bareNs);
    // Not timed: the bare path keeps one model-auth Secret, as the product retires the others.
    if (lastBareSecret) await core.deleteNamespacedSecret({ name: lastBareSecret, namespace: bareNs });
    lastBareSecret = harnessSecretName(bareAgentId, number);
    await sleep(30);
    return { ms, cpuMs: (used.user + used.system) / 1000, busy, marks, requests };
  }

  // Wait for the leader's reconciler, then one warm-up of each, then alternating rounds.
  await untilLeading(runtime, [() => runtime.instances.running()]);
  progress('leading');
  await runtime.instances.idle();
  progress('reconciler idle');
  const warm = await productOnce();
  await bareOnce(warm.revision, 1000);
  profiles.product.length = profiles.bare.length = 0;
  progress('warmed up');
  const product: ProductSample[] = [];
  const bare: BareSample[] = [];
  const clusterFrom = proxy.log.length;
  const reconcilerBefore = { ...runtime.instances.calls };
  const started = Date.now();
  for (let i = 0; i < DEPLOYS; i++) {
    const p = await productOnce();
    product.push(p.sample);
    bare.push(await bareOnce(p.revision, 1001 + i));
    if ((i + 1) % 10 === 0) process.stderr.write(`deploy bench: ${i + 1}/${DEPLOYS} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const clusterTo = proxy.log.length;

  const out: string[] = [];
  const print = (s: string) => out.push(s);
  const perDeploy = (samples: Array<{ requests: Map<string, number> }>) => {
    const total = new Map<string, number>();
    for (const s of samples) add(total, s.requests);
    return total;
  };
  const productRequests = perDeploy(product);
  const bareRequests = perDeploy(bare);
  const productPerDeploy = sum(productRequests.values()) / DEPLOYS;
  const barePerDeploy = sum(bareRequests.values()) / DEPLOYS;
  const pms = product.map((s) => s.ms);
  const bms = bare.map((s) => s.ms);
  const ratio50 = median(pms) / median(bms);
  const ratio95 = percentile(pms, 95) / percentile(bms, 95);
  const f = (x: number) => `${x.toFixed(1)} ms`;
  // As history accumulates (every deploy here is a new revision of the same agent: its ReplicaSets,
  // revisions and rows pile up): the last tenth's p50 against the first tenth's, for both paths.
  const tenth = Math.max(1, Math.floor(DEPLOYS / 10));
  const drift = (xs: number[]) => median(xs.slice(-tenth)) / median(xs.slice(0, tenth));
  const cpuOf = (samples: Array<{ cpuMs: number; busy: number }>) => `${f(median(samples.map((s) => s.cpuMs)))}, ${(median(samples.map((s) => s.busy)) * 100).toFixed(0)}%`;

  print(
    table(
      `Deploy → Ready on the embedded cluster, ${DEPLOYS} deploys each, alternating, ${database ? 'PostgreSQL' : 'PGlite'} (${new Date().toISOString()})`,
      ['path', 'p50', 'p95', 'requests per deploy (its namespace)', 'process CPU per deploy (p50), event loop busy'],
      [
        ['deployAgent → revision ACTIVE (the product)', f(median(pms)), f(percentile(pms, 95)), productPerDeploy.toFixed(2)],
        ['bare client-node apply → Deployment rolled out', f(median(bms)), f(percentile(bms, 95)), barePerDeploy.toFixed(2)],
        ['ratio product / bare', `${ratio50.toFixed(2)}×`, `${ratio95.toFixed(2)}×`, `${(productPerDeploy / barePerDeploy).toFixed(2)}×`],
      ].map((r, i) => [...r, i === 0 ? cpuOf(product) : i === 1 ? cpuOf(bare) : `${(median(product.map((s) => s.cpuMs)) / median(bare.map((s) => s.cpuMs))).toFixed(2)}×`]),
    ),
  );

  // When each step happened: the median over deploys of each mark, and of the step's own length.
  print(
    `\nAs one agent's history accumulates (ReplicaSets, revisions): p50 of the last ${tenth} deploys / the first ${tenth}: ` +
      `the product ${drift(pms).toFixed(2)}×, the bare apply ${drift(bms).toFixed(2)}×.`,
  );
  const markNames = ['deployAgent returned', 'revision QUEUED', 'revision PREPARING', 'revision PREPARED', 'revision ACTIVATING', 'instance spec applied', 'Deployment applied', 'status: generation rendered', 'Deployment rolled out', 'status: Ready at it', 'revision ACTIVE'];
  const rows: string[][] = [];
  let previous: string | null = null;
  for (const name of markNames) {
    const seen = product.map((s) => s.marks[name]).filter((x): x is number => x !== undefined);
    if (seen.length === 0) continue;
    const steps = previous ? product.map((s) => (s.marks[name] !== undefined && s.marks[previous!] !== undefined ? s.marks[name]! - s.marks[previous!]! : null)).filter((x): x is number => x !== null) : seen;
    rows.push([name, `${seen.length}/${DEPLOYS}`, f(median(seen)), steps.length ? f(median(steps)) : '']);
    previous = name;
  }
  for (const name of ['objects applied', 'Deployment rolled out']) {
    const seen = bare.map((s) => s.marks[name]!);
    rows.push([`bare: ${name}`, `${seen.length}/${DEPLOYS}`, f(median(seen)), '']);
  }
  print(
    table(
      'When each step was first seen (revision states from the database every 5 ms; instance status by a watch), median ms since the start',
      ['step', 'seen in', 'at (p50)', 'since the step before (p50)'],
      rows,
    ),
  );

  const keys = [...new Set([...productRequests.keys(), ...bareRequests.keys()])].sort();
  print(
    table(
      'Kubernetes API requests per deploy, by verb and resource (the agent\u2019s namespace; the bare namespace)',
      ['request', 'product', 'bare'],
      [...keys.map((k) => [k, ((productRequests.get(k) ?? 0) / DEPLOYS).toFixed(2), ((bareRequests.get(k) ?? 0) / DEPLOYS).toFixed(2)]), ['total', productPerDeploy.toFixed(2), barePerDeploy.toFixed(2)]],
    ),
  );

  const reconciler = new Map<string, number>();
  for (const s of product) for (const [verb, n] of Object.entries(s.reconciler)) reconciler.set(verb, (reconciler.get(verb) ?? 0) + n);
  const reconcilerAll: Record<string, number> = {};
  for (const [verb, n] of Object.entries(runtime.instances.calls)) if (n - (reconcilerBefore[verb] ?? 0) > 0) reconcilerAll[verb] = n - (reconcilerBefore[verb] ?? 0);
  print(`\nThe instance reconciler's own count (runtime.instances.calls), per deploy: ${[...reconciler].map(([v, n]) => `${v} ${(n / DEPLOYS).toFixed(2)}`).join(', ') || 'none'}; over the whole run ${JSON.stringify(reconcilerAll)}.`);
  print(`The worker and admission made the rest: ${(productPerDeploy - sum(reconciler.values()) / DEPLOYS).toFixed(2)} per deploy.`);
  const outside = tally(proxy.log, clusterFrom, clusterTo, null);
  print(
    `Cluster-wide requests while measuring (the caches' list and watch, opened once at start; a re-list or re-watch here is a watch that ended): ${[...outside].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}.`,
  );
  const elsewhere = new Map<string, number>();
  for (let i = clusterFrom; i < clusterTo; i++) {
    const r = proxy.log[i]!;
    if (r.namespace && r.namespace !== k8sNs && r.namespace !== bareNs) elsewhere.set(`${r.namespace}: ${r.verb} ${r.resource}`, (elsewhere.get(`${r.namespace}: ${r.verb} ${r.resource}`) ?? 0) + 1);
  }
  print(`Requests in other namespaces while measuring (the leader Lease): ${[...elsewhere].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}.`);

  // The median deploy's requests in order, with the steps around them.
  const byTime = [...product].sort((a, b) => a.ms - b.ms);
  const mid = byTime[Math.floor(byTime.length / 2)]!;
  const events: Array<[number, string]> = [
    ...Object.entries(mid.marks).map(([name, at]) => [at, `— ${name}`] as [number, string]),
    ...mid.log.map((r) => [r.at - mid.t0, `${r.verb} ${r.resource}`] as [number, string]),
    ...mid.instanceLog.map((e) => [e.at, e.what] as [number, string]),
  ].sort((a, b) => a[0] - b[0]);
  print(`\nThe median deploy (${f(mid.ms)}), in order (ms since deployAgent was called): its requests in the agent's namespace, the steps (—) and each state of the instance a watch saw (·):`);
  for (const [at, what] of events) print(`  ${at.toFixed(1).padStart(8)}  ${what}`);

  if (profiler) {
    profiler.close();
    const p = summarizeProfiles(profiles.product);
    const b = summarizeProfiles(profiles.bare);
    const areas = [...new Set([...p.areas.keys(), ...b.areas.keys()])].sort((x, y) => (p.areas.get(y) ?? 0) - (p.areas.get(x) ?? 0));
    print(
      table(
        `CPU profile (OCC_BENCH_PROFILE=1; the profiler slows both paths, so this run's ratios are not the measurement): ms of CPU per deploy, by who spent it`,
        ['area', 'product', 'bare'],
        [...areas.map((a) => [a, ((p.areas.get(a) ?? 0) / DEPLOYS).toFixed(1), ((b.areas.get(a) ?? 0) / DEPLOYS).toFixed(1)]), ['total', (p.totalMs / DEPLOYS).toFixed(1), (b.totalMs / DEPLOYS).toFixed(1)]],
      ),
    );
    const sql = new Map<string, number>();
    for (const s of product) add(sql, s.sql);
    const sqlRows = [...sql].sort((x, y) => y[1] - x[1]).map(([k, n]) => [k, (n / DEPLOYS).toFixed(2)]);
    print(table(`SQL statements per deploy, deployAgent → ACTIVE (${(sum(sql.values()) / DEPLOYS).toFixed(1)} in all; BEGIN and COMMIT are transactions)`, ['statement', 'per deploy'], sqlRows));
    const serverTop = [...p.serverFrames].sort((x, y) => y[1] - x[1]).slice(0, 12);
    print(table('Where the emulated API server spent its time during the product\u2019s deploys (its nearest own frame), ms of CPU per deploy', ['frame', 'ms per deploy'], serverTop.map(([k, ms]) => [k, (ms / DEPLOYS).toFixed(2)])));
    const top = [...p.frames].sort((x, y) => y[1] - x[1]).slice(0, 25);
    print(table('Top frames of the product’s own code (apps/api, packages/domain) on the stack, ms of CPU per deploy (synchronous stacks: time after an await counts where it resumes)', ['frame', 'ms per deploy'], top.map(([k, ms]) => [k, (ms / DEPLOYS).toFixed(2)])));
  }

  const failures: string[] = [];
  if (ratio50 > BUDGET_P50_RATIO) failures.push(`deploy p50 is ${ratio50.toFixed(2)}× the bare apply's (budget ${BUDGET_P50_RATIO}×)`);
  if (productPerDeploy > barePerDeploy) failures.push(`a deploy makes ${productPerDeploy.toFixed(2)} Kubernetes API requests, the bare apply ${barePerDeploy.toFixed(2)} (budget: no more)`);
  print(failures.length ? `\nOVER BUDGET: ${failures.join('; ')}.` : `\nWithin budget: p50 ${ratio50.toFixed(2)}× ≤ ${BUDGET_P50_RATIO}×, requests ${productPerDeploy.toFixed(2)} ≤ ${barePerDeploy.toFixed(2)}.`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (failures.length) process.exitCode = 1;
} finally {
  await poller?.end();
  await runtime.close();
  await cluster.close();
  await database?.drop();
}
