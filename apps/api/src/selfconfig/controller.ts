import { DEFAULT_APPROVAL_TTL_SECONDS } from '@occ/domain/selfconfig-approval';
import { DEFAULT_HEALTH_GATE_SECONDS } from '@occ/domain/selfconfig-health';
import { TERMINAL_PHASES } from '@occ/domain/selfconfig';
import { DEFAULT_SELF_CONFIG_BUDGET, type SelfConfigBudget } from '@occ/domain/selfconfig-budget';
import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { instanceRefOf, type SelfConfigCluster, type SelfConfigObject } from './cluster.ts';
import { recordDeleted } from './history.ts';
import { reconcile, type ReconcileDeps, type RequestCache } from './reconcile.ts';
import { createKeyedQueue } from '../controller/queue.ts';

// The SelfConfig controller: list, then watch, every OpenClawSelfConfig (any namespace), keeping
// the latest copy of each (an informer's cache: a reconcile starts from it, never from a GET); a
// list-and-watch cache of the installation's OpenClawInstances beside it (cluster.ts); a work
// queue that holds each key once and never runs one key twice at a time; a periodic resync that
// queues every cached request again (a missed event costs a delay, never a request); failures
// requeued with exponential backoff. Every write made from a cached copy carries its
// resourceVersion, so a stale copy conflicts and is read again (reconcile.ts). It runs only while
// this replica leads (R4): the runtime starts it on winning the Lease and stops it on losing it,
// and every reconcile checks leadership first.

export interface SelfConfigControllerOptions {
  cluster: SelfConfigCluster;
  db: Db;
  logger: Logger;
  /** Injected so tests move time for SC9 without waiting an hour. */
  clock?: () => Date;
  /** SC9: one hour by default. */
  ttlMs?: number;
  /** SG3: how long a request waits for approval before it ends Expired (24 hours by default). */
  approvalTtlMs?: number;
  /** SG4: the budget of an instance whose spec sets none (DEFAULT_SELF_CONFIG_BUDGET when absent). */
  budgetDefaults?: SelfConfigBudget;
  /** SG1: the health gate of an instance whose spec sets none, in seconds (DEFAULT_HEALTH_GATE_SECONDS; 0: off). */
  healthGateSeconds?: number;
  /** SG1: how often a gated request looks at its instance's cached status (1 s by default). */
  healthGatePollMs?: number;
  resyncMs?: number;
  /** Keys reconciled at once. */
  workers?: number;
  maxConflictRetries?: number;
  backoff?: { baseMs: number; maxMs: number };
  isLeader?: () => boolean;
  /** Whose instances the instance cache holds (installationSelector); read from the database when absent. */
  installationId?: string;
}

export interface SelfConfigController {
  start(): void;
  stop(): Promise<void>;
  /** Queues every request again (what the periodic resync does). */
  resync(): Promise<void>;
  enqueue(namespace: string, name: string): void;
  /** Resolves when nothing is queued or running (delayed requeues aside, until they fire): for the benchmark. */
  idle(): Promise<void>;
  running(): boolean;
}

export const DEFAULT_SELF_CONFIG_TTL_MS = 60 * 60 * 1000;

/** client-node's Watch ends a watch on which nothing arrived for 30 s with a TimeoutError. */
function isWatchTimeout(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'TimeoutError';
}

export function createSelfConfigController(options: SelfConfigControllerOptions): SelfConfigController {
  const { cluster, db, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const ttlMs = options.ttlMs ?? DEFAULT_SELF_CONFIG_TTL_MS;
  const resyncMs = options.resyncMs ?? 30_000;
  const workers = options.workers ?? 4;
  const backoff = options.backoff ?? { baseMs: 200, maxMs: 60_000 };
  const isLeader = options.isLeader ?? (() => true);
  const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

  // The requests' cache: the latest copy of each, from the list and then the watch. `own` holds the
  // resourceVersions this controller's own writes produced and the watch has not brought back yet:
  // their events are echoes that need no reconcile.
  let latest = new Map<string, SelfConfigObject>();
  const own = new Map<string, Set<string>>();
  // SG1: the instances one of the workers is deciding a request of right now ("namespace/instance").
  const deciding = new Set<string>();
  const requests: RequestCache = {
    get: (namespace, name) => latest.get(keyOf(namespace, name)),
    wrote(before, after) {
      const key = keyOf(after.metadata.namespace, after.metadata.name);
      let mine = own.get(key);
      if (!mine) own.set(key, (mine = new Set()));
      mine.add(after.metadata.resourceVersion);
      // Newer than the copy it was made from; never over something newer the watch brought since.
      if (latest.get(key)?.metadata.resourceVersion === before.metadata.resourceVersion) latest.set(key, after);
    },
    reread(stale, fresh) {
      const key = keyOf(stale.metadata.namespace, stale.metadata.name);
      if (latest.get(key)?.metadata.resourceVersion !== stale.metadata.resourceVersion) return;
      if (fresh) latest.set(key, fresh);
      else latest.delete(key);
    },
  };
  const budgetDefaults = options.budgetDefaults ?? DEFAULT_SELF_CONFIG_BUDGET;
  const approvalTtlMs = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_SECONDS * 1000;
  const healthGate = { defaultSeconds: options.healthGateSeconds ?? DEFAULT_HEALTH_GATE_SECONDS, pollMs: options.healthGatePollMs ?? 1000 };
  const deps: ReconcileDeps = {
    cluster,
    db,
    logger,
    clock,
    ttlMs,
    approvalTtlMs,
    maxConflictRetries: options.maxConflictRetries ?? 5,
    requests,
    budgetDefaults,
    healthGate,
    gateEnded: (namespace, instanceRef) => wakeOldestWaiting(namespace, instanceRef),
    claimInstance(namespace, instanceRef) {
      const key = keyOf(namespace, instanceRef);
      if (deciding.has(key)) return null;
      deciding.add(key);
      return () => deciding.delete(key);
    },
  };

  let started = false;
  let watch: { abort(): void } | null = null;
  let watchTimer: NodeJS.Timeout | null = null;
  let instancesTimer: NodeJS.Timeout | null = null;
  let resyncTimer: NodeJS.Timeout | null = null;
  const queue = createKeyedQueue({
    name: 'selfconfig',
    logger,
    workers,
    backoff,
    isLeader,
    async reconcile(key) {
      const slash = key.indexOf('/');
      return reconcile(deps, key.slice(0, slash), key.slice(slash + 1));
    },
  });
  const enqueue = (key: string) => queue.enqueue(key);
  // SG1: a request in its health gate (Verifying) is looked at again as soon as the cache sees its
  // instance change (its status: Ready, Degraded), not only when its poll falls due. A request
  // waiting for another's gate (Pending, its look delayed) goes on when that gate ends (gateEnded).
  let stopInstanceEvents: (() => void) | null = null;
  const ofInstance = (namespace: string, instanceRef: string) =>
    [...latest].filter(([, r]) => r.metadata.namespace === namespace && instanceRefOf(r) === instanceRef);
  const wakeVerifying = (namespace: string, instanceRef: string) => {
    for (const [key, request] of ofInstance(namespace, instanceRef)) if (request.status?.phase === 'Verifying') enqueue(key);
  };
  // One at a time, oldest first: the one woken takes the instance's turn, and its end wakes the next.
  const wakeOldestWaiting = (namespace: string, instanceRef: string) => {
    const waiting = ofInstance(namespace, instanceRef).filter(([key, r]) => r.status?.phase === 'Pending' && queue.delayed(key));
    waiting.sort(([, a], [, b]) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || a.metadata.name.localeCompare(b.metadata.name));
    if (waiting[0]) enqueue(waiting[0][0]);
  };
  const recordGone = (uid: string) => void recordDeleted(db, uid, clock()).catch((error: unknown) => logger.warn('could not record a deleted selfconfig request', { error }));

  async function listAndWatch(): Promise<void> {
    if (!started) return;
    try {
      const list = await cluster.listRequests();
      if (!started) return;
      // The list replaces the cache: what it no longer holds was deleted while no watch was open.
      const listed = new Map(list.items.map((item) => [keyOf(item.metadata.namespace, item.metadata.name), item] as const));
      for (const [key, before] of latest) if (listed.get(key)?.metadata.uid !== before.metadata.uid) recordGone(before.metadata.uid);
      latest = listed;
      own.clear();
      for (const key of listed.keys()) enqueue(key);
      await watchFrom(list.resourceVersion);
    } catch (error) {
      logger.warn('selfconfig list failed; retrying', { error });
      if (started) watchTimer = setTimeout(() => void listAndWatch(), backoff.baseMs * 5);
    }
  }

  /**
   * Watches from `resourceVersion`. A watch that ends quietly (the server closed it, or nothing
   * came within client-node's 30 s inactivity timeout: on a quiet installation, every 30 s) is
   * opened again from the last version it saw, events and bookmarks alike, as client-node's
   * informer does: no list, no reconcile of every request, no warning. Only a version the server
   * no longer has (an ERROR event, 410) or a failure lists again.
   */
  async function watchFrom(resourceVersion: string): Promise<void> {
    if (!started) return;
    let seen = resourceVersion;
    let expired = false;
    const opened = await cluster.watchRequests(
      resourceVersion,
      (event) => {
        if (event.type === 'ERROR') {
          expired = true;
          return;
        }
        const m = event.object?.metadata;
        if (m?.resourceVersion) seen = m.resourceVersion;
        if (!m?.name || !m.namespace) return;
        const key = keyOf(m.namespace, m.name);
        if (event.type === 'DELETED') {
          latest.delete(key);
          own.delete(key);
          recordGone(m.uid);
          return;
        }
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
        latest.set(key, event.object);
        // The echo of one of our own writes (Pending, owner reference, terminal status): the
        // reconcile that made it has taken it into account already.
        const mine = own.get(key);
        if (mine?.delete(m.resourceVersion)) {
          if (mine.size === 0) own.delete(key);
          return;
        }
        // Our own terminal status write comes back as MODIFIED: its TTL is scheduled already.
        if (event.type === 'MODIFIED' && TERMINAL_PHASES.has(event.object.status?.phase ?? '') && queue.delayed(key)) return;
        // Nothing after Pending is taken from the request again: a change while its key is
        // being reconciled needs no rerun. A re-created object (ADDED) does.
        if (event.type === 'MODIFIED' && queue.active(key)) return;
        enqueue(key);
      },
      (error) => {
        watch = null;
        if (!started) return;
        if (!expired && (!error || isWatchTimeout(error))) {
          watchTimer = setTimeout(() => void watchFrom(seen).catch(relist), 0);
          return;
        }
        if (error) logger.warn('selfconfig watch ended; listing again', { error });
        watchTimer = setTimeout(() => void listAndWatch(), error ? backoff.baseMs * 5 : 0);
      },
    );
    // stop() may have run while the watch was opening: it found nothing to abort then.
    if (started) watch = opened;
    else opened.abort();
  }

  function relist(error: unknown): void {
    logger.warn('selfconfig watch failed to open; listing again', { error });
    if (started) watchTimer = setTimeout(() => void listAndWatch(), backoff.baseMs * 5);
  }

  /** From the cache, as an informer's resync: the list and the watch keep it, so this makes no request. */
  async function resync(): Promise<void> {
    if (!started) return;
    for (const key of latest.keys()) enqueue(key);
  }

  /** The instance cache, selected by this installation's labels (its id from the database unless given). */
  async function startInstances(): Promise<void> {
    if (!started) return;
    try {
      const installationId = options.installationId ?? (await db.installation.findFirst({ select: { installationId: true } }))?.installationId;
      if (!started) return;
      if (!installationId) {
        logger.warn('no installation id: the selfconfig controller reads every instance from the server');
        return;
      }
      await cluster.startInstanceCache(installationId);
      // stop() may have run while the cache was opening.
      if (!started) await cluster.stopInstanceCache();
    } catch (error) {
      logger.warn('selfconfig instance cache failed to start; retrying', { error });
      if (started) instancesTimer = setTimeout(() => void startInstances(), backoff.baseMs * 5);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      queue.start();
      stopInstanceEvents = cluster.onInstanceChange(wakeVerifying);
      void listAndWatch();
      void startInstances();
      resyncTimer = setInterval(() => void resync(), resyncMs);
      resyncTimer.unref();
    },
    async stop() {
      started = false;
      stopInstanceEvents?.();
      stopInstanceEvents = null;
      watch?.abort();
      watch = null;
      if (watchTimer) clearTimeout(watchTimer);
      if (instancesTimer) clearTimeout(instancesTimer);
      if (resyncTimer) clearInterval(resyncTimer);
      await queue.stop();
      await cluster.stopInstanceCache();
      latest = new Map();
      own.clear();
    },
    resync,
    enqueue: (namespace, name) => enqueue(keyOf(namespace, name)),
    idle: () => queue.idle(),
    running: () => started,
  };
}
