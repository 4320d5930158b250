import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { OPENCLAW_CRD_DIR } from '@occ/kube-emulator/crds';
import { startKubeletSimulator } from '@occ/kube-emulator/kubelet/simulator';
import { startKubeEmulator, type KubeEmulator } from '@occ/kube-emulator/server';
import { createDb, type Db } from './db/client.ts';
import { startEmbeddedPostgres } from './db/embedded-postgres.ts';
import { assertSchemaCurrent, migrateDatabase } from './db/migrate.ts';
import { KubernetesAgentObjectsDriver } from './drivers/kubernetes-agent-objects.ts';
import { KubernetesComputeDriver } from './drivers/kubernetes-compute.ts';
import { KubernetesNamespaceDriver } from './drivers/kubernetes-namespaces.ts';
import { KubernetesSecretDriver } from './drivers/kubernetes-secret-driver.ts';
import type { Env } from './env.ts';
import { kubeConfigFromFile, kubeConfigInCluster } from './kube/config.ts';
import { createElector, type Elector } from './leader/elector.ts';
import type { Logger } from './log.ts';
import { ensureInstallation, type InstallationState } from './services/bootstrap-installation.ts';
import { bootstrapKeyDelivery } from './services/bootstrap-key-delivery.ts';
import type { Deps } from './services/deps.ts';
import { deployRevisionKind } from './services/deploy-work.ts';
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
  embedded: { postgres: boolean; kubernetes: boolean };
  /** The embedded API server, when there is one (tests inject faults through it, E4). */
  emulator: KubeEmulator | null;
  close(): Promise<void>;
}

export type RuntimeEnv = Pick<Env, 'dataDir' | 'databaseUrl' | 'kubeconfig'> &
  Partial<Pick<Env, 'inCluster'>> &
  Partial<Pick<Env, 'production' | 'migrateAtStart' | 'bootstrapSecret' | 'bootstrapKeyFile' | 'leaderNamespace' | 'leaderLeaseSeconds' | 'workLeaseSeconds' | 'gatewayReadySeconds'>>;

export interface RuntimeOptions {
  env: RuntimeEnv;
  logger: Logger;
  /** Tests keep the embedded database in memory. */
  inMemory?: boolean;
  startWorker?: boolean;
  onQuery?: (sql: string, params: string) => void;
  /**
   * Brings or checks the schema. By default (R2): outside production, `prisma migrate deploy` under
   * the migration lock; in production (or OCC_MIGRATE_AT_START=false), a check that every
   * committed migration is applied. Tests that bring an already migrated database pass their own.
   */
  migrate?: (databaseUrl: string) => Promise<unknown>;
  /** Tests route the app's connections through a fault-injecting proxy. */
  connectVia?: (databaseUrl: string) => Promise<string>;
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { env, logger } = options;
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch((error) => logger.error('shutdown step failed', { error }));
  };
  try {
    await mkdir(env.dataDir, { recursive: true });
    let databaseUrl = env.databaseUrl;
    if (!databaseUrl && env.production) throw new Error('production has no embedded PostgreSQL: set DATABASE_URL');
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres(options.inMemory ? {} : { dataDir: path.join(env.dataDir, 'pglite') });
      closers.push(() => pg.close());
      databaseUrl = pg.url;
      logger.info('embedded PostgreSQL (PGlite) started', { dataDir: options.inMemory ? 'memory' : path.join(env.dataDir, 'pglite') });
    }
    let kubeConfig: KubeConfig;
    let emulator: KubeEmulator | null = null;
    if (env.kubeconfig) {
      kubeConfig = kubeConfigFromFile(env.kubeconfig);
    } else if (env.inCluster) {
      kubeConfig = kubeConfigInCluster();
    } else if (env.production) {
      // R1: readEnv refuses this; a runtime started some other way must not fall back either.
      throw new Error('production has no embedded Kubernetes: set KUBECONFIG or run in a pod');
    } else {
      // The embedded cluster serves the product's CRDs (deploy/crds) and runs a kubelet simulator,
      // so gateway Deployments report availability from their secret references as on a cluster.
      const kube = await startKubeEmulator({
        crdDirs: [OPENCLAW_CRD_DIR],
        ...(options.inMemory ? {} : { dataFile: path.join(env.dataDir, 'kube', 'objects.json') }),
      });
      closers.push(() => kube.close());
      emulator = kube;
      kubeConfig = kube.kubeConfig();
      const kubelet = await startKubeletSimulator(kubeConfig);
      closers.push(async () => kubelet.stop());
      await writeFile(path.join(env.dataDir, 'kubeconfig.yaml'), kube.kubeconfigYaml(), { mode: 0o600 });
      logger.info('embedded Kubernetes API server started', { url: kube.url, kubeconfig: path.join(env.dataDir, 'kubeconfig.yaml') });
    }
    const migrateAtStart = env.migrateAtStart ?? !env.production;
    await (options.migrate ?? (migrateAtStart ? migrateDatabase : assertSchemaCurrent))(databaseUrl);
    // PGlite is one database session: pglite-socket keeps a transaction's statements together but
    // interleaves other connections' protocol messages, and two connections' unnamed prepared
    // statements would then bind to each other's queries. One connection avoids that; PGlite runs
    // one statement at a time anyway.
    const poolSize = env.databaseUrl ? 8 : 1;
    const db = createDb(options.connectVia ? await options.connectVia(databaseUrl) : databaseUrl, { onQuery: options.onQuery, poolSize });
    // A connection lost in the middle of a transaction is never returned to the pool, and the
    // pool's end would wait for it forever: shutdown gives up after a few seconds.
    closers.push(() => Promise.race([db.$disconnect(), new Promise<void>((r) => setTimeout(r, 3000).unref())]));
    const installation = await ensureInstallation(db, bootstrapKeyDelivery({ production: env.production ?? false, bootstrapSecret: env.bootstrapSecret ?? null, bootstrapKeyFile: env.bootstrapKeyFile ?? null }, kubeConfig));
    const deps: Deps = {
      db,
      logger,
      installationId: installation.installationId,
      secretDriver: new KubernetesSecretDriver(kubeConfig, installation.installationId),
      namespaceDriver: new KubernetesNamespaceDriver(kubeConfig, installation.installationId),
      agentObjects: new KubernetesAgentObjectsDriver(kubeConfig, installation.installationId),
      computeDriver: new KubernetesComputeDriver(kubeConfig, installation.installationId),
      gatewayReadyTimeoutMs: (env.gatewayReadySeconds ?? 120) * 1000,
    };
    const worker = startWorker({
      db,
      logger: logger.child({ component: 'worker' }),
      kinds: [provisionNamespaceKind(deps), deployRevisionKind(deps)],
      leaseSeconds: env.workLeaseSeconds ?? 30,
      ...(options.startWorker === false ? { pollMs: 3_600_000 } : {}),
    });
    if (options.startWorker !== false) deps.kickWorker = () => worker.kick();
    closers.push(() => worker.stop());
    // One Lease per installation, so two installations on one cluster elect apart (R3, R4).
    const leader = createElector({
      kubeConfig,
      namespace: env.leaderNamespace ?? 'default',
      name: `occ-leader-${installation.installationId}`,
      identity: worker.owner.replace(/^worker-/, ''),
      leaseDurationSeconds: env.leaderLeaseSeconds ?? 15,
      logger: logger.child({ component: 'leader' }),
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
      embedded: { postgres: !env.databaseUrl, kubernetes: !env.kubeconfig },
      emulator,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
