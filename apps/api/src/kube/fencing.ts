import { AsyncLocalStorage } from 'node:async_hooks';
import type { KubeConfig } from '@kubernetes/client-node';

// R4: no side effect without a valid lease. Work that holds a lease (a work item's, the leader's)
// runs inside `withFence`; every request client-node sends through a fenced KubeConfig asks the
// fence of the code that sent it first, and one that is not held refuses the request before a
// byte leaves the process. Async context carries the fence, so drivers, caches and helpers need
// not pass it along, and code that runs outside any fenced work is not affected.
//
// Reads are not side effects: only writes (POST, PUT, PATCH, DELETE) are fenced. An informer a
// step started lazily keeps the step's async context for its whole life; its lists and watches
// must not fail once the step is over.

/** What a fenced piece of work holds: `check` throws, with the holder's own error, once it is not held. */
export interface Fence {
  check(): void;
}

const current = new AsyncLocalStorage<Fence>();

/** Runs `fn` (and everything it starts) under `fence`. */
export function withFence<T>(fence: Fence, fn: () => Promise<T>): Promise<T> {
  return current.run(fence, fn);
}

/** Throws the current fence's error if the work running now has lost its lease (no-op outside fenced work). */
export function checkFence(): void {
  current.getStore()?.check();
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Makes every write sent through `kubeConfig` (every API client it made, before or after) check
 * the sender's fence: client-node calls `applySecurityAuthentication` for each request, in the
 * caller's async context, just before it fetches. Checked again after it, since applying
 * credentials may wait (an exec plugin, a token file).
 */
export function fenceKubernetesWrites(kubeConfig: KubeConfig): void {
  const apply = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  kubeConfig.applySecurityAuthentication = async (context) => {
    const write = !READS.has(String(context.getHttpMethod()).toUpperCase());
    if (write) checkFence();
    await apply(context);
    if (write) checkFence();
  };
}

/**
 * A lease measured on this process's monotonic clock (which runs on while the process is paused,
 * SIGSTOP or a long GC): held until `seconds` after the last successful claim or heartbeat was
 * *sent* (the database computed its expiry later than that, so this never outlasts it), minus a
 * margin for a request in flight. Once it lapsed or a heartbeat found it taken, it stays lost.
 * `end()` is called when the work finished: a background write it started (an informer's, a
 * flush) is then no longer the holder's and is not refused.
 */
export class MonotonicLease implements Fence {
  #heldUntil: number;
  #lost = false;
  #ended = false;
  readonly #ms: number;
  readonly #marginMs: number;

  constructor(
    seconds: number,
    sentAt: number,
    private readonly lostError: () => Error,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#ms = seconds * 1000;
    // A third of the lease: the heartbeat renews every third, so a healthy holder never comes near it.
    this.#marginMs = this.#ms / 3;
    this.#heldUntil = sentAt + this.#ms - this.#marginMs;
  }

  /** A heartbeat sent at `sentAt` (from `now()`) found the lease still ours. */
  renewed(sentAt: number): void {
    if (!this.#lost) this.#heldUntil = Math.max(this.#heldUntil, sentAt + this.#ms - this.#marginMs);
  }

  /** A heartbeat found the lease expired or taken. */
  lose(): void {
    this.#lost = true;
  }

  end(): void {
    this.#ended = true;
  }

  get held(): boolean {
    if (!this.#lost && this.now() >= this.#heldUntil) this.#lost = true;
    return !this.#lost;
  }

  check(): void {
    if (this.#ended) return;
    if (!this.held) throw this.lostError();
  }
}
