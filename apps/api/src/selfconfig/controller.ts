import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { SelfConfigCluster } from './cluster.ts';
import { recordDeleted } from './history.ts';
import { reconcile } from './reconcile.ts';
import { createKeyedQueue } from '../controller/queue.ts';

// The SelfConfig controller: list, then watch, every OpenClawSelfConfig (any namespace); a work
// queue that holds each key once and never runs one key twice at a time; a periodic resync that
// looks at everything again (a missed event costs a delay, never a request); failures requeued
// with exponential backoff. It runs only while this replica leads (R4): the runtime starts it on
// winning the Lease and stops it on losing it, and every reconcile checks leadership first.

export interface SelfConfigControllerOptions {
  cluster: SelfConfigCluster;
  db: Db;
  logger: Logger;
  /** Injected so tests move time for SC9 without waiting an hour. */
  clock?: () => Date;
  /** SC9: one hour by default. */
  ttlMs?: number;
  resyncMs?: number;
  /** Keys reconciled at once. */
  workers?: number;
  maxConflictRetries?: number;
  backoff?: { baseMs: number; maxMs: number };
  isLeader?: () => boolean;
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
const TERMINAL = new Set(['Applied', 'Failed', 'Denied']);

export function createSelfConfigController(options: SelfConfigControllerOptions): SelfConfigController {
  const { cluster, db, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const ttlMs = options.ttlMs ?? DEFAULT_SELF_CONFIG_TTL_MS;
  const resyncMs = options.resyncMs ?? 30_000;
  const workers = options.workers ?? 4;
  const backoff = options.backoff ?? { baseMs: 200, maxMs: 60_000 };
  const isLeader = options.isLeader ?? (() => true);
  const deps = { cluster, db, logger, clock, ttlMs, maxConflictRetries: options.maxConflictRetries ?? 5 };

  let started = false;
  let watch: { abort(): void } | null = null;
  let watchTimer: NodeJS.Timeout | null = null;
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

  const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

  async function listAndWatch(): Promise<void> {
    if (!started) return;
    try {
      const list = await cluster.listRequests();
      for (const item of list.items) enqueue(keyOf(item.metadata.namespace, item.metadata.name));
      if (!started) return;
      const opened = await cluster.watchRequests(
        list.resourceVersion,
        (event) => {
          const m = event.object?.metadata;
          if (!m?.name || !m.namespace) return;
          if (event.type === 'DELETED') {
            void recordDeleted(db, m.uid, clock()).catch((error: unknown) => logger.warn('could not record a deleted selfconfig request', { error }));
            return;
          }
          const key = keyOf(m.namespace, m.name);
          // Our own terminal status write comes back as MODIFIED: its TTL is scheduled already.
          if (event.type === 'MODIFIED' && TERMINAL.has(event.object.status?.phase ?? '') && queue.delayed(key)) return;
          // A key being reconciled works from its own fresh read, and nothing after Pending is
          // taken from the request again: its own writes (Pending, owner, status) need no rerun.
          // A re-created object (ADDED) does.
          if (event.type === 'MODIFIED' && queue.active(key)) return;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') enqueue(key);
        },
        (error) => {
          watch = null;
          if (!started) return;
          if (error) logger.warn('selfconfig watch ended; listing again', { error });
          watchTimer = setTimeout(() => void listAndWatch(), error ? backoff.baseMs * 5 : 0);
        },
      );
      // stop() may have run while the watch was opening: it found nothing to abort then.
      if (started) watch = opened;
      else opened.abort();
    } catch (error) {
      logger.warn('selfconfig list failed; retrying', { error });
      if (started) watchTimer = setTimeout(() => void listAndWatch(), backoff.baseMs * 5);
    }
  }

  async function resync(): Promise<void> {
    if (!started) return;
    try {
      const list = await cluster.listRequests();
      for (const item of list.items) enqueue(keyOf(item.metadata.namespace, item.metadata.name));
    } catch (error) {
      logger.warn('selfconfig resync failed', { error });
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      queue.start();
      void listAndWatch();
      resyncTimer = setInterval(() => void resync(), resyncMs);
      resyncTimer.unref();
    },
    async stop() {
      started = false;
      watch?.abort();
      watch = null;
      if (watchTimer) clearTimeout(watchTimer);
      if (resyncTimer) clearInterval(resyncTimer);
      await queue.stop();
    },
    resync,
    enqueue: (namespace, name) => enqueue(keyOf(namespace, name)),
    idle: () => queue.idle(),
    running: () => started,
  };
}
