// Rotation bench (V4: a rotation rolled out in batches against bare applies), run by
// `npm run bench` (the API workspace runs every bench/api/*.bench.ts).
//
// Budgets (the targets; the only reasons this file exits non-zero):
//   - updateSecret → every consumer's revision ACTIVE on the new version, through a V4 rollout
//     (AUTOMATIC, batches of OCC_BENCH_ROTATION_BATCH, no pause), ≤ 1.5 × the bare loop's time for
//     the same Deployments in batches of the same size, measured in this run;
//   - Kubernetes API requests per consumer in the agents' namespace ≤ 4 × the bare loop's (a
//     rollout is ordinary deploys: the instance apply and its dry run, the reconciler's children
//     and status, where the bare loop applies one Deployment; deploy.bench.ts holds the per-deploy
//     count to the bare apply of every object);
//   - the canary: version 1's value (random) is in no Kubernetes object and no database row once
//     version 1 is retired (V3, with the retention at 0; S3).
//
// Setup, not measured: one namespace, one secret (version 1 = the canary) bound by one
// configuration to OCC_BENCH_ROTATION_CONSUMERS (200) agents, created through the services, each
// deployed until ACTIVE; the secret's policy AUTOMATIC, batchSize OCC_BENCH_ROTATION_BATCH (20),
// pauseSeconds 0, readySeconds 600, no approval.
// The product's path: updateSecret (the new version's object; the rollout opened with the commit)
// → the rollout worker, batch by batch: ordinary deployAgents as the rotator, each batch Ready
// before the next → until every agent's ACTIVE revision holds the new version (read from the
// database every 50 ms).
// The bare path, after it, in a Kubernetes namespace of its own: the product's gateway Deployments
// as they were before the rotation (copied with their ConfigMaps, ServiceAccounts and the version
// objects' names, with other values; another installation id, so the product's reconciler never
// sees them) rolled out first, not measured; then the same Deployments as the product left them
// after the rotation, applied by SSA with client-node in batches of the same size, each batch
// waited for until rolled out (one watch of the namespace's Deployments, opened with the run).
// One rotation each, one after the other (a rollout of 200 agents cannot alternate): the bare
// path runs against the larger store.
//
// Then V3 retirement the way the leader does it (runtime.instances.retireSecretVersions, its
// resync's sweep, with OCC_SECRET_VERSION_RETENTION_SECONDS at 0), and the canary is searched in
// every object of every listable resource the API server serves (by discovery) and in every row of
// every table (apps/api/src/test/canary.ts; PostgreSQL only).
//
// Requests are counted by the pass-through proxy (kube-support.ts) by the namespace in their path,
// from updateSecret until the product is quiet again, and from the bare loop's first apply to its
// last rollout; cluster-wide ones (the caches') are reported apart. PostgreSQL: a scratch database
// beside DATABASE_URL's (dropped after) when it is set, else embedded PGlite (no row search).

import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import pg from 'pg';
import { AppsV1Api, CoreV1Api, KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { grantAccess } from '../../apps/api/src/services/access-grants.ts';
import { createAgent } from '../../apps/api/src/services/agents.ts';
import { createConfiguration } from '../../apps/api/src/services/configurations.ts';
import { deployAgent } from '../../apps/api/src/services/deploy-agent.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { setSecretRotationPolicy } from '../../apps/api/src/services/secret-rollouts.ts';
import { createSecret, updateSecret } from '../../apps/api/src/services/secrets.ts';
import { dumpDatabase, findCanary } from '../../apps/api/src/test/canary.ts';
import { benchCluster, type Deployment, deploymentsPath, readyNamespace, rolledOut, scratchDatabase, sleep, ssa, sum, table, tally, untilLeading, watchCollection } from './kube-support.ts';

const CONSUMERS = Number(process.env.OCC_BENCH_ROTATION_CONSUMERS ?? 200);
const BATCH = Number(process.env.OCC_BENCH_ROTATION_BATCH ?? 20);
const BUDGET_RATIO = 1.5;
const BUDGET_REQUESTS_MULTIPLE = 4;

const begun = Date.now();
const progress = (what: string) => process.stderr.write(`rotation bench: ${what} (${((Date.now() - begun) / 1000).toFixed(1)} s)\n`);
const cluster = await benchCluster('rotation');
const { proxy, dir, kubeconfig, direct, proxied } = cluster;
const database = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, 'rotation') : null;
const runtime = await startRuntime({
  env: { dataDir: dir, databaseUrl: database?.url ?? null, kubeconfig, gatewayReadySeconds: 120, secretVersionRetentionSeconds: 0 },
  logger: createLogger(() => {}, 'error'),
  inMemory: true,
  migrate: migrateDatabase,
  // No periodic resync inside the run: retirement is asked for once, after both paths.
  instanceResyncMs: 3_600_000,
});
progress('runtime started');
let poller: pg.Client | null = null;
try {
  const deps = runtime.deps;
  const core = direct.makeApiClient(CoreV1Api);
  const apps = direct.makeApiClient(AppsV1Api);
  const boot: Actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'bench' };
  await untilLeading(runtime, [() => runtime.instances.running()]);
  const row = await readyNamespace(deps, boot, `rotation-${Date.now()}`);
  const ns = { id: row.id };
  const k8sNs = row.k8sName;
  const canary = `canary-v1-${randomBytes(16).toString('hex')}`;
  const token = await createSecret(deps, boot, { namespaceId: ns.id, name: 'telegram', value: canary });
  const cfg = await createConfiguration(deps, boot, {
    namespaceId: ns.id,
    name: 'bench',
    values: { skills: ['base'], channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
    secretBindings: [{ envName: 'TELEGRAM_TOKEN', source: { id: token.id } }],
  });
  const agents: Array<{ id: string }> = [];
  for (let i = 0; i < CONSUMERS; i++) {
    const agent = await createAgent(deps, boot, { namespaceId: ns.id, name: `consumer-${i}`, configurationId: cfg.id });
    await grantAccess(deps, boot, { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: token.id } });
    agents.push(agent);
  }
  progress(`${CONSUMERS} agents created`);

  poller = new pg.Client({ connectionString: database?.url ?? '' });
  if (database) await poller.connect();
  else poller = null;
  const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<T[]> =>
    poller ? (await poller.query<T>(sql, params)).rows : deps.db.$queryRawUnsafe<T[]>(sql, ...params);
  // Agents whose ACTIVE revision delivers `version` of the secret.
  const activeOn = async (version: number): Promise<number> =>
    Number(
      (
        await query<{ n: string }>(
          `SELECT count(DISTINCT r."agentId")::text AS n FROM "AgentRevision" r JOIN "AgentRevisionSecret" rs ON rs."revisionId" = r.id
           WHERE rs."secretId" = $1 AND rs.version = $2 AND r.state::text = 'ACTIVE'`,
          [token.id, version],
        )
      )[0]!.n,
    );
  const failedRevisions = async (): Promise<number> =>
    Number((await query<{ n: string }>(`SELECT count(*)::text AS n FROM "AgentRevision" r JOIN "Agent" a ON a.id = r."agentId" WHERE a."namespaceId" = $1 AND r.state::text = 'FAILED'`, [ns.id]))[0]!.n);

  for (const agent of agents) await deployAgent(deps, boot, { agentId: agent.id });
  const setupDeadline = Date.now() + 60_000 + CONSUMERS * 5_000;
  for (let n = 0; (n = await activeOn(1)) < CONSUMERS; ) {
    if ((await failedRevisions()) > 0) throw new Error('a setup deploy failed');
    if (Date.now() > setupDeadline) throw new Error(`setup: ${n}/${CONSUMERS} ACTIVE`);
    await sleep(250);
  }
  await runtime.worker.drain();
  await runtime.instances.idle();
  progress(`${CONSUMERS} agents ACTIVE on version 1`);

  const deploymentsNow = async () => (await apps.listNamespacedDeployment({ namespace: k8sNs })).items;
  const before = await deploymentsNow();
  await setSecretRotationPolicy(deps, boot, { secretId: token.id, policy: { mode: 'AUTOMATIC', batchSize: BATCH, pauseSeconds: 0, readySeconds: 600, approval: 'NONE' } });

  // The product: updateSecret → every consumer ACTIVE on version 2.
  const productFrom = proxy.log.length;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const rotated = await updateSecret(deps, boot, { id: token.id, value: `v2-${randomUUID()}` });
  const acknowledged = performance.now() - t0;
  if (!rotated.delivery.rolloutId) throw new Error('the rotation opened no rollout');
  const firstActive: number[] = [];
  const deadline = Date.now() + 120_000 + CONSUMERS * 10_000;
  for (let seen = 0; seen < CONSUMERS; ) {
    const n = await activeOn(2);
    for (; seen < n; seen++) firstActive.push(performance.now() - t0);
    if (seen >= CONSUMERS) break;
    const [rollout] = await query<{ state: string; reasonCode: string | null }>(`SELECT state, "reasonCode" FROM "SecretRollout" WHERE id = $1`, [rotated.delivery.rolloutId]);
    if (rollout && ['ROLLED_BACK', 'ABORTED'].includes(rollout.state)) throw new Error(`the rollout ended ${rollout.state}: ${rollout.reasonCode}`);
    if (Date.now() > deadline) throw new Error(`rollout: ${n}/${CONSUMERS} ACTIVE on version 2`);
    await sleep(50);
  }
  const productMs = performance.now() - t0;
  const productCpu = process.cpuUsage(cpu);
  // Not timed: the rollout's own end (its last batch is looked at every second) and the quiet after.
  let rollout: { state: string } | undefined;
  for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
    [rollout] = await query<{ state: string }>(`SELECT state FROM "SecretRollout" WHERE id = $1`, [rotated.delivery.rolloutId]);
    if (rollout && !['AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK'].includes(rollout.state)) break;
  }
  await runtime.worker.drain();
  await runtime.instances.idle();
  await sleep(200);
  await runtime.instances.idle();
  const productTo = proxy.log.length;
  const batches = await query<{ index: number; startedAt: Date; endedAt: Date | null }>(`SELECT index, "startedAt", "endedAt" FROM "SecretRolloutBatch" WHERE "rolloutId" = $1 ORDER BY index`, [rotated.delivery.rolloutId]).catch(() => []);
  progress(`product: ${CONSUMERS} ACTIVE on version 2 in ${(productMs / 1000).toFixed(1)} s (rollout ${rollout?.state})`);
  const after = await deploymentsNow();

  // The bare path's namespace: the product's gateway objects with the installation and namespace
  // renamed, the version objects under their names with other values, no owners.
  const bareNs = `rotation-bare-${Date.now()}`;
  const installation = runtime.installation.installationId;
  const bareInstallation = `bare${randomBytes(12).toString('hex')}`.slice(0, installation.length);
  const rename = <T>(o: T): T => JSON.parse(JSON.stringify(o).replaceAll(installation, bareInstallation).replaceAll(k8sNs, bareNs)) as T;
  type Plain = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown; data?: Record<string, string>; type?: string };
  const plain = (kind: string, apiVersion: string, o: Plain, extra: Partial<Plain> = {}): Record<string, unknown> => {
    const annotations = { ...(o.metadata?.annotations ?? {}) };
    delete annotations['deployment.kubernetes.io/revision'];
    return rename({ apiVersion, kind, metadata: { name: o.metadata?.name, namespace: k8sNs, labels: o.metadata?.labels ?? {}, annotations }, ...('spec' in o && o.spec ? { spec: o.spec } : {}), ...extra });
  };
  await core.createNamespace({ body: { metadata: { name: bareNs } } });
  const objects = KubernetesObjectApi.makeApiClient(direct);
  for (const s of (await core.listNamespacedSecret({ namespace: k8sNs })).items) {
    if (s.type === 'kubernetes.io/service-account-token') continue;
    const data = Object.fromEntries(Object.keys(s.data ?? {}).map((k) => [k, Buffer.from(`bare-${randomUUID()}`).toString('base64')]));
    await ssa(objects, plain('Secret', 'v1', s as Plain, { data, type: s.type ?? 'Opaque' }));
  }
  for (const c of (await core.listNamespacedConfigMap({ namespace: k8sNs })).items) if (c.metadata?.name !== 'kube-root-ca.crt') await ssa(objects, plain('ConfigMap', 'v1', c as Plain, { data: c.data ?? {} }));
  for (const a of (await core.listNamespacedServiceAccount({ namespace: k8sNs })).items) if (a.metadata?.name !== 'default') await ssa(objects, plain('ServiceAccount', 'v1', a as Plain));
  const latest = new Map<string, Deployment>();
  const watch = await watchCollection<Deployment>(proxied, deploymentsPath(bareNs), (type, d) => {
    if (type !== 'DELETED') latest.set(d.metadata!.name!, d);
  });
  const bareObjects = KubernetesObjectApi.makeApiClient(proxied);
  async function rollBatch(batch: Array<Record<string, unknown>>, timeoutMs: number): Promise<void> {
    const want = new Map<string, number>();
    for (const d of batch) {
      const applied = (await ssa(bareObjects, d)) as Deployment;
      want.set(applied.metadata!.name!, applied.metadata!.generation ?? 1);
    }
    const until = Date.now() + timeoutMs;
    while (![...want].every(([name, generation]) => latest.has(name) && rolledOut(generation)(latest.get(name)!))) {
      if (Date.now() > until) throw new Error(`bare: a batch not rolled out within ${timeoutMs} ms`);
      await sleep(5);
    }
  }
  const asApplied = (d: Plain) => plain('Deployment', 'apps/v1', d);
  await rollBatch(before.map((d) => asApplied(d as Plain)), 60_000 + CONSUMERS * 2_000);
  progress('bare namespace rolled out on version 1');

  const bareFrom = proxy.log.length;
  const bareCpu = process.cpuUsage();
  const b0 = performance.now();
  const targets = after.map((d) => asApplied(d as Plain));
  for (let i = 0; i < targets.length; i += BATCH) await rollBatch(targets.slice(i, i + BATCH), 600_000);
  const bareMs = performance.now() - b0;
  const bareUsed = process.cpuUsage(bareCpu);
  const bareTo = proxy.log.length;
  watch.stop();
  progress(`bare: ${targets.length} rolled out in ${(bareMs / 1000).toFixed(1)} s`);

  // V3 as the leader's resync does it, with the retention at 0: nothing holds version 1 now.
  const retired = await runtime.instances.retireSecretVersions();
  const v1 = retired.find((r) => r.secretId === token.id && r.number === 1);
  await core.deleteNamespace({ name: bareNs }).catch(() => undefined);

  // Every object of every listable resource the server serves, and every row.
  const texts: string[] = [];
  let resources = 0;
  const groupVersions = ['v1', ...((await getJson(direct, '/apis')) as { groups: Array<{ preferredVersion: { groupVersion: string } }> }).groups.map((g) => g.preferredVersion.groupVersion)];
  for (const gv of groupVersions) {
    const base = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
    const list = (await getJson(direct, base)) as { resources: Array<{ name: string; verbs?: string[] }> };
    for (const r of list.resources) {
      if (r.name.includes('/') || !(r.verbs ?? []).includes('list')) continue;
      const items = ((await getJson(direct, `${base}/${r.name}`).catch(() => ({ items: [] }))) as { items?: unknown[] }).items ?? [];
      resources++;
      for (const item of items) texts.push(`${gv}/${r.name}: ${JSON.stringify(item)}`);
    }
  }
  const inKubernetes = findCanary(texts, canary);
  const rows = database ? await dumpDatabase(database.url) : null;
  const inRows = rows ? findCanary(rows, canary) : [];

  const productRequests = tally(proxy.log, productFrom, productTo, k8sNs);
  const bareRequests = tally(proxy.log, bareFrom, bareTo, bareNs);
  const productPer = sum(productRequests.values()) / CONSUMERS;
  const barePer = sum(bareRequests.values()) / CONSUMERS;
  const ratio = productMs / bareMs;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const out: string[] = [];
  const print = (line: string) => out.push(line);
  print(
    table(
      `Rotation of a secret with ${CONSUMERS} consumers, batches of ${BATCH}, ${database ? 'PostgreSQL' : 'PGlite'} (${new Date().toISOString()})`,
      ['path', 'time', 'per consumer', 'requests per consumer (its namespace)', 'process CPU'],
      [
        ['updateSecret → all ACTIVE on version 2 (V4 rollout)', s(productMs), `${(productMs / CONSUMERS).toFixed(1)} ms`, productPer.toFixed(2), s((productCpu.user + productCpu.system) / 1000)],
        ['bare SSA of the Deployments, batch by batch → rolled out', s(bareMs), `${(bareMs / CONSUMERS).toFixed(1)} ms`, barePer.toFixed(2), s((bareUsed.user + bareUsed.system) / 1000)],
        ['ratio product / bare', `${ratio.toFixed(2)}×`, '', `${(productPer / barePer).toFixed(2)}×`, ''],
      ],
    ),
  );
  print(`updateSecret returned after ${acknowledged.toFixed(1)} ms; the rollout ended ${rollout?.state ?? '?'}; consumers ACTIVE on version 2 at 25/50/100%: ${[0.25, 0.5, 1].map((q) => s(firstActive[Math.max(0, Math.ceil(q * CONSUMERS) - 1)]!)).join(', ')}.`);
  if (batches.length) print(`Batches (${batches.length}), each started → ended: ${batches.map((b) => (b.endedAt ? `${((b.endedAt.getTime() - b.startedAt.getTime()) / 1000).toFixed(1)}` : '?')).join(', ')} s.`);
  const keys = [...new Set([...productRequests.keys(), ...bareRequests.keys()])].sort();
  print(
    table(
      'Kubernetes API requests per consumer, by verb and resource (the agents\u2019 namespace; the bare namespace)',
      ['request', 'product', 'bare'],
      [...keys.map((k) => [k, ((productRequests.get(k) ?? 0) / CONSUMERS).toFixed(2), ((bareRequests.get(k) ?? 0) / CONSUMERS).toFixed(2)]), ['total', productPer.toFixed(2), barePer.toFixed(2)]],
    ),
  );
  const outside = tally(proxy.log, productFrom, productTo, null);
  print(`Cluster-wide requests during the product's rotation (the caches' list and watch): ${[...outside].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}.`);
  print(
    `\nCanary (version 1's value) after V3 retirement (retention 0): version 1 ${v1 ? `retired, its object ${v1.result}` : 'NOT retired'}; searched ${texts.length} objects of ${resources} resources (every listable one by discovery): ${inKubernetes.length} hits; ${rows ? `${rows.length} database rows: ${inRows.length} hits` : 'database rows not searched (PGlite)'}.`,
  );
  for (const hit of [...inKubernetes, ...inRows].slice(0, 10)) print(`  hit: ${hit}`);

  const failures: string[] = [];
  if (ratio > BUDGET_RATIO) failures.push(`the rotation took ${ratio.toFixed(2)}× the bare loop's time (budget ${BUDGET_RATIO}×)`);
  if (productPer > BUDGET_REQUESTS_MULTIPLE * barePer) failures.push(`${productPer.toFixed(2)} requests per consumer, the bare loop ${barePer.toFixed(2)} (budget ${BUDGET_REQUESTS_MULTIPLE}×)`);
  if (!v1 || v1.result !== 'deleted') failures.push('version 1 was not retired with its object deleted');
  if (inKubernetes.length || inRows.length) failures.push(`the canary is in ${inKubernetes.length} Kubernetes objects and ${inRows.length} rows`);
  print(
    failures.length
      ? `\nOVER BUDGET: ${failures.join('; ')}.`
      : `\nWithin budget: time ${ratio.toFixed(2)}× ≤ ${BUDGET_RATIO}×, requests ${productPer.toFixed(2)} ≤ ${BUDGET_REQUESTS_MULTIPLE} × ${barePer.toFixed(2)}, no canary.`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  if (failures.length) process.exitCode = 1;
} finally {
  await poller?.end();
  await runtime.close();
  await cluster.close();
  await database?.drop();
}

/** A GET on the API server with the admin kubeconfig (discovery and lists outside the typed clients). */
async function getJson(kc: KubeConfig, path: string): Promise<unknown> {
  const server = new URL(kc.getCurrentCluster()!.server);
  const options: RequestOptions = { host: server.hostname, port: server.port, path, method: 'GET', headers: { accept: 'application/json' } };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`GET ${path}: ${res.statusCode} ${body.slice(0, 200)}`));
        else resolve(JSON.parse(body));
      });
    });
    req.on('error', reject);
    req.end();
  });
}
