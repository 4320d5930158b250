import { describe, expect, it } from 'vitest';
import { budgetOf, budgetRefusal, describeWait, type BudgetUsage } from './selfconfig-budget.ts';

// SG4's arithmetic, with times written out rather than derived from the module's constants: the
// limits, the refill time (when the oldest counted item leaves its window) and the pause.

const now = new Date('2026-12-01T12:00:00.000Z');
const at = (iso: string) => new Date(iso);
const none: BudgetUsage = { requestsInLastHour: [], appliedInLastDay: [], rollbacksSinceResume: 0 };

describe('SG4 budgets', () => {
  it('SG4 an instance without a budget gets 30 requests an hour, 50 applied changes a day and a pause after 3 rollbacks', () => {
    expect(budgetOf({ selfConfigure: { enabled: true } })).toEqual({ requestsPerHour: 30, appliedPerDay: 50, pauseAfterRollbacks: 3 });
    expect(budgetOf({ selfConfigure: { budget: { requestsPerHour: 2, appliedPerDay: 0, pauseAfterRollbacks: 1.5 } } })).toEqual({ requestsPerHour: 2, appliedPerDay: 50, pauseAfterRollbacks: 3 });
    expect(budgetOf({}, { requestsPerHour: 7, appliedPerDay: 8, pauseAfterRollbacks: 9 })).toEqual({ requestsPerHour: 7, appliedPerDay: 8, pauseAfterRollbacks: 9 });
  });

  it('SG4 the third request in an hour with a budget of 2 is refused until the older of the two leaves the hour', () => {
    const budget = { requestsPerHour: 2, appliedPerDay: 50, pauseAfterRollbacks: 3 };
    const usage = { ...none, requestsInLastHour: [at('2026-12-01T11:50:00Z'), at('2026-12-01T11:20:00Z')] };
    const refusal = budgetRefusal(budget, usage, now);
    expect(refusal).toMatchObject({ reason: 'RequestBudgetExceeded', refillsAt: at('2026-12-01T12:20:00Z') });
    expect(refusal?.message).toContain('2 request(s) in the last hour (at most 2 per hour)');
    expect(refusal?.message).toContain('refills in 20m 0s, at 2026-12-01T12:20:00.000Z');
    // One of them more than an hour ago: room again.
    expect(budgetRefusal(budget, { ...none, requestsInLastHour: [at('2026-12-01T11:50:00Z'), at('2026-12-01T10:59:59Z')] }, now)).toBeNull();
  });

  it('SG4 applied changes per day: the refill is a day after the oldest of the last M', () => {
    const budget = { requestsPerHour: 30, appliedPerDay: 3, pauseAfterRollbacks: 3 };
    const applied = [at('2026-12-01T11:00:00Z'), at('2026-11-30T18:00:00Z'), at('2026-11-30T13:30:00Z'), at('2026-11-30T11:00:00Z')];
    const refusal = budgetRefusal(budget, { ...none, appliedInLastDay: applied }, now);
    expect(refusal).toMatchObject({ reason: 'AppliedBudgetExceeded', refillsAt: at('2026-12-01T13:30:00Z') });
    expect(refusal?.message).toContain('3 change(s) applied in the last day (at most 3 per day)');
    expect(refusal?.message).toContain('refills in 1h 30m 0s');
    expect(budgetRefusal(budget, { ...none, appliedInLastDay: applied.slice(0, 2) }, now)).toBeNull();
  });

  it('SG4 K rollbacks since the last resume pause the agent with no refill time; fewer do not', () => {
    const budget = { requestsPerHour: 30, appliedPerDay: 50, pauseAfterRollbacks: 3 };
    expect(budgetRefusal(budget, { ...none, rollbacksSinceResume: 2 }, now)).toBeNull();
    const paused = budgetRefusal(budget, { ...none, rollbacksSinceResume: 3 }, now);
    expect(paused).toMatchObject({ reason: 'SelfConfigPaused', refillsAt: null });
    expect(paused?.message).toContain('resumeSelfConfig');
  });

  it('SG4 waits are named in hours, minutes and seconds, never as zero', () => {
    expect(describeWait(0)).toBe('1s');
    expect(describeWait(61_000)).toBe('1m 1s');
    expect(describeWait(3_600_500)).toBe('1h 0m 1s');
  });
});
