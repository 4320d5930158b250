import { GraphQLError, type ExecutionResult } from 'graphql';
import { Repeater, type Plugin } from 'graphql-yoga';
import type { Actor } from '../services/deps.ts';
import type { GraphQLContext } from './builder.ts';
import { createLoaders } from './loaders.ts';

// Subscriptions (GraphQL over SSE, yoga's default transport: `Accept: text/event-stream`) as
// level-triggered reads: a stream reads its object from the database every `intervalMs`, sends it
// when what the client selects could have changed (its fingerprint moved), and ends after sending
// an object in a final state. A poll, not a notification, because the worker that moves a rollout
// may be another replica, and PGlite carries no notifications between connections; the database
// is the one place every replica's changes meet.
//
// Bounds (P7): a principal holds at most `perPrincipal` streams and the process at most `total`;
// one more is answered SUBSCRIPTION_LIMITED and reads nothing. Admission also spends the
// document's cost once from the principal's budget (rate-limits.ts). A stream lasts at most
// `maxLifetimeMs` (the client subscribes again), and every stream ends when the server drains
// (R5), so a shutdown waits for none.

export const SUBSCRIPTION_LIMITED = 'SUBSCRIPTION_LIMITED';

export interface LiveLimits {
  perPrincipal: number;
  total: number;
  intervalMs: number;
  maxLifetimeMs: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = { perPrincipal: 4, total: 256, intervalMs: 1_000, maxLifetimeMs: 30 * 60_000 };

/** The process's open streams: their count per principal, and the signal that ends them all. */
export class LiveStreams {
  readonly limits: LiveLimits;
  private readonly open = new Map<string, number>();
  private count = 0;
  private readonly ending = new AbortController();

  constructor(limits: Partial<LiveLimits> = {}) {
    this.limits = { ...DEFAULT_LIVE_LIMITS, ...limits };
  }

  /** A slot for one stream of `actor`, released once by the returned function; null when full. */
  acquire(actor: Pick<Actor, 'principalId'>): (() => void) | null {
    const held = this.open.get(actor.principalId) ?? 0;
    if (held >= this.limits.perPrincipal || this.count >= this.limits.total || this.ending.signal.aborted) return null;
    this.open.set(actor.principalId, held + 1);
    this.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.count--;
      const left = (this.open.get(actor.principalId) ?? 1) - 1;
      if (left > 0) this.open.set(actor.principalId, left);
      else this.open.delete(actor.principalId);
    };
  }

  /** Streams open now (tests). */
  get size(): number {
    return this.count;
  }

  /** Ends every stream and admits no new one (the server is draining). */
  end(): void {
    this.ending.abort();
  }

  get signal(): AbortSignal {
    return this.ending.signal;
  }
}

export interface LiveRead<T> {
  /** The object as the caller may see it now (null: missing, or not theirs to read). */
  read(): Promise<T | null>;
  /** Changes whenever anything the client may select changes. */
  fingerprint(value: T): string;
  /** The object will not change again: sent, then the stream ends. */
  final(value: T): boolean;
}

/**
 * A stream of `source`'s object for the caller of `ctx`: its state now, then each change, ending
 * after a final state or a null (nothing to follow). Throws a coded GraphQLError (an error event,
 * then the end) when the caller already holds their share of streams.
 */
export function liveObject<T>(ctx: GraphQLContext, actor: Actor, source: LiveRead<T>): AsyncIterable<T | null> {
  const streams = ctx.streams;
  const release = streams.acquire(actor);
  if (!release) {
    const { perPrincipal } = streams.limits;
    throw new GraphQLError(
      streams.signal.aborted
        ? 'The server is shutting down; subscribe again in a moment.'
        : `${perPrincipal} of your subscriptions are already open, the most allowed at once; close one and subscribe again.`,
      { extensions: { code: SUBSCRIPTION_LIMITED, limit: perPrincipal } },
    );
  }
  const { intervalMs, maxLifetimeMs } = streams.limits;
  return new Repeater<T | null>(async (push, stop) => {
    const ended = () => void stop();
    streams.signal.addEventListener('abort', ended, { once: true });
    const lifetime = setTimeout(ended, maxLifetimeMs);
    try {
      let last: string | undefined;
      for (;;) {
        const value = await source.read();
        const print = value === null ? 'null' : source.fingerprint(value);
        if (print !== last) {
          last = print;
          // Each event is resolved with loaders of its own: a request's loaders cache what they
          // read, and a stream is one long request.
          ctx.loaders = createLoaders(ctx.deps, ctx.actor);
          await push(value);
        }
        if (value === null || source.final(value)) break;
        const outcome = await Promise.race([stop.then(() => 'stopped' as const), new Promise<'tick'>((r) => setTimeout(() => r('tick'), intervalMs).unref())]);
        if (outcome === 'stopped') break;
      }
    } finally {
      clearTimeout(lifetime);
      streams.signal.removeEventListener('abort', ended);
      release();
      stop();
    }
  });
}

/**
 * Sends a subscription's event only when what the client selected changed: a source's
 * fingerprint covers the whole object, and a change in a field the client did not select would
 * otherwise send an event equal to the last. (A Repeater, not an async generator: a client that
 * goes away must end the source at once, not when its next value comes.)
 */
export function useDistinctEvents(): Plugin {
  return {
    onSubscribe: () => ({
      onSubscribeResult({ result, setResult }) {
        if (!isAsyncIterable(result)) return;
        setResult(
          new Repeater<ExecutionResult>(async (push, stop) => {
            const source = result[Symbol.asyncIterator]();
            const stopped = stop.then(() => ({ done: true, value: undefined }) as const);
            let last: string | undefined;
            try {
              for (;;) {
                const next = await Promise.race([source.next(), stopped]);
                if (next.done) break;
                const print = JSON.stringify(next.value);
                if (print === last) continue;
                last = print;
                await push(next.value);
              }
            } finally {
              await source.return?.();
              stop();
            }
          }),
        );
      },
    }),
  };
}

function isAsyncIterable<T>(value: T | AsyncIterable<T>): value is AsyncIterable<T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
