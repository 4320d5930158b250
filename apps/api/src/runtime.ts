import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeEmulator } from '@occ/kube-emulator/server';
import type { KubeletSimulator } from '@occ/kube-emulator/kubelet/simulator';
import { createDb, poolOf, type Db } from './db/client.ts';
import type { EmbeddedPostgres } from './db/embedded-postgres.ts';
import { runsEmbedded, startEmbedded, type EmbeddedStart } from './embedded.ts';
import { assertSchemaCurrent, migrateDatabase } from './db/migrate.ts';
import { migrateKubernetesObjects } from './upgrade/kube-migrations.ts';
import { assertStateNotNewer, recordReleaseStart } from './upgrade/stored-state.ts';
import { KubernetesAgentObjectsDriver } from './drivers/kubernetes-agent-objects.ts';
import { KubernetesComputeDriver } from './drivers/kubernetes-compute.ts';
import { KubernetesNamespaceDriver } from './drivers/kubernetes-namespaces.ts';
import { KubernetesSecretDriver } from './drivers/kubernetes-secret-driver.ts';
import type { Env } from './env.ts';
import { kubeConfigFromFile, kubeConfigInCluster } from './kube/config.ts';
import { startSelfConfigWebhook, type SelfConfigWebhookRuntime } from './kube/selfconfig-webhook-setup.ts';
import { createElector, type Elector } from './leader/elector.ts';
import { fenceKubernetesWrites } from './kube/fencing.ts';
import type { Logger } from './log.ts';
import { createMetrics, observeKubernetes, observePool, observeQueue, type Metrics } from './observability/metrics.ts';
import { createTracing, traceKubernetes, type Tracing } from './observability/tracing.ts';
import { kubernetesSelfConfigCluster } from './selfconfig/cluster.ts';
import { createSelfConfigController, type SelfConfigController } from './selfconfig/controller.ts';
import { startAuthCache } from './services/auth-cache.ts';
import { ensureInstallation, type InstallationState } from './services/bootstrap-installation.ts';
import { bootstrapKeyDelivery } from './services/bootstrap-key-delivery.ts';
import type { Deps } from './services/deps.ts';
import { kubernetesInstanceCache, type InstanceCache } from './kube/instance-cache.ts';
import { kubernetesSecretCache, type SecretCache } from './kube/secret-cache.ts';
import { awaitRevisionKind, deployRevisionKind, type DeployWorkOptions } from './services/deploy-work.ts';
import { secretRolloutKind, type RolloutWorkOptions } from './services/secret-rollouts.ts';
import { kubernetesInstanceCluster } from './instance/cluster.ts';
import { reassertInstanceKind } from './services/reassert-instance.ts';
import { createInstanceController, type InstanceController } from './instance/controller.ts';
import { provisionNamespaceKind } from './services/namespaces.ts';
import { startWorker, type Worker } from './worker.ts';

// Assembles a running installation from its environment: embedded or external Postgres and
// Kubernetes, migrations, the bootstrap identity, the ports and the worker. Used by `npm start`
// and by tests, so both run the same wiring.

export interface Runtime {
  deps: Deps;
  db: Db;
  kubeConfig: KubeConfig;
  databaseUrl: string;
  installation: InstallationState;
  worker: Worker;
  /** R4: whether this replica leads; what must run once (sweepers, controllers) starts on its onChange. */
  leader: Elector;
  /** The SelfConfig controller: runs only while `leader` leads (R4). */
  selfConfig: SelfConfigController;
  /** The instance reconciler (RC2): runs only while `leader` leads (R4). */
  instances: InstanceController;
  /** The watch caches the deploy path reads Secrets' identities and instances from. */
  caches: { secrets: SecretCache; instances: InstanceCache };
  embedded: { postgres: boolean; kubernetes: boolean };
  /** The embedded API server when it runs in this thread (in memory: tests inject faults through it, E4). */
  emulator: KubeEmulator | null;
  /** Its kubelet simulator (E3), in this thread likewise: tests read running containers' resolved env and files through it. */
  kubelet: KubeletSimulator | null;
  /** R6: what /metrics serves (cli/serve.ts listens for it on its own port). */
  metrics: Metrics;
  /** R6: OpenTelemetry tracing, enabled when env.otlpEndpoint is set. */
  tracing: Tracing;
  /** SC5: the SelfConfig admission webhook's listener, when this installation serves one. */
  selfConfigWebhook: SelfConfigWebhookRuntime | null;
  close(): Promise<void>;
}

export type RuntimeEnv = Pick<Env, 'dataDir' | 'databaseUrl' | 'kubeconfig'> &
  Partial<Pick<Env, 'inCluster'>> &
  Partial<Pick<Env, 'production' | 'migrateAtStart' | 'authCache' | 'bootstrapSecret' | 'tenantServiceAccount' | 'bootstrapKeyFile' | 'leaderNamespace' | 'leaderLeaseSeconds' | 'workLeaseSeconds' | 'workerConcurrency' | 'gatewayReadySeconds' | 'selfConfigTtlSeconds' | 'selfConfigApprovalTtlSeconds' | 'selfConfigHealthGateSeconds' | 'secretVersionRetentionSeconds' | 'selfConfigBudget'>> &
  Partial<Pick<Env, 'webhookTls' | 'webhookService' | 'webhookConfiguration' | 'webhookHost' | 'webhookPort' | 'otlpEndpoint' | 'serviceName' | 'traceLeases'>>;

export interface RuntimeOptions {
  env: RuntimeEnv;
  logger: Logger;
  /** Tests keep the embedded database in memory. */
  inMemory?: boolean;
  /** The embedded parts, started before the runtime's modules loaded (start.ts); otherwise started here. */
  embedded?: Promise<EmbeddedStart>;
  /**
   * Tests: the in-memory embedded database starts from this data-folder image (a PGlite
   * `dumpDataDir` of a migrated database) instead of an empty one, which skips initdb.
   */
  embeddedDatabaseImage?: Blob;
  startWorker?: boolean;
  onQuery?: (sql: string, params: string) => void;
  /**
   * Brings or checks the schema. By default (R2): outside production, `prisma migrate deploy` under
   * the migration lock; in production (or OCC_MIGRATE_AT_START=false), a check that every
   * committed migration is applied. Tests that bring an already migrated database pass their own.
   */
  migrate?: (databaseUrl: string) => Promise<unknown>;
  /** The Kubernetes object migrations (upgrade/kube-migrations.ts); tests stop one half-way. */
  migrateKubernetes?: typeof migrateKubernetesObjects;
  /** Tests route the app's connections through a fault-injecting proxy. */
  connectVia?: (databaseUrl: string) => Promise<string>;
  /** SC9: the SelfConfig controller's clock; tests move it to pass the TTL. */
  selfConfigClock?: () => Date;
  /** SG1: how often a gated request looks at its instance without an event (tests make it long, to prove the events wake it). */
  selfConfigHealthGatePollMs?: number;
  /** The SelfConfig controller's resync period (30 s); tests make it long for the same reason. */
  selfConfigResyncMs?: number;
  /** Tests: hooks into the deploy work (RC7 interleavings). */
  deployWork?: DeployWorkOptions;
  /** Tests: hooks into the V4 rollout worker (a worker killed mid-batch). */
  rolloutWork?: RolloutWorkOptions;
  /** The instance reconciler's resync period (30 s by default). */
  instanceResyncMs?: number;
  /**
   * SC5: serve and register the SelfConfig webhook on loopback with certificates made in memory, as
   * the embedded server always does, also against a configured cluster. The E8 lane's real
   * kube-apiserver runs on this machine and can call it; a cluster elsewhere could not.
   */
  selfConfigWebhookOnLoopback?: boolean;
  /** SC5, managed webhook certificates: the resync period (60 s) and the clock that judges expiry. */
  webhookResyncMs?: number;
  webhookClock?: () => Date;
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { env, logger } = options;
  const closers: Array<() => Promise<void>> = [];
  let closing = false;
  const close = async () => {
    closing = true;
    for (const c of closers.reverse()) await c().catch((error) => logger.error('shutdown step failed', { error }));
  };
  try {
    let databaseUrl = env.databaseUrl;
    if (!databaseUrl && env.production) throw new Error('production has no embedded PostgreSQL: set DATABASE_URL');
    const runs = runsEmbedded(env);
    // With a data folder, the embedded parts start together (embedded.ts), or were started before
    // this runtime's modules loaded (start.ts); in memory (tests) each starts here, in this thread.
    const early = options.inMemory || !(runs.postgres || runs.kubernetes) ? null : await (options.embedded ?? startEmbedded(env));
    if (early) {
      closers.push(() => early.abandon());
      if (early.folder.tightenedCount) logger.warn('data folder made private to this user (P8)', { dataDir: env.dataDir, tightened: early.folder.tightenedCount, first: early.folder.tightened });
    } else {
      await mkdir(env.dataDir, { recursive: true });
    }
    if (!databaseUrl) {
      let pg: EmbeddedPostgres;
      if (early?.postgres) {
        pg = await early.postgres;
      } else {
        // Loaded only here: a production replica never loads PGlite or the embedded API server.
        const { startEmbeddedPostgres } = await import('./db/embedded-postgres.ts');
        pg = await startEmbeddedPostgres({ image: options.embeddedDatabaseImage });
        closers.push(() => pg.close());
      }
      databaseUrl = pg.url;
      logger.info('embedded PostgreSQL (PGlite) started', { dataDir: early ? path.join(env.dataDir, 'pglite') : 'memory' });
    }
    // Downgrades: state a newer release migrated is refused before anything (the embedded cluster's
    // data file included) is started, migrated or written.
    await assertStateNotNewer(databaseUrl);
    const { kubeConfig, emulator, kubelet, embeddedKubernetes } = await connectKubernetes(env, early, closers, logger);
    // R4: a write sent by work that lost its lease (a work item's) is refused before it is sent.
    fenceKubernetesWrites(kubeConfig);
    const migrateAtStart = env.migrateAtStart ?? !env.production;
    await (options.migrate ?? (migrateAtStart ? migrateDatabase : assertSchemaCurrent))(databaseUrl);
    // SC5: the SelfConfig webhook, after the schema check (a replica refused for its schema says only
    // that and makes nothing). Embedded: its certificate is made once and kept with the emulator's
    // state, and it registers itself; configured files or managed certificates (deploy/): the
    // manifests register it.
    let selfConfigWebhook: SelfConfigWebhookRuntime | null = null;
    if (env.webhookTls) {
      const files = { ...env.webhookTls, host: env.webhookHost ?? '0.0.0.0', port: env.webhookPort ?? 9443 };
      selfConfigWebhook = await startSelfConfigWebhook({ kubeConfig, logger, files });
    } else if (env.webhookService) {
      const managed = {
        service: env.webhookService,
        configurationName: env.webhookConfiguration ?? 'openclaw-selfconfig',
        host: env.webhookHost ?? '0.0.0.0',
        port: env.webhookPort ?? 9443,
        ...(options.webhookResyncMs ? { resyncMs: options.webhookResyncMs } : {}),
        ...(options.webhookClock ? { now: options.webhookClock } : {}),
      };
      selfConfigWebhook = await startSelfConfigWebhook({ kubeConfig, logger, managed });
    } else if (embeddedKubernetes || options.selfConfigWebhookOnLoopback) {
      const certificateDir = options.inMemory || !embeddedKubernetes ? null : path.join(env.dataDir, 'kube');
      selfConfigWebhook = await startSelfConfigWebhook({ kubeConfig, logger, embedded: { certificateDir, unregisterOnClose: !embeddedKubernetes } });
    }
    if (selfConfigWebhook) {
      closers.push(selfConfigWebhook.close);
      logger.info('SelfConfig admission webhook serving', { url: selfConfigWebhook.url });
    }
    // PGlite is one database session: pglite-socket keeps a transaction's statements together but
    // interleaves other connections' protocol messages, and two connections' unnamed prepared
    // statements would then bind to each other's queries. One connection avoids that; PGlite runs
    // one statement at a time anyway.
    const poolSize = env.databaseUrl ? 8 : 1;
    const connectUrl = options.connectVia ? await options.connectVia(databaseUrl) : databaseUrl;
    const db = createDb(connectUrl, { onQuery: options.onQuery, poolSize });
    // A connection lost in the middle of a transaction is never returned to the pool, and the
    // pool's end would wait for it forever: shutdown gives up after a few seconds.
    closers.push(() => Promise.race([db.$disconnect(), new Promise<void>((r) => setTimeout(r, 3000).unref())]));
    // Keys, sessions and bindings kept between requests, forgotten on any change (auth-cache.ts).
    // Embedded PGlite delivers no notification from one connection to another, so it has none.
    if (env.databaseUrl && env.authCache !== false) {
      const authCache = startAuthCache(db, connectUrl, logger);
      closers.push(() => authCache.close());
      await authCache.ready;
    }
    const metrics = createMetrics();
    const server = kubeConfig.getCurrentCluster()?.server;
    if (server) {
      const stopObserving = observeKubernetes(metrics, server);
      closers.push(async () => stopObserving());
    }
    const pool = poolOf(db);
    if (pool) observePool(metrics, pool);
    observeQueue(metrics, () =>
      db.$queryRaw<Array<{ state: string; count: number; oldest: Date | null }>>`
        SELECT state::text AS state, count(*)::int AS count, min("createdAt") AS oldest
        FROM "WorkItem" WHERE state IN ('PENDING', 'RUNNING') GROUP BY state`,
    );
    const installation = await ensureInstallation(db, bootstrapKeyDelivery({ production: env.production ?? false, bootstrapSecret: env.bootstrapSecret ?? null, bootstrapKeyFile: env.bootstrapKeyFile ?? null }, kubeConfig));
    // R3: where the key went, in the log an operator reads (whichever process bootstrapped: an API
    // replica or a standalone worker); the key itself never.
    if (installation.bootstrapKeyDeliveredTo) {
      logger.info('bootstrap API key written', { installationId: installation.installationId, to: installation.bootstrapKeyDeliveredTo });
    }
    // Upgrades: what earlier releases wrote into Kubernetes is brought to this release's shape,
    // once, under the migration lock (R2), before the worker, controllers or API touch it.
    await (options.migrateKubernetes ?? migrateKubernetesObjects)({ databaseUrl, kubeConfig, installationId: installation.installationId, logger: logger.child({ component: 'upgrade' }) });
    await recordReleaseStart(databaseUrl);
    const processIdentity = `${hostname()}-${process.pid}`;
    const tracing = createTracing({
      endpoint: env.otlpEndpoint ?? null,
      serviceName: env.serviceName ?? 'openclaw-control-plane',
      attributes: { 'service.instance.id': processIdentity, 'occ.installation.id': installation.installationId },
      traceLeasePolling: env.traceLeases ?? false,
    });
    closers.push(() => tracing.shutdown());
    if (server) {
      const stopTracing = traceKubernetes(tracing, server);
      closers.push(async () => stopTracing());
    }
    // Watch caches the deploy path reads identities and instances from (kube/secret-cache.ts).
    const secretCache = kubernetesSecretCache(kubeConfig, installation.installationId);
    const instanceCache = kubernetesInstanceCache(kubeConfig, installation.installationId);
    closers.push(() => secretCache.close(), () => instanceCache.close());
    const deps: Deps = {
      db,
      logger,
      installationId: installation.installationId,
      secretDriver: new KubernetesSecretDriver(kubeConfig, installation.installationId, secretCache),
      namespaceDriver: new KubernetesNamespaceDriver(kubeConfig, installation.installationId, env.tenantServiceAccount ?? null),
      metrics,
      tracing,
      agentObjects: new KubernetesAgentObjectsDriver(kubeConfig, installation.installationId),
      computeDriver: new KubernetesComputeDriver(kubeConfig, installation.installationId, { secrets: secretCache, instances: instanceCache }),
      gatewayReadyTimeoutMs: (env.gatewayReadySeconds ?? 120) * 1000,
      selfConfigCluster: kubernetesSelfConfigCluster(kubeConfig),
      ...(env.selfConfigBudget ? { selfConfigBudgetDefaults: env.selfConfigBudget } : {}),
    };
    const worker = startWorker({
      db,
      logger: logger.child({ component: 'worker' }),
      kinds: [provisionNamespaceKind(deps), deployRevisionKind(deps, options.deployWork), awaitRevisionKind(deps), reassertInstanceKind(deps), secretRolloutKind(deps, options.rolloutWork)],
      leaseSeconds: env.workLeaseSeconds ?? 30,
      // A runtime whose worker is held back (tests drive it by drain) polls with one slot, once an hour.
      concurrency: options.startWorker === false ? 1 : (env.workerConcurrency ?? 4),
      onLeaseLost: () => metrics.leaseLosses.inc({ lease: 'work_item' }),
      ...(tracing.enabled ? { tracer: tracing.tracer } : {}),
      ...(options.startWorker === false ? { pollMs: 3_600_000 } : {}),
    });
    if (options.startWorker !== false) deps.kickWorker = () => worker.kick();
    closers.push(() => worker.stop());
    // Its own cluster adapter, so its calls are counted apart from the API's (bench/api/selfconfig).
    let leader: Elector | null = null;
    const selfConfig = createSelfConfigController({
      cluster: kubernetesSelfConfigCluster(kubeConfig),
      db,
      logger: logger.child({ component: 'selfconfig' }),
      ttlMs: (env.selfConfigTtlSeconds ?? 3600) * 1000,
      ...(env.selfConfigApprovalTtlSeconds ? { approvalTtlMs: env.selfConfigApprovalTtlSeconds * 1000 } : {}),
      ...(env.selfConfigBudget ? { budgetDefaults: env.selfConfigBudget } : {}),
      ...(env.selfConfigHealthGateSeconds !== undefined ? { healthGateSeconds: env.selfConfigHealthGateSeconds } : {}),
      installationId: installation.installationId,
      ...(options.selfConfigClock ? { clock: options.selfConfigClock } : {}),
      ...(options.selfConfigHealthGatePollMs ? { healthGatePollMs: options.selfConfigHealthGatePollMs } : {}),
      ...(options.selfConfigResyncMs ? { resyncMs: options.selfConfigResyncMs } : {}),
      isLeader: () => leader?.isLeader() ?? false,
    });
    closers.push(() => selfConfig.stop());
    const instances = createInstanceController({
      cluster: kubernetesInstanceCluster(kubeConfig, installation.installationId, { secrets: secretCache, onError: (error) => logger.debug('instance cache watch failed; restarting', { error }) }),
      db,
      logger: logger.child({ component: 'instances' }),
      installationId: installation.installationId,
      secretDriver: deps.secretDriver,
      secretVersionRetentionMs: (env.secretVersionRetentionSeconds ?? 86400) * 1000,
      ...(options.instanceResyncMs ? { resyncMs: options.instanceResyncMs } : {}),
      isLeader: () => leader?.isLeader() ?? false,
    });
    closers.push(() => instances.stop());
    // One Lease per installation, so two installations on one cluster elect apart (R3, R4).
    leader = createElector({
      kubeConfig,
      namespace: env.leaderNamespace ?? 'default',
      name: `occ-leader-${installation.installationId}`,
      identity: worker.owner.replace(/^worker-/, ''),
      leaseDurationSeconds: env.leaderLeaseSeconds ?? 15,
      logger: logger.child({ component: 'leader' }),
      // Stepping down while stopping (the Lease is released) is not a loss. R4: what must run once
      // (the SelfConfig controller, the instance reconciler) runs only on the leader.
      onChange: (leading) => {
        if (!leading && !closing) metrics.leaseLosses.inc({ lease: 'leader' });
        if (leading) {
          selfConfig.start();
          instances.start();
        } else {
          void selfConfig.stop();
          void instances.stop();
        }
      },
    });
    leader.start();
    closers.push(() => leader.stop());
    return {
      deps,
      db,
      kubeConfig,
      databaseUrl,
      installation,
      worker,
      leader,
      selfConfig,
      instances,
      caches: { secrets: secretCache, instances: instanceCache },
      embedded: { postgres: !env.databaseUrl, kubernetes: !env.kubeconfig },
      emulator,
      kubelet,
      metrics,
      tracing,
      selfConfigWebhook,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The Kubernetes the runtime talks to: a kubeconfig's, the pod's own, or the embedded cluster (on
 * its thread when `early` booted it, else in this thread so tests reach fault injection, E4, and
 * the containers' view). What it starts is closed by `closers`.
 */
async function connectKubernetes(
  env: RuntimeEnv,
  early: EmbeddedStart | null,
  closers: Array<() => Promise<void>>,
  logger: Logger,
): Promise<{ kubeConfig: KubeConfig; emulator: KubeEmulator | null; kubelet: KubeletSimulator | null; embeddedKubernetes: boolean }> {
  if (env.kubeconfig) return { kubeConfig: kubeConfigFromFile(env.kubeconfig), emulator: null, kubelet: null, embeddedKubernetes: false };
  if (env.inCluster) return { kubeConfig: kubeConfigInCluster(), emulator: null, kubelet: null, embeddedKubernetes: false };
  // R1: readEnv refuses this; a runtime started some other way must not fall back either.
  if (env.production) throw new Error('production has no embedded Kubernetes: set KUBECONFIG or run in a pod');
  let kube: { url: string; kubeConfig(): KubeConfig; kubeconfigYaml(): string };
  let emulator: KubeEmulator | null = null;
  let kubelet: KubeletSimulator | null = null;
  if (early?.cluster) {
    // On its thread (embedded.ts), started now that the state is known to be this release's or older.
    kube = await early.cluster.start();
  } else {
    const [{ OPENCLAW_CRD_DIR, OPENCLAW_RBAC_FILE, OPENCLAW_TENANT_POLICY_FILE }, { startKubeletSimulator }, { startKubeEmulator }] = await Promise.all([
      import('@occ/kube-emulator/crds'),
      import('@occ/kube-emulator/kubelet/simulator'),
      import('@occ/kube-emulator/server'),
    ]);
    const inProcess = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR], clusterRoleFiles: [OPENCLAW_RBAC_FILE], admissionPolicyFiles: [OPENCLAW_TENANT_POLICY_FILE] });
    closers.push(() => inProcess.close());
    emulator = inProcess;
    kube = inProcess;
    const simulator = await startKubeletSimulator(inProcess.kubeConfig());
    kubelet = simulator;
    closers.push(async () => simulator.stop());
  }
  // P8: the admin token is in it; `mode` applies only when the file is new, so chmod too.
  const kubeconfigFile = path.join(env.dataDir, 'kubeconfig.yaml');
  await writeFile(kubeconfigFile, kube.kubeconfigYaml(), { mode: 0o600 });
  await chmod(kubeconfigFile, 0o600);
  logger.info('embedded Kubernetes API server started', { url: kube.url, kubeconfig: kubeconfigFile });
  return { kubeConfig: kube.kubeConfig(), emulator, kubelet, embeddedKubernetes: true };
}
