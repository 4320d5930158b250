// SelfConfig bench, run by `npm run bench` (the API workspace runs every
// bench/api/*.bench.ts).
//
// Budget (the target; the only reason this file exits non-zero): the SelfConfig
// controller's own Kubernetes API requests per request, counted by its client
// (`kubernetesSelfConfigCluster(...).calls`, list and watch aside: they are opened once, not per
// request), on one request at a time: ≤ 3.
//
// 1. Latency, side by side in one run, alternating, on two agents deployed through the product
//    (selfConfigure on), each in a Namespace of its own:
//    - an OpenClawSelfConfig created (a skill and an env var added, those of the change before
//      removed, so the instance stays within its CRD's limits) → Applied, and → the gateway running
//      the generation the apply produced (the instance's status.running.generation reaching it,
//      Ready): the controller applies as openclaw-selfconfig, the instance reconciler renders and
//      rolls the gateway (SC10);
//    - the same spec change as a plain `kubectl patch` of the instance (the request kubectl sends: a
//      merge patch by field manager kubectl-patch, through client-node) → the gateway running the
//      generation it produced.
//    p50/p95 of each, the ratios, the requests per change in each agent's Kubernetes namespace (all
//    components: the controller, the reconciler, the worker), by verb and resource, and the
//    controller's and the reconciler's own counts. Then a check that the gateways run the changes
//    (their containers' env and skills file, as the kubelet simulator started them).
// 2. Throughput: 200 changes over 20 deployed instances each way. SelfConfig requests created at
//    once, until every one is terminal (requests per second; the controller's requests per
//    request), and until every gateway runs its instance's last generation. Beside it, the floor:
//    the same changes as kubectl patches (read, merge patch with a resourceVersion precondition),
//    4 at a time, on 20 other deployed instances, until answered and until every gateway runs its
//    last generation. (Before the instance reconciler, the floor was a GET and an apply on
//    instances nothing rendered; with every change now rolling a gateway, that floor no longer
//    compares like with like.)
//
// The runtime's own SelfConfig controller is stopped and one with a client of its own runs in its
// place (same options but the resync, set to an hour like the reconciler's, so none falls in the
// run). Requests go through a recording proxy (see deploy.bench.ts); the kubelet simulator and the
// bench's watches talk to the server directly. OCC_BENCH_SELFCONFIG_CHANGES sets the changes of
// each kind (50), OCC_BENCH_SELFCONFIG_REQUESTS the throughput's requests (200). OCC_BENCH_PROFILE=1
// adds a CPU profile of each measured change by who spent the time (it slows the product: that
// run's ratios are not the measurement). PostgreSQL: a scratch database beside DATABASE_URL's
// (dropped after) when it is set, else embedded PGlite.

import { performance as loop } from 'node:perf_hooks';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { agentInstanceName } from '@occ/domain/kubernetes-names';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { kubernetesSelfConfigCluster } from '../../apps/api/src/selfconfig/cluster.ts';
import { createSelfConfigController } from '../../apps/api/src/selfconfig/controller.ts';
import { grantAccess } from '../../apps/api/src/services/access-grants.ts';
import { createAgent } from '../../apps/api/src/services/agents.ts';
import { createConfiguration } from '../../apps/api/src/services/configurations.ts';
import { deployAgent } from '../../apps/api/src/services/deploy-agent.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { createSecret } from '../../apps/api/src/services/secrets.ts';
import { add, benchCluster, type KubeRequest, median, openProfiler, percentile, readyNamespace, scratchDatabase, sleep, sum, summarizeProfiles, table, tally, untilLeading, watchCollection, watchObject } from './kube-support.ts';

const CHANGES = Number(process.env.OCC_BENCH_SELFCONFIG_CHANGES ?? 50);
const REQUESTS = Number(process.env.OCC_BENCH_SELFCONFIG_REQUESTS ?? 200);
const INSTANCES = 20;
const BUDGET_REQUESTS = 3;
const PROFILE = process.env.OCC_BENCH_PROFILE === '1';
const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const INSTANCES_PLURAL = 'openclawinstances';
const REQUESTS_PLURAL = 'openclawselfconfigs';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const TERMINAL = new Set(['Applied', 'Failed', 'Denied', 'RolledBack']);

type Instance = {
  metadata: { name: string; namespace: string; generation?: number; resourceVersion?: string };
  spec?: { skills?: string[]; env?: Array<Record<string, unknown>> };
  status?: { observedGeneration?: number; running?: { generation?: number | null } | null; conditions?: Array<{ type: string; status: string }> };
};
type Request = { metadata: { name: string; resourceVersion?: string }; status?: { phase?: string; message?: string } };

/** A SelfConfig change: a skill and an env var added, those of the change before (if any) removed. */
const change = (i: number, before: number | null = null) => ({
  addSkills: [`skill-${i}`],
  addEnvVars: [{ name: `VAR_${i}`, value: String(i) }],
  ...(before === null ? {} : { removeSkills: [`skill-${before}`], removeEnvVars: [`VAR_${before}`] }),
});
const ready = (o: Instance) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
/** The gateway runs generation `g` (or later) of the instance, Ready. */
const running = (g: number) => (o: Instance) => (o.status?.running?.generation ?? 0) >= g && ready(o);


interface Sample {
  ms: number;
  /** Process CPU while it ran (the emulated cluster runs in this process too) and the event loop's utilization. */
  cpuMs: number;
  busy: number;
  /** Offsets from the change's start. */
  marks: Record<string, number>;
  /** Each state of the instance its watch delivered, at its offset. */
  instanceLog: Array<{ at: number; what: string }>;
  requests: Map<string, number>;
  controller: Record<string, number>;
  reconciler: Record<string, number>;
  log: KubeRequest[];
  t0: number;
}

const delta = (now: Record<string, number>, before: Record<string, number>, skip: string[] = []) => {
  const out: Record<string, number> = {};
  for (const [verb, n] of Object.entries(now)) if (!skip.includes(verb) && n - (before[verb] ?? 0) > 0) out[verb] = n - (before[verb] ?? 0);
  return out;
};

const begun = Date.now();
const progress = (what: string) => process.stderr.write(`selfconfig bench: ${what} (${((Date.now() - begun) / 1000).toFixed(1)} s)\n`);
const bench = await benchCluster('selfconfig');
const { kubelet, proxy, dir, kubeconfig, direct, proxied } = bench;
const database = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, 'selfconfig') : null;
const runtime = await startRuntime({
  env: { dataDir: dir, databaseUrl: database?.url ?? null, kubeconfig, gatewayReadySeconds: 60 },
  logger: createLogger(() => {}, 'error'),
  inMemory: true,
  migrate: migrateDatabase,
  instanceResyncMs: 3_600_000,
});
progress('runtime started');
const cluster = kubernetesSelfConfigCluster(proxied);
const controller = createSelfConfigController({
  cluster,
  db: runtime.db,
  logger: createLogger(() => {}, 'error'),
  resyncMs: 3_600_000,
  isLeader: () => runtime.leader.isLeader(),
});
try {
  const deps = runtime.deps;
  const custom = direct.makeApiClient(CustomObjectsApi);
  const counted = proxied.makeApiClient(CustomObjectsApi);
  const boot: Actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'bench' };

  await untilLeading(runtime, [() => runtime.instances.running(), () => runtime.selfConfig.running()]);
  await runtime.selfConfig.stop();
  controller.start();

  /** A Namespace with `count` agents (selfConfigure on), deployed through the product and ACTIVE. */
  async function agents(name: string, count: number): Promise<{ k8sNs: string; instances: string[] }> {
    const row = await readyNamespace(deps, boot, `${name}-${Date.now()}`);
    const ns = { id: row.id };
    const token = await createSecret(deps, boot, { namespaceId: ns.id, name: 'telegram', value: 'tg-bench' });
    const model = await createSecret(deps, boot, { namespaceId: ns.id, name: 'model', value: 'sk-bench' });
    const cfg = await createConfiguration(deps, boot, {
      namespaceId: ns.id,
      name: 'bench',
      values: { skills: ['base'], channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
      secretBindings: [{ envName: 'TELEGRAM_TOKEN', source: { id: token.id } }],
    });
    const revisions: string[] = [];
    const instances: string[] = [];
    for (let i = 0; i < count; i++) {
      const agent = await createAgent(deps, boot, {
        namespaceId: ns.id,
        name: `agent-${i}`,
        configurationId: cfg.id,
        harnessAuth: { provider: 'openai', source: { id: model.id } },
        selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars'] },
      });
      for (const s of [token, model]) {
        await grantAccess(deps, boot, { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: s.id } });
      }
      revisions.push((await deployAgent(deps, boot, { agentId: agent.id })).id);
      instances.push(agentInstanceName(agent.id));
    }
    for (const until = Date.now() + 180_000; ; ) {
      const states = await deps.db.agentRevision.findMany({ where: { id: { in: revisions } }, select: { state: true, failureCode: true } });
      const failed = states.find((s) => s.state === 'FAILED');
      if (failed) throw new Error(`deploy failed: ${failed.failureCode}`);
      if (states.every((s) => s.state === 'ACTIVE')) break;
      if (Date.now() > until) throw new Error('agents not ACTIVE after 180 s');
      await sleep(50);
    }
    return { k8sNs: row.k8sName, instances };
  }

  async function quiesce(): Promise<void> {
    await runtime.worker.drain();
    await Promise.all([runtime.instances.idle(), controller.idle()]);
    await sleep(30);
    await Promise.all([runtime.instances.idle(), controller.idle()]);
  }

  const readInstance = (namespace: string, name: string) => custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: INSTANCES_PLURAL, namespace, name }) as Promise<Instance>;
  const instancesPath = (ns: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${INSTANCES_PLURAL}`;

  const sc = await agents('bench-sc', 1);
  const kp = await agents('bench-patch', 1);
  progress('two agents deployed');
  const profiler = PROFILE ? await openProfiler() : null;
  type Profile = Awaited<ReturnType<NonNullable<typeof profiler>['stop']>>;
  const profiles = { selfconfig: [] as Profile[], patch: [] as Profile[] };

  /** Watches the instance from now: marks when its spec, rendering and Ready pass generation g0. */
  async function watchChange(k8sNs: string, name: string, marks: Record<string, number>, instanceLog: Array<{ at: number; what: string }>) {
    const live = await readInstance(k8sNs, name);
    const g0 = live.metadata.generation ?? 1;
    const watch = await watchObject<Instance>(direct, instancesPath(k8sNs), name, running(g0 + 1), {
      resourceVersion: live.metadata.resourceVersion!,
      timeoutMs: 120_000,
      onEvent(o, at) {
        const st = o.status as { phase?: string; running?: { generation?: number | null; readyReplicas?: number } | null; conditions?: Array<{ type: string; status: string; reason?: string }> } | undefined;
        const r = st?.conditions?.find((c) => c.type === 'Ready');
        instanceLog.push({ at, what: `· instance: generation ${o.metadata.generation ?? '?'}, status ${st?.phase ?? '-'}, Ready ${r?.status ?? '-'} ${r?.reason ?? ''}, running ${st?.running ? `generation ${st.running.generation ?? 'older'} × ${st.running.readyReplicas ?? 0}` : '-'}` });
        if ((o.metadata.generation ?? 0) > g0) marks['instance spec changed'] ??= at;
        if ((o.status?.observedGeneration ?? 0) > g0) marks['status: generation rendered'] ??= at;
      },
    });
    return { live, g0, watch };
  }

  // Each change adds a skill and an env var and removes the ones the change before added, so the
  // instance stays within the CRD's limits (skills: 20 items) however many changes run.
  const previous = { selfconfig: null as number | null, patch: null as number | null };

  async function selfConfigOnce(i: number): Promise<Sample> {
    await quiesce();
    const marks: Record<string, number> = {};
    const instanceLog: Array<{ at: number; what: string }> = [];
    const name = sc.instances[0]!;
    const { g0, watch } = await watchChange(sc.k8sNs, name, marks, instanceLog);
    const requestName = `change-${i}`;
    const requestWatch = await watchObject<Request>(direct, `/apis/${GROUP}/${VERSION}/namespaces/${sc.k8sNs}/${REQUESTS_PLURAL}`, requestName, (r) => TERMINAL.has(r.status?.phase ?? ''), {
      timeoutMs: 120_000,
      onEvent(r, at) {
        if (r.status?.phase === 'Pending') marks['request Pending'] ??= at;
      },
    });
    const from = proxy.log.length;
    const controllerBefore = { ...cluster.calls };
    const reconcilerBefore = { ...runtime.instances.calls };
    await profiler?.start();
    const cpu = process.cpuUsage();
    const elu = loop.eventLoopUtilization();
    const t0 = performance.now();
    await counted.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: REQUESTS_PLURAL,
      namespace: sc.k8sNs,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name: requestName }, spec: { instanceRef: name, ...change(i, previous.selfconfig) } },
    });
    previous.selfconfig = i;
    marks['request created'] = performance.now();
    const terminal = await requestWatch.done;
    marks['request Applied'] = terminal.at;
    if (terminal.object.status?.phase !== 'Applied') {
      watch.stop();
      throw new Error(`${requestName} ended ${terminal.object.status?.phase}: ${terminal.object.status?.message ?? ''}`);
    }
    const done = await watch.done;
    marks['status: Ready at it'] = done.at;
    const ms = done.at - t0;
    const used = process.cpuUsage(cpu);
    const busy = loop.eventLoopUtilization(elu).utilization;
    if (profiler) profiles.selfconfig.push(await profiler.stop());
    if (done.object.metadata.generation !== g0 + 1) throw new Error(`the apply made generation ${done.object.metadata.generation}, not ${g0 + 1}`);
    await quiesce();
    for (const k of Object.keys(marks)) marks[k] = marks[k]! - t0;
    return {
      ms,
      cpuMs: (used.user + used.system) / 1000,
      busy,
      marks,
      instanceLog: instanceLog.map((e) => ({ at: e.at - t0, what: e.what })),
      requests: tally(proxy.log, from, proxy.log.length, sc.k8sNs),
      controller: delta(cluster.calls, controllerBefore, ['list', 'watch']),
      reconciler: delta(runtime.instances.calls, reconcilerBefore, ['list', 'watch']),
      log: proxy.log.slice(from).filter((r) => r.namespace === sc.k8sNs),
      t0,
    };
  }

  async function patchOnce(i: number): Promise<Sample> {
    await quiesce();
    const marks: Record<string, number> = {};
    const instanceLog: Array<{ at: number; what: string }> = [];
    const name = kp.instances[0]!;
    const { live, g0, watch } = await watchChange(kp.k8sNs, name, marks, instanceLog);
    // A merge patch replaces a list whole: the change is the lists as they are, less the items the
    // change before added, plus the new ones.
    const before = previous.patch;
    const body = {
      spec: {
        skills: [...(live.spec?.skills ?? []).filter((k) => k !== `skill-${before}`), `skill-${i}`],
        env: [...(live.spec?.env ?? []).filter((e) => e.name !== `VAR_${before}`), { name: `VAR_${i}`, value: String(i) }],
      },
    };
    previous.patch = i;
    const from = proxy.log.length;
    const reconcilerBefore = { ...runtime.instances.calls };
    await profiler?.start();
    const cpu = process.cpuUsage();
    const elu = loop.eventLoopUtilization();
    const t0 = performance.now();
    const patched = (await counted.patchNamespacedCustomObject({ group: GROUP, version: VERSION, plural: INSTANCES_PLURAL, namespace: kp.k8sNs, name, body, fieldManager: 'kubectl-patch' }, mergePatch)) as Instance;
    marks['instance patched'] = performance.now();
    const done = await watch.done;
    marks['status: Ready at it'] = done.at;
    const ms = done.at - t0;
    const used = process.cpuUsage(cpu);
    const busy = loop.eventLoopUtilization(elu).utilization;
    if (profiler) profiles.patch.push(await profiler.stop());
    if (patched.metadata.generation !== g0 + 1) throw new Error(`the patch made generation ${patched.metadata.generation}, not ${g0 + 1}`);
    await quiesce();
    for (const k of Object.keys(marks)) marks[k] = marks[k]! - t0;
    return {
      ms,
      cpuMs: (used.user + used.system) / 1000,
      busy,
      marks,
      instanceLog: instanceLog.map((e) => ({ at: e.at - t0, what: e.what })),
      requests: tally(proxy.log, from, proxy.log.length, kp.k8sNs),
      controller: {},
      reconciler: delta(runtime.instances.calls, reconcilerBefore, ['list', 'watch']),
      log: proxy.log.slice(from).filter((r) => r.namespace === kp.k8sNs),
      t0,
    };
  }

  // One warm-up of each, then alternating rounds so that machine load hits both alike.
  await selfConfigOnce(9999);
  await patchOnce(9999);
  profiles.selfconfig.length = profiles.patch.length = 0;
  const viaSelfConfig: Sample[] = [];
  const viaPatch: Sample[] = [];
  const started = Date.now();
  for (let i = 0; i < CHANGES; i++) {
    viaSelfConfig.push(await selfConfigOnce(i));
    viaPatch.push(await patchOnce(i));
    if ((i + 1) % 10 === 0) process.stderr.write(`selfconfig bench: ${i + 1}/${CHANGES} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }

  // SC10: the gateways run what the changes asked for, as the kubelet simulator started them.
  const last = CHANGES - 1;
  const runs: string[] = [];
  for (const [label, agent] of [['SelfConfig', sc], ['kubectl patch', kp]] as const) {
    const gateway = kubelet.containers(agent.k8sNs).filter((c) => c.container === 'gateway');
    const newest = gateway.at(-1);
    const skills = Object.entries(newest?.files ?? {}).find(([file]) => file.endsWith('skills.json'))?.[1] ?? '';
    const removed = last > 0 && (newest?.env[`VAR_${last - 1}`] !== undefined || skills.includes(`"skill-${last - 1}"`));
    const ok = newest !== undefined && newest.env[`VAR_${last}`] === String(last) && skills.includes(`skill-${last}`) && !removed && newest.env.TELEGRAM_TOKEN === 'tg-bench';
    runs.push(
      `${label}: ${ok ? 'yes' : 'NO'} (env VAR_${last} ${newest?.env[`VAR_${last}`] ?? 'absent'}, the change before's ${removed ? 'still there' : 'gone'}, TELEGRAM_TOKEN ${newest?.env.TELEGRAM_TOKEN ? 'delivered' : 'absent'}, skills.json ${skills.includes(`skill-${last}`) ? `holds skill-${last}` : 'without it'})`,
    );
  }

  // 2. Throughput, on two sets of agents (the floor's instances carry kubectl-patch's fields from
  // then on, which the reconciler reports as changed outside the product). The controller's run
  // goes first: the emulated server's work per write grows with the objects it holds (its garbage
  // collector looks at every one), so the run that comes second works against a larger store.
  progress('latency measured');
  const fl = await agents('bench-floor', INSTANCES);
  const tp = await agents('bench-tp', INSTANCES);
  await quiesce();
  progress(`${2 * INSTANCES} agents deployed`);

  /** Resolves (with the time since `since`) once every gateway of the namespace runs its instance's last generation, Ready. */
  async function convergence(k8sNs: string): Promise<{ since(t: number): Promise<number>; stop(): void }> {
    const instances = new Map<string, Instance>();
    let wake: (() => void) | null = null;
    const watch = await watchCollection<Instance>(direct, instancesPath(k8sNs), (type, o) => {
      if (type === 'DELETED') instances.delete(o.metadata.name);
      else instances.set(o.metadata.name, o);
      wake?.();
    });
    return {
      async since(t) {
        const until = Date.now() + 600_000;
        while (![...instances.values()].every((o) => running(o.metadata.generation ?? 1)(o))) {
          if (Date.now() > until) throw new Error('gateways not at their last generation after 600 s');
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, 1000);
          });
        }
        watch.stop();
        return performance.now() - t;
      },
      stop: () => watch.stop(),
    };
  }

  // Watched, not listed again and again: 200 requests with their managedFields are a large list.
  const tpConverged = await convergence(tp.k8sNs);
  const phaseOf = new Map<string, string>();
  let wakeTerminal: (() => void) | null = null;
  const requestsWatch = await watchCollection<Request>(direct, `/apis/${GROUP}/${VERSION}/namespaces/${tp.k8sNs}/${REQUESTS_PLURAL}`, (type, r) => {
    if (type !== 'DELETED') phaseOf.set(r.metadata.name, r.status?.phase ?? 'none');
    wakeTerminal?.();
  });
  const terminalCount = () => [...phaseOf.values()].filter((p) => TERMINAL.has(p)).length;
  const controllerBefore = { ...cluster.calls };
  const reconcilerBefore = { ...runtime.instances.calls };
  const tpFrom = proxy.log.length;
  await profiler?.start();
  const tpCpu = process.cpuUsage();
  const tpElu = loop.eventLoopUtilization();
  const started2 = performance.now();
  await Promise.all(
    Array.from({ length: REQUESTS }, (_, r) =>
      custom.createNamespacedCustomObject({
        group: GROUP, version: VERSION, plural: REQUESTS_PLURAL, namespace: tp.k8sNs,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name: `req-${r}` }, spec: { instanceRef: tp.instances[r % INSTANCES], ...change(r) } },
      }),
    ),
  );
  for (const until = Date.now() + 600_000; terminalCount() < REQUESTS; ) {
    if (Date.now() > until) throw new Error(`requests not terminal after 600 s: ${terminalCount()} of ${REQUESTS}`);
    await new Promise<void>((r) => {
      wakeTerminal = r;
      setTimeout(r, 1000);
    });
  }
  const terminalMs = performance.now() - started2;
  requestsWatch.stop();
  const phases = new Map<string, number>();
  for (const p of phaseOf.values()) phases.set(p, (phases.get(p) ?? 0) + 1);
  const tpUsed = process.cpuUsage(tpCpu);
  const tpBusy = loop.eventLoopUtilization(tpElu).utilization;
  const tpProfile = profiler ? await profiler.stop() : null;
  const convergedMs = await tpConverged.since(started2);
  await quiesce();
  const tpController = delta(cluster.calls, controllerBefore, ['list', 'watch']);
  const tpReconciler = delta(runtime.instances.calls, reconcilerBefore, ['list', 'watch']);
  const tpRequests = tally(proxy.log, tpFrom, proxy.log.length, tp.k8sNs);

  // The floor: the same changes as kubectl patches (read, then a merge patch of the lists with a
  // resourceVersion precondition, again on a conflict), 4 at a time, on other deployed instances.
  const flConverged = await convergence(fl.k8sNs);
  const flFrom = proxy.log.length;
  const flReconcilerBefore = { ...runtime.instances.calls };
  const floorStart = performance.now();
  let next = 0;
  let floorConflicts = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let r = next++; r < REQUESTS; r = next++) {
        const name = fl.instances[r % INSTANCES]!;
        const c = change(r);
        for (;;) {
          const live = (await counted.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: INSTANCES_PLURAL, namespace: fl.k8sNs, name })) as Instance;
          const body = { metadata: { resourceVersion: live.metadata.resourceVersion }, spec: { skills: [...(live.spec?.skills ?? []), ...c.addSkills], env: [...(live.spec?.env ?? []), ...c.addEnvVars] } };
          try {
            await counted.patchNamespacedCustomObject({ group: GROUP, version: VERSION, plural: INSTANCES_PLURAL, namespace: fl.k8sNs, name, body, fieldManager: 'kubectl-patch' }, mergePatch);
            break;
          } catch (error) {
            if ((error as { code?: number }).code !== 409) throw error;
            floorConflicts++;
          }
        }
      }
    }),
  );
  const floorMs = performance.now() - floorStart;
  const floorConvergedMs = await flConverged.since(floorStart);
  await quiesce();
  const flRequests = tally(proxy.log, flFrom, proxy.log.length, fl.k8sNs);
  const flReconciler = delta(runtime.instances.calls, flReconcilerBefore, ['list', 'watch']);

  // The report.
  const out: string[] = [];
  const print = (s: string) => out.push(s);
  const f = (x: number) => `${x.toFixed(1)} ms`;
  const cpuOf = (samples: Sample[]) => `${f(median(samples.map((x) => x.cpuMs)))}, ${(median(samples.map((x) => x.busy)) * 100).toFixed(0)}%`;
  const per = (samples: Sample[], pick: (s: Sample) => Record<string, number> | Map<string, number>) => {
    const total = new Map<string, number>();
    for (const s of samples) {
      const m = pick(s);
      add(total, m instanceof Map ? m : new Map(Object.entries(m)));
    }
    return total;
  };
  const sMs = viaSelfConfig.map((s) => s.ms);
  const pMs = viaPatch.map((s) => s.ms);
  const applied = viaSelfConfig.map((s) => s.marks['request Applied']!);
  const patchedAt = viaPatch.map((s) => s.marks['instance patched']!);
  const sRequests = per(viaSelfConfig, (s) => s.requests);
  const pRequests = per(viaPatch, (s) => s.requests);
  const controllerCalls = per(viaSelfConfig, (s) => s.controller);
  const controllerPerRequest = sum(controllerCalls.values()) / CHANGES;
  print(
    table(
      `SelfConfig on the embedded cluster, ${CHANGES} changes each, alternating, ${database ? 'PostgreSQL' : 'PGlite'} (${new Date().toISOString()})`,
      ['path', 'p50', 'p95', 'requests per change (its namespace)', 'process CPU per change (p50), event loop busy'],
      [
        ['OpenClawSelfConfig created → Applied', f(median(applied)), f(percentile(applied, 95)), ''],
        ['kubectl patch (merge patch) → answered', f(median(patchedAt)), f(percentile(patchedAt, 95)), ''],
        ['ratio Applied / patch answered', `${(median(applied) / median(patchedAt)).toFixed(2)}×`, `${(percentile(applied, 95) / percentile(patchedAt, 95)).toFixed(2)}×`, ''],
        ['OpenClawSelfConfig created → gateway runs its generation', f(median(sMs)), f(percentile(sMs, 95)), (sum(sRequests.values()) / CHANGES).toFixed(2), cpuOf(viaSelfConfig)],
        ['kubectl patch → gateway runs its generation', f(median(pMs)), f(percentile(pMs, 95)), (sum(pRequests.values()) / CHANGES).toFixed(2), cpuOf(viaPatch)],
        [
          'ratio SelfConfig / kubectl patch',
          `${(median(sMs) / median(pMs)).toFixed(2)}×`,
          `${(percentile(sMs, 95) / percentile(pMs, 95)).toFixed(2)}×`,
          `${(sum(sRequests.values()) / sum(pRequests.values())).toFixed(2)}×`,
          `${(median(viaSelfConfig.map((x) => x.cpuMs)) / median(viaPatch.map((x) => x.cpuMs))).toFixed(2)}×`,
        ],
      ],
    ),
  );
  const stepRows = (label: string, samples: Sample[], names: string[]) =>
    names.flatMap((name) => {
      const seen = samples.map((s) => s.marks[name]).filter((x): x is number => x !== undefined);
      return seen.length ? [[`${label}: ${name}`, `${seen.length}/${samples.length}`, f(median(seen))]] : [];
    });
  print(
    table('When each step was first seen (watches of the request and the instance), median ms since the create or the patch', ['step', 'seen in', 'at (p50)'], [
      ...stepRows('SelfConfig', viaSelfConfig, ['request created', 'request Pending', 'instance spec changed', 'request Applied', 'status: generation rendered', 'status: Ready at it']),
      ...stepRows('kubectl patch', viaPatch, ['instance patched', 'instance spec changed', 'status: generation rendered', 'status: Ready at it']),
    ]),
  );
  const keys = [...new Set([...sRequests.keys(), ...pRequests.keys()])].sort();
  print(
    table(
      'Kubernetes API requests per change in the agent\u2019s namespace, by verb and resource (every component: the create or patch itself, the controller, the reconciler, the worker)',
      ['request', 'SelfConfig', 'kubectl patch'],
      [...keys.map((k) => [k, ((sRequests.get(k) ?? 0) / CHANGES).toFixed(2), ((pRequests.get(k) ?? 0) / CHANGES).toFixed(2)]), ['total', (sum(sRequests.values()) / CHANGES).toFixed(2), (sum(pRequests.values()) / CHANGES).toFixed(2)]],
    ),
  );
  const fmt = (m: Map<string, number>, n: number) => [...m].map(([v, c]) => `${v} ${(c / n).toFixed(2)}`).join(', ') || 'none';
  print(`\nThe SelfConfig controller's own requests per request (its client's count, list and watch aside): ${controllerPerRequest.toFixed(2)} (${fmt(controllerCalls, CHANGES)}); budget ${BUDGET_REQUESTS}.`);
  print(`The instance reconciler's own requests per change (runtime.instances.calls): SelfConfig ${fmt(per(viaSelfConfig, (s) => s.reconciler), CHANGES)}; kubectl patch ${fmt(per(viaPatch, (s) => s.reconciler), CHANGES)}.`);
  print(`The gateways run the last change (SC10): ${runs.join('; ')}.`);

  for (const [label, samples] of [['SelfConfig', viaSelfConfig], ['kubectl patch', viaPatch]] as const) {
    const mid = [...samples].sort((a, b) => a.ms - b.ms)[Math.floor(samples.length / 2)]!;
    const events: Array<[number, string]> = [
      ...Object.entries(mid.marks).map(([name, at]) => [at, `— ${name}`] as [number, string]),
      ...mid.log.map((r) => [r.at - mid.t0, `${r.verb} ${r.resource}`] as [number, string]),
      ...mid.instanceLog.map((e) => [e.at, e.what] as [number, string]),
    ].sort((a, b) => a[0] - b[0]);
    print(`\nThe median ${label} change (${f(mid.ms)}), in order (ms since the start): its requests in the agent's namespace (those after Ready are its aftermath), the steps (—) and each state of the instance a watch saw (·):`);
    for (const [at, what] of events) print(`  ${at.toFixed(1).padStart(8)}  ${what}`);
  }

  if (profiler) {
    profiler.close();
    const s = summarizeProfiles(profiles.selfconfig);
    const p = summarizeProfiles(profiles.patch);
    const t = summarizeProfiles(tpProfile ? [tpProfile] : []);
    const areas = [...new Set([...s.areas.keys(), ...p.areas.keys(), ...t.areas.keys()])].sort((x, y) => (s.areas.get(y) ?? 0) - (s.areas.get(x) ?? 0));
    print(
      table(
        'CPU profile (OCC_BENCH_PROFILE=1; it slows both paths, so this run\u2019s ratios are not the measurement): ms of CPU per change until the gateway runs it, and per throughput request until all are terminal, by who spent it',
        ['area', 'SelfConfig', 'kubectl patch', 'throughput, per request'],
        [
          ...areas.map((a) => [a, ((s.areas.get(a) ?? 0) / CHANGES).toFixed(1), ((p.areas.get(a) ?? 0) / CHANGES).toFixed(1), ((t.areas.get(a) ?? 0) / REQUESTS).toFixed(1)]),
          ['total', (s.totalMs / CHANGES).toFixed(1), (p.totalMs / CHANGES).toFixed(1), (t.totalMs / REQUESTS).toFixed(1)],
        ],
      ),
    );
    const tpTop = [...t.frames].sort((x, y) => y[1] - x[1]).slice(0, 15);
    print(table('Top frames of the product\u2019s own code on the stack during the throughput run, ms of CPU per request', ['frame', 'ms per request'], tpTop.map(([k, ms]) => [k, (ms / REQUESTS).toFixed(2)])));
    const serverTop = [...t.serverFrames].sort((x, y) => y[1] - x[1]).slice(0, 12);
    print(table('Where the emulated API server spent its time in the throughput run (its nearest own frame), ms of CPU per request', ['frame', 'ms per request'], serverTop.map(([k, ms]) => [k, (ms / REQUESTS).toFixed(2)])));
    const top = [...s.frames].sort((x, y) => y[1] - x[1]).slice(0, 20);
    print(table('Top frames of the product\u2019s own code on the stack during a SelfConfig change, ms of CPU per change', ['frame', 'ms per change'], top.map(([k, ms]) => [k, (ms / CHANGES).toFixed(2)])));
  }

  const rps = (REQUESTS / terminalMs) * 1000;
  const floorRps = (REQUESTS / floorMs) * 1000;
  const tpControllerTotal = sum(Object.values(tpController));
  const verbs = (m: Record<string, number>) => Object.entries(m).map(([v, n]) => `${v} ${(n / REQUESTS).toFixed(2)}`).join(', ') || 'none';
  print(
    table(
      `Throughput: ${REQUESTS} changes over ${INSTANCES} deployed instances each; phases ${JSON.stringify(Object.fromEntries(phases))}; kubectl patch conflicts retried: ${floorConflicts}`,
      ['path', 'changes/s until answered', 'until every gateway runs its last generation', 'requests per change (its namespace)', 'the reconciler\u2019s per change'],
      [
        [`SelfConfig: created at once, until every one is terminal`, `${rps.toFixed(1)} (${terminalMs.toFixed(0)} ms)`, `${convergedMs.toFixed(0)} ms`, (sum(tpRequests.values()) / REQUESTS).toFixed(2), verbs(tpReconciler)],
        [`kubectl patch: read and merge patch, 4 at a time`, `${floorRps.toFixed(1)} (${floorMs.toFixed(0)} ms)`, `${floorConvergedMs.toFixed(0)} ms`, (sum(flRequests.values()) / REQUESTS).toFixed(2), verbs(flReconciler)],
        ['ratio SelfConfig / kubectl patch', `${(rps / floorRps).toFixed(2)}× the rate`, `${(convergedMs / floorConvergedMs).toFixed(2)}× the time`, `${(sum(tpRequests.values()) / sum(flRequests.values())).toFixed(2)}×`, ''],
      ],
    ),
  );
  print(`The SelfConfig controller's requests per request in the throughput run: ${(tpControllerTotal / REQUESTS).toFixed(2)} (${verbs(tpController)}; conflicts re-planned included). Process CPU until every request was terminal: ${((tpUsed.user + tpUsed.system) / 1000).toFixed(0)} ms, the event loop ${(tpBusy * 100).toFixed(0)}% busy.`);

  const failures: string[] = [];
  if (controllerPerRequest > BUDGET_REQUESTS) failures.push(`the SelfConfig controller makes ${controllerPerRequest.toFixed(2)} Kubernetes API requests per request (budget ${BUDGET_REQUESTS})`);
  print(failures.length ? `\nOVER BUDGET: ${failures.join('; ')}.` : `\nWithin budget: ${controllerPerRequest.toFixed(2)} ≤ ${BUDGET_REQUESTS} requests per request.`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (failures.length) process.exitCode = 1;
} finally {
  await controller.stop();
  await runtime.close();
  await bench.close();
  await database?.drop();
}
