import type { IncomingMessage } from 'node:http';
import { apiKeyPrefix } from '../services/api-keys.ts';

// Failed authentication is throttled per client address and per API-key prefix (P5).
//
// Only failures spend budget, and a request that presents valid credentials is always served:
// an attacker sharing an address with an administrator (a NAT, an ingress) must not be able to
// lock the administrator out by sending bad keys. Keys and session tokens are 256-bit random
// values, so the budget is not what stops guessing; it bounds the work and the audit volume
// that failures cost, and it tells a misconfigured client to back off (429 with Retry-After).
// The state is per process and bounded in size: with several replicas each keeps its own.

export interface ThrottleBucketLimits {
  /** Failures allowed in a burst. */
  burst: number;
  /** Failures forgiven per second after that. */
  refillPerSecond: number;
}

export interface AuthThrottleOptions {
  perAddress?: ThrottleBucketLimits;
  perKeyPrefix?: ThrottleBucketLimits;
  /** Most buckets kept; the least recently failed are forgotten first. */
  maxEntries?: number;
  now?: () => number;
}

export interface AuthFailureSubject {
  clientAddress: string;
  /** The public prefix of the presented API key (as `ApiKey.prefix` stores it), if any. */
  keyPrefix?: string | null;
}

interface Bucket {
  tokens: number;
  at: number;
}

export const DEFAULT_PER_ADDRESS: ThrottleBucketLimits = { burst: 20, refillPerSecond: 0.5 };
export const DEFAULT_PER_KEY_PREFIX: ThrottleBucketLimits = { burst: 10, refillPerSecond: 0.1 };

export class AuthThrottle {
  // Two maps, so that failures under many random key prefixes cannot evict the address buckets.
  private readonly addresses = new Map<string, Bucket>();
  private readonly prefixes = new Map<string, Bucket>();
  private readonly perAddress: ThrottleBucketLimits;
  private readonly perKeyPrefix: ThrottleBucketLimits;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: AuthThrottleOptions = {}) {
    this.perAddress = options.perAddress ?? DEFAULT_PER_ADDRESS;
    this.perKeyPrefix = options.perKeyPrefix ?? DEFAULT_PER_KEY_PREFIX;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Records one failed authentication and answers how many seconds the subject must wait before
   * its failures are answered with anything but 429 (0: not throttled).
   */
  fail(subject: AuthFailureSubject): number {
    let wait = this.spend(this.addresses, subject.clientAddress, this.perAddress);
    if (subject.keyPrefix) wait = Math.max(wait, this.spend(this.prefixes, subject.keyPrefix, this.perKeyPrefix));
    return wait;
  }

  /** How many buckets are held (tests check the bound). */
  get size(): { addresses: number; prefixes: number } {
    return { addresses: this.addresses.size, prefixes: this.prefixes.size };
  }

  private spend(buckets: Map<string, Bucket>, key: string, limits: ThrottleBucketLimits): number {
    const now = this.now();
    const previous = buckets.get(key);
    const refilled = previous ? Math.min(limits.burst, previous.tokens + ((now - previous.at) / 1000) * limits.refillPerSecond) : limits.burst;
    // A client that keeps failing while throttled keeps the debt at its largest, so it waits the
    // longest (burst / refill seconds) but never longer.
    const tokens = Math.max(refilled - 1, -limits.burst);
    // Re-inserting moves the key to the end, so the map's order is least recently failed first.
    buckets.delete(key);
    buckets.set(key, { tokens, at: now });
    while (buckets.size > this.maxEntries) buckets.delete(buckets.keys().next().value!);
    return tokens >= 0 ? 0 : Math.ceil(-tokens / limits.refillPerSecond);
  }
}

/** The prefix under which an API key is listed (`ApiKey.prefix`); null for anything else. */
export function keyPrefixOf(presented: string): string | null {
  return presented.startsWith('occ_') ? apiKeyPrefix(presented) : null;
}

/** The peer's address as this server sees it; behind a proxy, the proxy's (README: P5). */
export function clientAddressOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
