import type { SecretDriver } from '@occ/domain/secret-driver';
import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { observeOutsideChanges } from '../services/secret-outside-change.ts';
import { DEFAULT_SECRET_VERSION_RETENTION_SECONDS, retireSecretVersions, type RetiredVersion } from '../services/secret-versions.ts';
import { createKeyedQueue, type KeyedQueue } from '../controller/queue.ts';
import type { InstanceCluster, InstanceKey } from './cluster.ts';
import { checkNamespaces, observeNamespace } from './namespace-loss.ts';
import { reconcileInstance, type InstanceReconcileDeps } from './reconcile.ts';
import { mirrorMemo } from './runtime-mirror.ts';

// The instance reconciler (RC2): on the leader only (R4), it watches every OpenClawInstance of this
// installation and their children (list-and-watch caches, cluster.ts), queues the instance an event
// concerns, and converges it (reconcile.ts); a periodic resync looks at everything again, so a
// missed event costs a delay, never a divergence. It also watches the installation's Kubernetes
// namespaces, so a namespace deleted outside the product shows on its Namespace (RC5), and looks
// at the Secrets of ready namespaces for values changed outside the product (RC4).

export interface InstanceControllerOptions {
  cluster: InstanceCluster;
  db: Db;
  logger: Logger;
  installationId: string;
  clock?: () => Date;
  resyncMs?: number;
  workers?: number;
  isLeader?: () => boolean;
  images?: { modelAuth?: string };
  progressRequeueMs?: number;
  /** How long a status still under way stands before it is written (1 s; a settled one is written at once). */
  progressStatusDelayMs?: number;
  /** RC4: the secret driver, to look at each ready namespace's Secrets for values changed outside the product. */
  secretDriver?: SecretDriver;
  /** How often that look happens (60 s by default); it lists each ready namespace's Secrets once. */
  secretScanMs?: number;
  /** V3: how long a version no revision holds stays after it was last delivered (24 h by default). */
  secretVersionRetentionMs?: number;
}

export interface InstanceController {
  start(): void;
  stop(): Promise<void>;
  /** Queues every instance again and checks the namespaces (what the periodic resync does). */
  resync(): Promise<void>;
  /** RC4: looks at every ready namespace's Secrets for values changed outside the product now; answers the secrets recorded. */
  scanSecrets(): Promise<string[]>;
  /** V3: retires the secret versions nothing holds any more, at the controller's clock; answers them. */
  retireSecretVersions(): Promise<RetiredVersion[]>;
  enqueue(key: InstanceKey): void;
  /** Resolves when nothing is queued or running: for tests and the benchmark. */
  idle(): Promise<void>;
  running(): boolean;
  /** Kubernetes API requests made, by verb (the benchmark's and the idempotence test's count). */
  readonly calls: Record<string, number>;
}

const keyOf = (key: InstanceKey) => `${key.namespace}/${key.name}`;

export function createInstanceController(options: InstanceControllerOptions): InstanceController {
  const { cluster, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const resyncMs = options.resyncMs ?? 30_000;
  const deps: InstanceReconcileDeps = {
    cluster,
    db: options.db,
    logger,
    installationId: options.installationId,
    clock,
    ...(options.images ? { images: options.images } : {}),
    ...(options.progressRequeueMs !== undefined ? { progressRequeueMs: options.progressRequeueMs } : {}),
    progressStatusDelayMs: options.progressStatusDelayMs ?? 1_000,
    heldStatus: new Map(),
    mirrored: mirrorMemo(),
    deletedChildren: new Map(),
  };
  let started = false;
  let starting: Promise<void> | null = null;
  let resyncTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  const queue: KeyedQueue = createKeyedQueue({
    name: 'instance',
    logger,
    workers: options.workers ?? 4,
    ...(options.isLeader ? { isLeader: options.isLeader } : {}),
    reconcile(key) {
      const slash = key.indexOf('/');
      return reconcileInstance(deps, { namespace: key.slice(0, slash), name: key.slice(slash + 1) });
    },
  });
  const enqueue = (key: InstanceKey) => queue.enqueue(keyOf(key));
  const namespaceChanged = (k8sName: string, gone: boolean) => {
    if (!gone) return;
    void observeNamespace(deps, k8sName).catch((error: unknown) => logger.warn('could not check a Kubernetes namespace', { error, k8sName }));
  };

  async function open(): Promise<void> {
    try {
      await cluster.start(enqueue, namespaceChanged);
      if (!started) return;
      await resync();
    } catch (error) {
      logger.warn('instance reconciler could not start its caches; retrying', { error });
      await cluster.stop().catch(() => undefined);
      if (started) retryTimer = setTimeout(() => void (starting = open()), 2_000);
    }
  }

  let resyncing: Promise<void> | null = null;
  let stopping = false;
  let lastScan = 0;
  let scanning: Promise<string[]> | null = null;
  function scanSecrets(): Promise<string[]> {
    scanning ??= scanAll().finally(() => (scanning = null));
    return scanning;
  }
  async function scanAll(): Promise<string[]> {
    const driver = options.secretDriver;
    if (!driver) return [];
    lastScan = Date.now();
    const recorded: string[] = [];
    for (const namespace of await options.db.namespace.findMany({ where: { status: 'READY' }, select: { id: true, k8sName: true } })) {
      if (stopping) break; // the next resync of whoever leads looks again
      recorded.push(...(await observeOutsideChanges({ db: options.db, secretDriver: driver, logger }, namespace).catch((error: unknown) => {
        logger.warn('could not look at a namespace\'s Secrets', { error, namespaceId: namespace.id });
        return [];
      })));
    }
    return recorded;
  }

  // V3: with the secrets' look, on the leader only (R4): one sweep at a time.
  let retiring: Promise<RetiredVersion[]> | null = null;
  function retireVersions(): Promise<RetiredVersion[]> {
    const driver = options.secretDriver;
    if (!driver) return Promise.resolve([]);
    retiring ??= retireSecretVersions(
      { db: options.db, secretDriver: driver, logger },
      { now: clock(), retentionMs: options.secretVersionRetentionMs ?? DEFAULT_SECRET_VERSION_RETENTION_SECONDS * 1000 },
    ).finally(() => (retiring = null));
    return retiring;
  }

  async function resync(): Promise<void> {
    if (!started) return;
    for (const instance of cluster.instances()) enqueue({ namespace: instance.metadata.namespace, name: instance.metadata.name });
    await checkNamespaces(deps).catch((error: unknown) => logger.warn('could not check the Kubernetes namespaces', { error }));
    if (Date.now() - lastScan >= (options.secretScanMs ?? 60_000)) {
      await scanSecrets().catch((error: unknown) => logger.warn("could not look at the namespaces' Secrets", { error }));
      if (!started) return;
      await retireVersions().catch((error: unknown) => logger.warn('could not retire secret versions', { error }));
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      stopping = false;
      queue.start();
      starting = open();
      // A periodic resync's failure (the database going away while it runs, at a stop) is logged:
      // it must not surface as an unhandled rejection, and the next resync tries again.
      resyncTimer = setInterval(() => {
        if (resyncing) return;
        resyncing = resync()
          .catch((error: unknown) => logger.warn('instance resync failed', { error }))
          .finally(() => (resyncing = null));
      }, resyncMs);
      resyncTimer.unref();
    },
    async stop() {
      started = false;
      stopping = true;
      if (resyncTimer) clearInterval(resyncTimer);
      if (retryTimer) clearTimeout(retryTimer);
      await starting?.catch(() => undefined);
      // A sweep in flight stops at its next namespace (scanAll checks `stopping`); it is given a few
      // seconds to get there before the caller closes the database, and whatever it meets after
      // that is caught and logged by resync, never left unhandled.
      const inFlight = Promise.all([resyncing, scanning?.catch(() => undefined), retiring?.catch(() => undefined)]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      await cluster.stop();
      await queue.stop();
    },
    resync,
    scanSecrets,
    retireSecretVersions: retireVersions,
    enqueue,
    async idle() {
      await starting;
      await queue.idle();
    },
    running: () => started,
    calls: cluster.calls,
  };
}
