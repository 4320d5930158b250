import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { SelfConfigCluster } from './cluster.ts';
import { recordDeleted } from './history.ts';
import { reconcile } from './reconcile.ts';

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

  const queue: string[] = [];
  const queued = new Set<string>();
  const active = new Set<string>();
  /** Keys that changed while being reconciled: run once more after. */
  const dirty = new Set<string>();
  const delayed = new Map<string, NodeJS.Timeout>();
  const failures = new Map<string, number>();
  let idleWaiters: Array<() => void> = [];
  let started = false;
  let watch: { abort(): void } | null = null;
  let watchTimer: NodeJS.Timeout | null = null;
  let resyncTimer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void>[] = [];

  const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

  function enqueue(key: string): void {
    if (!started) return;
    const timer = delayed.get(key);
    if (timer) {
      clearTimeout(timer);
      delayed.delete(key);
    }
    if (active.has(key)) {
      dirty.add(key);
      return;
    }
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(key);
    pump();
  }

  function later(key: string, ms: number): void {
    if (!started) return;
    const previous = delayed.get(key);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => {
      delayed.delete(key);
      enqueue(key);
    }, Math.min(ms, 2 ** 31 - 1));
    timer.unref();
    delayed.set(key, timer);
  }

  function settleIdle(): void {
    if (queue.length === 0 && active.size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  function pump(): void {
    while (started && active.size < workers && queue.length > 0) {
      const key = queue.shift() as string;
      queued.delete(key);
      active.add(key);
      const run = work(key).finally(() => {
        active.delete(key);
        inFlight = inFlight.filter((p) => p !== run);
        if (dirty.delete(key)) enqueue(key);
        pump();
        settleIdle();
      });
      inFlight.push(run);
    }
    settleIdle();
  }

  async function work(key: string): Promise<void> {
    if (!isLeader()) return;
    const slash = key.indexOf('/');
    try {
      const result = await reconcile(deps, key.slice(0, slash), key.slice(slash + 1));
      failures.delete(key);
      if (result.requeueAfterMs !== undefined) later(key, result.requeueAfterMs);
    } catch (error) {
      const n = (failures.get(key) ?? 0) + 1;
      failures.set(key, n);
      const delay = Math.min(backoff.baseMs * 2 ** (n - 1), backoff.maxMs);
      logger.warn('selfconfig reconcile failed; requeued', { key, attempt: n, delayMs: delay, error });
      later(key, delay);
    }
  }

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
          if (event.type === 'MODIFIED' && TERMINAL.has(event.object.status?.phase ?? '') && delayed.has(key)) return;
          // A key being reconciled works from its own fresh read, and nothing after Pending is
          // taken from the request again: its own writes (Pending, owner, status) need no rerun.
          // A re-created object (ADDED) does.
          if (event.type === 'MODIFIED' && active.has(key)) return;
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
      for (const timer of delayed.values()) clearTimeout(timer);
      delayed.clear();
      queue.length = 0;
      queued.clear();
      dirty.clear();
      await Promise.allSettled(inFlight);
      settleIdle();
    },
    resync,
    enqueue: (namespace, name) => enqueue(keyOf(namespace, name)),
    idle() {
      if (queue.length === 0 && active.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    running: () => started,
  };
}
