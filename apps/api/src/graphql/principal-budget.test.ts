import { describe, expect, it } from 'vitest';
import { PrincipalBudget, type BudgetLimitsByKind } from './principal-budget.ts';

// Rule P7: the per-principal state is per process and bounded; the HTTP behaviour is proven in
// rate-limits.test.ts. 100 points over 10 s (10 a second), one request at a time, for both kinds.

const LIMITS: BudgetLimitsByKind = {
  HUMAN: { points: 100, windowSeconds: 10, concurrency: 1 },
  SERVICE: { points: 100, windowSeconds: 10, concurrency: 1 },
};
const person = (n: number) => ({ principalId: `hum_${n}`, kind: 'HUMAN' as const });

describe('P7 principal budget state', () => {
  it('P7 holds at most maxEntries principals, forgetting the least recently seen first', () => {
    const budget = new PrincipalBudget({ limits: LIMITS, maxEntries: 3, now: () => 0 });
    for (let i = 0; i < 10; i++) {
      const admission = budget.admit(person(i), 60);
      if (admission.admitted) admission.release();
    }
    expect(budget.size).toBe(3);
    // hum_9 is remembered (40 left); hum_0 was forgotten, so it starts whole again.
    expect(budget.peek(person(9)).remaining).toBe(40);
    expect(budget.peek(person(0)).remaining).toBe(100);
  });

  it('P7 a principal with a request in execution is never forgotten, so its cap holds', () => {
    const budget = new PrincipalBudget({ limits: LIMITS, maxEntries: 2, now: () => 0 });
    const running = budget.admit(person(0), 10);
    expect(running.admitted).toBe(true);
    for (let i = 1; i < 10; i++) {
      const admission = budget.admit(person(i), 10);
      if (admission.admitted) admission.release();
    }
    expect(budget.admit(person(0), 10)).toMatchObject({ admitted: false, refusal: 'CONCURRENCY_LIMITED', allowance: { remaining: 90 } });
    if (!running.admitted) throw new Error('the first request was refused');
    running.release();
    running.release(); // a second release changes nothing
    const next = budget.admit(person(0), 10);
    expect(next).toMatchObject({ admitted: true, allowance: { remaining: 80 } });
    expect(budget.admit(person(0), 10)).toMatchObject({ admitted: false, refusal: 'CONCURRENCY_LIMITED' });
  });

  it('P7 an operation dearer than the whole budget is refused, and told to wait for all of it', () => {
    let now = 0;
    const budget = new PrincipalBudget({ limits: LIMITS, now: () => now });
    const first = budget.admit(person(1), 30);
    if (first.admitted) first.release();
    // 70 left; 150 can never fit in 100: the wait is for the missing 30 (3 s), then refused again.
    expect(budget.admit(person(1), 150)).toMatchObject({ admitted: false, refusal: 'RATE_LIMITED', retryAfterSeconds: 3 });
    now = 3_000;
    expect(budget.admit(person(1), 150)).toMatchObject({ admitted: false, refusal: 'RATE_LIMITED', allowance: { remaining: 100 } });
  });

  it('P7 a finished request keeps what its result cost and gives the rest back, never past the whole budget', () => {
    let now = 0;
    const budget = new PrincipalBudget({ limits: LIMITS, now: () => now });
    const admit = (cost: number) => {
      const admission = budget.admit(person(2), cost);
      if (!admission.admitted) throw new Error(`refused: ${admission.refusal}`);
      return admission;
    };
    admit(60).release(8); // 60 at admission, 8 kept
    expect(budget.peek(person(2)).remaining).toBe(92);
    admit(60).release(); // nothing known of the result: all 60 kept
    expect(budget.peek(person(2)).remaining).toBe(32);
    now = 5_000; // 50 back: 82
    admit(30).release(80); // a result dearer than its price keeps the price, never more
    expect(budget.peek(person(2)).remaining).toBe(52);
    const running = admit(50); // 2 left while it runs
    expect(budget.admit(person(3), 1).admitted).toBe(true); // another principal's budget is its own
    now = 15_000;
    expect(budget.peek(person(2)).remaining).toBe(100); // refilled to the whole 100 meanwhile
    running.release(0); // keeps 1, the least any operation costs; gives back 49 but stays at 100
    expect(budget.peek(person(2)).remaining).toBe(100);
    running.release(0); // a second release gives nothing more
    expect(budget.peek(person(2))).toMatchObject({ remaining: 100 });
  });
});

