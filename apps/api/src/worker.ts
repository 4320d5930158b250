import { randomUUID } from 'node:crypto';
import type { Db } from './db/client.ts';
import { safeErrorText, type Logger } from './log.ts';
import { claim, heartbeat, retryLater, type WorkItemRow } from './services/work-queue.ts';

export interface WorkHandler {
  /** Does the work; throws to retry. On the last attempt `final` is true and the handler records the permanent failure itself. */
  run(item: WorkItemRow, attempt: { final: boolean; owner: string }): Promise<void>;
}

export interface WorkerOptions {
  db: Db;
  logger: Logger;
  handlers: Record<string, WorkHandler>;
  pollMs?: number;
  leaseSeconds?: number;
  maxAttempts?: number;
  /** Backoff before attempt n+1, in ms. */
  backoffMs?: (attempt: number) => number;
}

export interface Worker {
  /** Ask for an immediate poll (after enqueueing). */
  kick(): void;
  stop(): Promise<void>;
  /** Resolves once no item is runnable now (tests). */
  drain(): Promise<void>;
}

export function startWorker(options: WorkerOptions): Worker {
  const owner = `worker-${randomUUID()}`;
  const pollMs = options.pollMs ?? 500;
  const leaseSeconds = options.leaseSeconds ?? 30;
  const maxAttempts = options.maxAttempts ?? 8;
  const backoff = options.backoffMs ?? ((n: number) => Math.min(30_000, 250 * 2 ** (n - 1)));
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let idleWaiters: Array<() => void> = [];

  async function runOne(): Promise<boolean> {
    const item = await claim(options.db, owner, leaseSeconds);
    if (!item) return false;
    const handler = options.handlers[item.kind];
    const log = options.logger.child({ workItemId: item.id, kind: item.kind, attempt: item.attempts });
    const beat = setInterval(() => void heartbeat(options.db, item.id, owner, leaseSeconds).catch(() => {}), (leaseSeconds * 1000) / 3);
    try {
      if (!handler) throw new Error(`no handler for work kind ${item.kind}`);
      await handler.run(item, { final: item.attempts >= maxAttempts, owner });
      log.info('work item done');
    } catch (error) {
      // An error's message may quote what a backend answered (P1): stored and logged by class and code.
      log.warn('work item failed; will retry', { error });
      await retryLater(options.db, item.id, owner, safeErrorText(error), backoff(item.attempts)).catch((e) => log.error('could not reschedule', { error: e }));
    } finally {
      clearInterval(beat);
    }
    return true;
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
    kick: () => {
      if (!stopped) schedule();
    },
    async stop() {
      stopped = true;
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
