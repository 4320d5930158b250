import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { z } from 'zod';
import type { Db, Tx } from './db/client.ts';
import { safeErrorText, type Logger } from './log.ts';
import { withSpan } from './observability/tracing.ts';
import { transaction } from './db/client.ts';
import { MonotonicLease, withFence } from './kube/fencing.ts';
import { advance, claim, complete, failPermanently, heartbeat, LeaseLostError, release, retryLater, snooze, type WorkItemRow } from './services/work-queue.ts';

/** One named step of a work kind. Side effects must be idempotent: a retry may run a step again. */
export interface WorkStep<P> {
  name: string;
  run(payload: P, ctx: StepContext): Promise<void>;
}

export interface StepContext {
  item: WorkItemRow;
  owner: string;
  /** Aborted once a heartbeat finds the lease lost: make no further side effect. */
  signal: AbortSignal;
  /**
   * Commits the step's writes together with the lease check and the step's advance (or, for the
   * last step, the item's completion). Throws LeaseLostError, writing nothing, if the lease is gone.
   * A step that does not call it is committed the same way when it returns.
   */
  commit<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * For a step that makes progress in several commits (a rollout's batches): commits writes under
   * the lease, staying at this step. Throws LeaseLostError, writing nothing, if the lease is gone.
   */
  checkpoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/**
 * Thrown by a step that has nothing to do until `until` (or until woken, work-queue `wake`): the
 * item is handed back at this step to run again then. Not a failure; no attempt is counted.
 */
export class WaitUntil extends Error {
  override name = 'WaitUntil';
  constructor(
    readonly until: Date,
    readonly why: string,
  ) {
    super(`waiting for ${why}`);
  }
}

/** A kind of work: a payload schema (typed payloads) and its steps, run in order. */
export interface WorkKind<P> {
  kind: string;
  payload: z.ZodType<P>;
  steps: ReadonlyArray<WorkStep<P>>;
  /**
   * Steps an earlier release had and this one folded into another: an item left at one resumes at
   * the step named here (which must be idempotent over what the retired step did).
   */
  retiredSteps?: Readonly<Record<string, string>>;
  /** Runs in the lease-checked transaction that fails the item permanently (record it, audit it). */
  onPermanentFailure?(tx: Tx, payload: P, failure: { code: string; message: string }): Promise<void>;
}

/** Internal: ends a run between steps when the worker stops. */
class WorkerStopping extends Error {
  override name = 'WorkerStopping';
}

export function defineWorkKind<P>(kind: WorkKind<P>): WorkKind<P> {
  return kind;
}

/** Thrown by a step for a failure no retry can mend; `message` must be fixed text (P1). */
export class PermanentWorkError extends Error {
  override name = 'PermanentWorkError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface WorkerOptions {
  db: Db;
  logger: Logger;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind checks its own payload
  kinds: ReadonlyArray<WorkKind<any>>;
  pollMs?: number;
  leaseSeconds?: number;
  /** The last attempt's failure is permanent (ATTEMPTS_EXHAUSTED). */
  maxAttempts?: number;
  /** Backoff before attempt n+1, in ms. */
  backoffMs?: (attempt: number) => number;
  /** R6: called when a work item's lease was lost under this worker (counted in /metrics). */
  onLeaseLost?: () => void;
  /** R6: when tracing is on, a span per attempt. */
  tracer?: Tracer;
  /**
   * Items run at once (1 by default). Items of one agent still run one at a time: they share a
   * concurrency key, which claims honour (RC8).
   */
  concurrency?: number;
}

export interface Worker {
  /** This worker's lease owner id (names the host and process, for operators); with several slots, each owns its items as `<owner>/<n>`. */
  owner: string;
  /** Ask for an immediate poll (after enqueueing). */
  kick(): void;
  stop(): Promise<void>;
  /** Resolves once no item is runnable now (tests). */
  drain(): Promise<void>;
}

export function startWorker(options: WorkerOptions): Worker {
  const owner = `worker-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const pollMs = options.pollMs ?? 500;
  const leaseSeconds = options.leaseSeconds ?? 30;
  const maxAttempts = options.maxAttempts ?? 8;
  const backoff = options.backoffMs ?? ((n: number) => Math.min(30_000, 250 * 2 ** (n - 1)));
  const kinds = new Map(options.kinds.map((k) => [k.kind, k]));
  const db = options.db;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  let stopped = false;
  /**
   * One slot runs one item at a time; a worker runs `concurrency` slots. Each slot holds its items
   * under its own owner id, so a slot never mistakes an item another slot of this process took
   * over (after a pause) for its own.
   */
  function startSlot(owner: string) {
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<void> = Promise.resolve();
    let idleWaiters: Array<() => void> = [];

    async function fail(item: WorkItemRow, kind: WorkKind<unknown> | undefined, payload: unknown, code: string, message: string): Promise<void> {
      await transaction(db, async (tx) => {
        if (kind?.onPermanentFailure && payload !== undefined) await kind.onPermanentFailure(tx, payload, { code, message });
        if (!(await failPermanently(tx, item.id, owner, code))) throw new LeaseLostError(item.id);
      });
    }

    async function runSteps(item: WorkItemRow, kind: WorkKind<unknown>, payload: unknown, lease: MonotonicLease, signal: AbortSignal, log: Logger): Promise<void> {
      const resumeAt = item.step === null ? null : (kind.retiredSteps?.[item.step] ?? item.step);
      const start = resumeAt === null ? 0 : kind.steps.findIndex((s) => s.name === resumeAt);
      if (start < 0) throw new PermanentWorkError('UNKNOWN_STEP', `work item ${item.id} names a step its kind does not have`);
      for (let i = start; i < kind.steps.length; i++) {
        lease.check();
        // R5: a stopping worker finishes the step it is in, and starts no other.
        if (i > start && stopped) throw new WorkerStopping();
        const step = kind.steps[i]!;
        const next = kind.steps[i + 1]?.name ?? null;
        let committed = false;
        const commit = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
          if (committed) throw new Error(`step ${step.name} committed twice`);
          committed = true;
          // R4: the advance (or completion) matches only under this owner's unexpired lease; if it
          // does not, the step's writes roll back with it. A lease this process already knows is
          // lost does not even open the transaction.
          lease.check();
          return transaction(db, async (tx) => {
            const result = await fn(tx);
            const held = next === null ? await complete(tx, item.id, owner) : await advance(tx, item.id, owner, next);
            if (!held) throw new LeaseLostError(item.id);
            return result;
          });
        };
        const checkpoint = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
          if (committed) throw new Error(`step ${step.name} checkpointed after its commit`);
          lease.check();
          return transaction(db, async (tx) => {
            const result = await fn(tx);
            if (!(await advance(tx, item.id, owner, step.name))) throw new LeaseLostError(item.id);
            return result;
          });
        };
        log.debug('work step', { step: step.name });
        await step.run(payload, { item, owner, signal, commit, checkpoint });
        if (!committed) await commit(async () => undefined);
      }
    }

    async function runOne(): Promise<boolean> {
      const sentAt = performance.now();
      const item = await claim(db, owner, leaseSeconds);
      if (!item) return false;
      const lease = new MonotonicLease(leaseSeconds, sentAt, () => new LeaseLostError(item.id));
      // R6: one CONSUMER span per attempt, parent of the Kubernetes calls its steps make.
      const span = options.tracer?.startSpan(`work ${item.kind}`, {
        kind: SpanKind.CONSUMER,
        attributes: { 'occ.work_item.kind': item.kind, 'occ.work_item.attempt': item.attempts },
      });
      const outcome = span ? await withSpan(span, () => runItem(item, lease)) : await runItem(item, lease);
      if (span) {
        span.setAttribute('occ.work_item.outcome', outcome);
        if (outcome === 'failed' || outcome === 'retry') span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      return true;
    }

    async function runItem(item: WorkItemRow, lease: MonotonicLease): Promise<'done' | 'handed_back' | 'waiting' | 'lease_lost' | 'failed' | 'retry'> {
      const log = options.logger.child({ workItemId: item.id, kind: item.kind, attempt: item.attempts });
      const lost = new AbortController();
      const beat = setInterval(() => {
        const sentAt = performance.now();
        void heartbeat(db, item.id, owner, leaseSeconds).then(
          (held) => {
            if (held) return lease.renewed(sentAt);
            lease.lose();
            lost.abort();
          },
          () => {},
        );
      }, (leaseSeconds * 1000) / 3);
      const kind = kinds.get(item.kind);
      let payload: unknown;
      try {
        if (!kind) throw new PermanentWorkError('UNKNOWN_KIND', `no handler for work kind ${item.kind}`);
        const parsed = kind.payload.safeParse(item.payload);
        // The payload is not quoted: only the paths of its problems are logged.
        if (!parsed.success) throw new PermanentWorkError('INVALID_PAYLOAD', `payload does not parse at ${parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ')}`);
        payload = parsed.data;
        // R4: every Kubernetes write the steps send (fencing.ts) and every commit checks the lease first.
        await withFence(lease, () => runSteps(item, kind, payload, lease, lost.signal, log));
        log.info('work item done');
        return 'done';
      } catch (error) {
        if (error instanceof WaitUntil && lease.held) {
          log.debug('work item waiting', { why: error.why, until: error.until.toISOString() });
          await snooze(db, item.id, owner, error.until, error.message).catch((e) => log.error('could not hand the waiting work item back', { error: e }));
          return 'waiting';
        } else if (error instanceof WorkerStopping) {
          log.info('worker stopping: work item handed back at its next step');
          await release(db, item.id, owner).catch((e) => log.error('could not hand the work item back', { error: e }));
          return 'handed_back';
        } else if (error instanceof LeaseLostError || !lease.held) {
          // (A driver may have wrapped the fence's LeaseLostError in an error of its own.)
          // R4: another worker owns it now (or will): no retry, no write, no further side effect.
          log.warn('work item lease lost; stopping without further effect', { error });
          options.onLeaseLost?.();
          return 'lease_lost';
        } else if (error instanceof PermanentWorkError || item.attempts >= maxAttempts) {
          const code = error instanceof PermanentWorkError ? error.code : 'ATTEMPTS_EXHAUSTED';
          const message = error instanceof PermanentWorkError ? error.message : `gave up after ${item.attempts} attempts`;
          log.warn('work item failed permanently', { code, error });
          await fail(item, kind, payload, code, message).catch((e) => log.error('could not record the permanent failure', { error: e }));
          return 'failed';
        } else {
          // An error's message may quote what a backend answered (P1): stored and logged by class and code.
          log.warn('work item failed; will retry', { error });
          await retryLater(db, item.id, owner, safeErrorText(error), backoff(item.attempts)).catch((e) => log.error('could not reschedule', { error: e }));
          return 'retry';
        }
      } finally {
        clearInterval(beat);
        // What the item started and outlives it (a lazily started informer) is no longer its work.
        if (lease.held) lease.end();
      }
    }

    async function loop(): Promise<void> {
      timer = null;
      try {
        while (!stopped && (await runOne())) {
          /* keep going while there is work */
        }
      } catch (error) {
        options.logger.error('worker poll failed', { error });
      }
      const waiters = idleWaiters;
      idleWaiters = [];
      waiters.forEach((w) => w());
      if (!stopped) timer = setTimeout(schedule, pollMs);
    }

    function schedule(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      running = running.then(loop);
    }

    schedule();
    return {
      owner,
      schedule,
      async stop() {
        if (timer) clearTimeout(timer);
        await running;
      },
      drain() {
        return new Promise<void>((resolve) => {
          idleWaiters.push(resolve);
          schedule();
        });
      },
    };
  }

  const slots = Array.from({ length: concurrency }, (_, i) => startSlot(concurrency === 1 ? owner : `${owner}/${i + 1}`));
  return {
    owner,
    kick: () => {
      if (!stopped) for (const slot of slots) slot.schedule();
    },
    async stop() {
      stopped = true;
      await Promise.all(slots.map((slot) => slot.stop()));
    },
    async drain() {
      await Promise.all(slots.map((slot) => slot.drain()));
    },
  };
}
