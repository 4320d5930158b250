// SG4: budgets per instance. An agent that can change itself can also do so in a loop: at most N
// requests an hour and M applied changes a day, and after K rollbacks (SG1) no more until an
// administrator resumes it. Pure: the controller brings the instance's spec, what its history holds
// and the time; the decision says why, and when the budget refills.

export interface SelfConfigBudget {
  requestsPerHour: number;
  appliedPerDay: number;
  pauseAfterRollbacks: number;
}

/** Sane defaults for an installation that sets none (overridden per installation by env, per instance by its spec). */
export const DEFAULT_SELF_CONFIG_BUDGET: SelfConfigBudget = { requestsPerHour: 30, appliedPerDay: 50, pauseAfterRollbacks: 3 };

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** The reasons a budget refuses with: a Denied request with one of them does not count against the budget. */
export const BUDGET_REASONS = ['RequestBudgetExceeded', 'AppliedBudgetExceeded', 'SelfConfigPaused'] as const;
export type BudgetReason = (typeof BUDGET_REASONS)[number];

const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : null);

/** The instance's `spec.selfConfigure.budget`, each field falling back to `defaults` when absent or not a positive integer. */
export function budgetOf(instanceSpec: unknown, defaults: SelfConfigBudget = DEFAULT_SELF_CONFIG_BUDGET): SelfConfigBudget {
  const spec = typeof instanceSpec === 'object' && instanceSpec !== null ? (instanceSpec as Record<string, unknown>) : {};
  const sc = typeof spec.selfConfigure === 'object' && spec.selfConfigure !== null ? (spec.selfConfigure as Record<string, unknown>) : {};
  const b = typeof sc.budget === 'object' && sc.budget !== null ? (sc.budget as Record<string, unknown>) : {};
  return {
    requestsPerHour: positive(b.requestsPerHour) ?? defaults.requestsPerHour,
    appliedPerDay: positive(b.appliedPerDay) ?? defaults.appliedPerDay,
    pauseAfterRollbacks: positive(b.pauseAfterRollbacks) ?? defaults.pauseAfterRollbacks,
  };
}

export interface BudgetUsage {
  /** When each earlier request of the instance reached Pending within the last hour (budget refusals left out). */
  requestsInLastHour: readonly Date[];
  /** When each request of the instance applied within the last day. */
  appliedInLastDay: readonly Date[];
  /** Rollbacks since an administrator last resumed the agent. */
  rollbacksSinceResume: number;
}

export interface BudgetRefusal {
  reason: BudgetReason;
  message: string;
  /** When the budget has room again; null while paused (only an administrator ends a pause). */
  refillsAt: Date | null;
}

/** "12m 5s", "1h 0m 3s": the wait a message names. */
export function describeWait(ms: number): string {
  const total = Math.max(1, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${m}m ${s}s`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

/**
 * The room this request needs runs out when `limit` earlier ones lie within `windowMs` of now: it
 * comes back when the oldest of the last `limit` leaves the window.
 */
function refillOf(times: readonly Date[], limit: number, windowMs: number): Date {
  const sorted = [...times].map((t) => t.getTime()).sort((a, b) => b - a);
  return new Date(sorted[limit - 1]! + windowMs);
}

/** SG4: null when the request fits the budget, else why not and when it refills. Order: pause, then requests, then applied changes. */
export function budgetRefusal(budget: SelfConfigBudget, usage: BudgetUsage, now: Date): BudgetRefusal | null {
  if (usage.rollbacksSinceResume >= budget.pauseAfterRollbacks) {
    return {
      reason: 'SelfConfigPaused',
      message: `self-configuration is paused after ${usage.rollbacksSinceResume} rollback(s) (at most ${budget.pauseAfterRollbacks}); an administrator resumes it (resumeSelfConfig)`,
      refillsAt: null,
    };
  }
  const recent = usage.requestsInLastHour.filter((t) => t.getTime() > now.getTime() - HOUR_MS);
  if (recent.length >= budget.requestsPerHour) {
    const refillsAt = refillOf(recent, budget.requestsPerHour, HOUR_MS);
    return {
      reason: 'RequestBudgetExceeded',
      message: `over budget: ${recent.length} request(s) in the last hour (at most ${budget.requestsPerHour} per hour); the budget refills in ${describeWait(refillsAt.getTime() - now.getTime())}, at ${refillsAt.toISOString()}`,
      refillsAt,
    };
  }
  const applied = usage.appliedInLastDay.filter((t) => t.getTime() > now.getTime() - DAY_MS);
  if (applied.length >= budget.appliedPerDay) {
    const refillsAt = refillOf(applied, budget.appliedPerDay, DAY_MS);
    return {
      reason: 'AppliedBudgetExceeded',
      message: `over budget: ${applied.length} change(s) applied in the last day (at most ${budget.appliedPerDay} per day); the budget refills in ${describeWait(refillsAt.getTime() - now.getTime())}, at ${refillsAt.toISOString()}`,
      refillsAt,
    };
  }
  return null;
}
