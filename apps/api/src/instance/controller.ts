import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { createKeyedQueue, type KeyedQueue } from '../controller/queue.ts';
import type { InstanceCluster, InstanceKey } from './cluster.ts';
import { checkNamespaces, observeNamespace } from './namespace-loss.ts';
import { reconcileInstance, type InstanceReconcileDeps } from './reconcile.ts';

// The instance reconciler (RC2): on the leader only (R4), it watches every OpenClawInstance of this
// installation and their children (list-and-watch caches, cluster.ts), queues the instance an event
// concerns, and converges it (reconcile.ts); a periodic resync looks at everything again, so a
// missed event costs a delay, never a divergence. It also watches the installation's Kubernetes
// namespaces, so a namespace deleted outside the product shows on its Namespace (RC5).

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
}

export interface InstanceController {
  start(): void;
  stop(): Promise<void>;
  /** Queues every instance again and checks the namespaces (what the periodic resync does). */
  resync(): Promise<void>;
  enqueue(key: InstanceKey): void;
  /** Resolves when nothing is queued or running: for tests and the benchmark. */
  idle(): Promise<void>;
  running(): boolean;
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

  async function resync(): Promise<void> {
    if (!started) return;
    for (const instance of cluster.instances()) enqueue({ namespace: instance.metadata.namespace, name: instance.metadata.name });
    await checkNamespaces(deps).catch((error: unknown) => logger.warn('could not check the Kubernetes namespaces', { error }));
  }

  return {
    start() {
      if (started) return;
      started = true;
      queue.start();
      starting = open();
      resyncTimer = setInterval(() => void resync(), resyncMs);
      resyncTimer.unref();
    },
    async stop() {
      started = false;
      if (resyncTimer) clearInterval(resyncTimer);
      if (retryTimer) clearTimeout(retryTimer);
      await starting?.catch(() => undefined);
      await cluster.stop();
      await queue.stop();
    },
    resync,
    enqueue,
    async idle() {
      await starting;
      await queue.idle();
    },
    running: () => started,
  };
}
