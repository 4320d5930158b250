import { withFence } from '../kube/fencing.ts';
import type { Logger } from '../log.ts';

// The work queue of a controller (client-go's workqueue, the shape kubebuilder's controllers run
// on): each key is held once; a key is never reconciled twice at a time (a change that arrives
// while it runs makes it run once more after); failures are requeued with exponential backoff per
// key; a reconcile may ask to look again later. Used by the SelfConfig controller and the instance
// reconciler alike.

export interface ReconcileOutcome {
  /** Look again after this long. */
  requeueAfterMs?: number;
}

export interface KeyedQueueOptions {
  name: string;
  logger: Logger;
  reconcile(key: string): Promise<ReconcileOutcome>;
  /** Keys reconciled at once. */
  workers?: number;
  backoff?: { baseMs: number; maxMs: number };
  /**
   * Checked before each reconcile and before each Kubernetes write a reconcile sends (R4: only the
   * leader reconciles, and a leader that lost its Lease mid-reconcile writes nothing more).
   */
  isLeader?: () => boolean;
}

/** R4: a reconcile's Kubernetes write refused because this replica no longer leads. */
export class NotLeaderError extends Error {
  override name = 'NotLeaderError';
  readonly code = 'NOT_LEADER';
  constructor(readonly controller: string) {
    super(`${controller}: this replica no longer holds the leader Lease`);
  }
}

export interface KeyedQueue {
  start(): void;
  stop(): Promise<void>;
  enqueue(key: string): void;
  /** Enqueues the key after `ms` (a sooner enqueue wins). */
  later(key: string, ms: number): void;
  /** Whether the key is being reconciled now. */
  active(key: string): boolean;
  /** Whether the key waits for a delayed enqueue. */
  delayed(key: string): boolean;
  /** Resolves when nothing is queued or running (delayed keys aside, until they fire). */
  idle(): Promise<void>;
  running(): boolean;
}

export function createKeyedQueue(options: KeyedQueueOptions): KeyedQueue {
  const workers = options.workers ?? 4;
  const backoff = options.backoff ?? { baseMs: 200, maxMs: 60_000 };
  const isLeader = options.isLeader ?? (() => true);
  const queue: string[] = [];
  const queued = new Set<string>();
  const active = new Set<string>();
  const dirty = new Set<string>();
  const delayed = new Map<string, NodeJS.Timeout>();
  const failures = new Map<string, number>();
  let idleWaiters: Array<() => void> = [];
  let inFlight: Promise<void>[] = [];
  let started = false;

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
    const timer = setTimeout(
      () => {
        delayed.delete(key);
        enqueue(key);
      },
      Math.min(Math.max(0, ms), 2 ** 31 - 1),
    );
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

  // R4: the reconcile runs fenced by leadership (kube/fencing.ts): each write it sends asks first.
  const leadership = {
    check() {
      if (!isLeader()) throw new NotLeaderError(options.name);
    },
  };

  async function work(key: string): Promise<void> {
    if (!isLeader()) return;
    try {
      const result = await withFence(leadership, () => options.reconcile(key));
      failures.delete(key);
      if (result.requeueAfterMs !== undefined) later(key, result.requeueAfterMs);
    } catch (error) {
      if (!isLeader()) {
        // The new leader reconciles it: nothing to retry here (the error may wrap NotLeaderError).
        options.logger.info(`${options.name} reconcile stopped: leadership lost`, { key });
        return;
      }
      const n = (failures.get(key) ?? 0) + 1;
      failures.set(key, n);
      const delay = Math.min(backoff.baseMs * 2 ** (n - 1), backoff.maxMs);
      options.logger.warn(`${options.name} reconcile failed; requeued`, { key, attempt: n, delayMs: delay, error });
      later(key, delay);
    }
  }

  return {
    start() {
      started = true;
    },
    async stop() {
      started = false;
      for (const timer of delayed.values()) clearTimeout(timer);
      delayed.clear();
      queue.length = 0;
      queued.clear();
      dirty.clear();
      failures.clear();
      await Promise.allSettled(inFlight);
      settleIdle();
    },
    enqueue,
    later,
    active: (key) => active.has(key),
    delayed: (key) => delayed.has(key),
    idle() {
      if (queue.length === 0 && active.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    running: () => started,
  };
}
