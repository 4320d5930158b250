import type { Actor } from '../services/deps.ts';

// Rule P7: each authenticated principal has a cost budget and a cap on its requests in execution.
//
// The budget is a token bucket, as GitHub's GraphQL rate limit is: `points` a principal may spend
// at once, refilled continuously so that the whole of it comes back over `windowSeconds`. Each
// operation spends its cost (cost.ts, at least 1) before it runs; one that costs more than is left
// is refused and spends nothing. When it has run, its cost with every page counted at the items it
// held, not the size asked for, is kept and the rest given back, as Shopify's requested and actual
// query costs are (cost.ts resultCost): admission still needs the whole price of full pages, so a
// principal cannot start more heavy reads at once than its budget holds, but a page view whose
// lists are short costs what it read. Only pages give back: a first version priced the answer
// object by object, which let the clients of a document that reads the cluster per agent (its
// per-agent lists short, its reads not) get twice the answers and another user's p95 4.50× idle,
// against 2.18× charging in full and 1.70× with only pages giving back, every document within 2×
// (bench/api/fairness.bench.ts, one run each, 2026-12-05). Charged at the price of full pages, one
// view of a namespace's Access page (nine requests, most asking for 100) cost about 15,000 points,
// and two views a few seconds apart were refused. The cap counts the principal's requests from
// admission until their result is ready. Limits are per principal kind (a person at the console, a
// service principal: an agent or a script). The state is per process and bounded in size, as the
// failed-authentication throttle's is (http/throttle.ts): with several replicas each keeps its own.
//
// Defaults, for the console: its largest document costs 5,305 with every page at 100 (limits.ts);
// its heaviest page view, the agents list, about 8,400 (agents and configurations at 100, the
// namespace header's list, the viewer); while a deploy is in flight an agent's page polls about
// 1,000 a second (two revision lists every second, the runtime every two). 30,000 points refilled
// over 20 s is three such page views at once and 1,500 points a second after that. A larger burst
// at about the same rate (100,000 over 60 s) let four readers at their limits slow another user's
// answers 1.06-3.77× at p95, this one 0.81-1.58× (bench/api/fairness.bench.ts on a shared machine,
// one run of that and two of this, documents whose cost matches their work; one that reads the
// cluster for every agent was far over with both). Eight requests at once is a browser's six
// connections to one origin with room for a poll. Service principals get the same: the bootstrap
// principal is one, and it is the one the first operator signs in to the console with (and the
// browser tests run as); an installation whose agents call the API can give them less
// (OCC_GRAPHQL_BUDGET_SERVICE, env.ts).

export type PrincipalKind = Actor['kind'];

export interface BudgetLimits {
  /** Points spendable at once; the whole budget refills over the window. */
  points: number;
  windowSeconds: number;
  /** Requests of one principal in execution at once. */
  concurrency: number;
}

export type BudgetLimitsByKind = Record<PrincipalKind, BudgetLimits>;

export const DEFAULT_BUDGET_LIMITS: BudgetLimitsByKind = {
  HUMAN: { points: 30_000, windowSeconds: 20, concurrency: 8 },
  SERVICE: { points: 30_000, windowSeconds: 20, concurrency: 8 },
};

/** What a principal has left, as the X-RateLimit-* headers say it. */
export interface Allowance {
  limit: number;
  /** Whole points left. */
  remaining: number;
  /** When the budget is whole again, in Unix seconds. */
  resetAt: number;
}

export type Admission =
  | {
      admitted: true;
      allowance: Allowance;
      /**
       * The request's result is ready: its slot is free, and what it spent beyond `actualCost` (its
       * cost by what its pages held, cost.ts resultCost) is given back. Without it nothing is.
       */
      release(actualCost?: number): void;
    }
  | { admitted: false; refusal: 'RATE_LIMITED' | 'CONCURRENCY_LIMITED'; retryAfterSeconds: number; allowance: Allowance; limits: BudgetLimits };

export interface PrincipalBudgetOptions {
  limits?: BudgetLimitsByKind;
  /** Most principals kept; the least recently seen with nothing in execution are forgotten first. */
  maxEntries?: number;
  /** Milliseconds, as Date.now. */
  now?: () => number;
}

interface Entry {
  /**
   * Points left times the window in milliseconds: refilling adds `points` per millisecond, so the
   * arithmetic stays in whole numbers (a refill of 200 points must let a 400-point operation
   * through after 200 were left, not leave 399.99999999999997).
   */
  scaled: number;
  at: number;
  inFlight: number;
}

type Principal = Pick<Actor, 'principalId' | 'kind'>;

export class PrincipalBudget {
  private readonly entries = new Map<string, Entry>();
  private readonly limits: BudgetLimitsByKind;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: PrincipalBudgetOptions = {}) {
    this.limits = options.limits ?? DEFAULT_BUDGET_LIMITS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Admits one operation of `cost` points, or refuses it and changes nothing. An admitted one is
   * in execution until `release` is called (once; later calls do nothing).
   */
  admit(principal: Principal, cost: number): Admission {
    const limits = this.limits[principal.kind];
    const now = this.now();
    const entry = this.refreshed(principal, limits, now);
    const spend = Math.max(1, cost);
    if (entry.inFlight >= limits.concurrency) {
      return { admitted: false, refusal: 'CONCURRENCY_LIMITED', retryAfterSeconds: 1, allowance: allowance(entry, limits, now), limits };
    }
    const window = windowMs(limits);
    if (entry.scaled < spend * window) {
      // An operation dearer than the whole budget waits for all of it, and is refused again then.
      const missingMs = (Math.min(spend, limits.points) * window - entry.scaled) / limits.points;
      const retryAfterSeconds = Math.max(1, Math.ceil(missingMs / 1000));
      return { admitted: false, refusal: 'RATE_LIMITED', retryAfterSeconds, allowance: allowance(entry, limits, now), limits };
    }
    entry.scaled -= spend * window;
    entry.inFlight++;
    let released = false;
    return {
      admitted: true,
      allowance: allowance(entry, limits, now),
      release: (actualCost) => {
        if (released) return;
        released = true;
        entry.inFlight--;
        const refund = actualCost === undefined ? 0 : spend - Math.max(1, Math.ceil(actualCost));
        // Past the whole budget only until the next read, which caps it (refreshed).
        if (refund > 0) entry.scaled += refund * window;
      },
    };
  }

  /** What the principal has left now, spending nothing. */
  peek(principal: Principal): Allowance {
    const limits = this.limits[principal.kind];
    const now = this.now();
    return allowance(this.refreshed(principal, limits, now), limits, now);
  }

  /** How many principals are held (tests check the bound). */
  get size(): number {
    return this.entries.size;
  }

  private refreshed(principal: Principal, limits: BudgetLimits, now: number): Entry {
    let entry = this.entries.get(principal.principalId);
    if (entry) {
      entry.scaled = Math.min(limits.points * windowMs(limits), entry.scaled + Math.max(0, now - entry.at) * limits.points);
      entry.at = now;
      // Re-inserting moves the principal to the end: the map's order is least recently seen first.
      this.entries.delete(principal.principalId);
    } else {
      entry = { scaled: limits.points * windowMs(limits), at: now, inFlight: 0 };
    }
    this.entries.set(principal.principalId, entry);
    if (this.entries.size > this.maxEntries) this.forget();
    return entry;
  }

  /**
   * Forgets the least recently seen principals with nothing in execution (forgetting one whose
   * requests still run would let it past its cap). Those in execution are bounded by the
   * connections the server holds, so the map stays bounded.
   */
  private forget(): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries) return;
      if (entry.inFlight === 0) this.entries.delete(id);
    }
  }
}

const windowMs = (limits: BudgetLimits) => limits.windowSeconds * 1000;

function allowance(entry: Entry, limits: BudgetLimits, now: number): Allowance {
  const window = windowMs(limits);
  const untilFullMs = (limits.points * window - entry.scaled) / limits.points;
  return { limit: limits.points, remaining: Math.floor(entry.scaled / window), resetAt: Math.ceil((now + untilFullMs) / 1000) };
}
