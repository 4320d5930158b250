import { describe, expect, it } from 'vitest';
import { parseGrid } from './lifecycle-grid.test-support.ts';
import { SELF_CONFIG_PHASES, TERMINAL_PHASES, type SelfConfigPhase } from './selfconfig.ts';
import { phaseOf, SELF_CONFIG_EVENTS, selfConfigTransition, type SelfConfigEvent } from './selfconfig-lifecycle.ts';

// The request's lifecycle written out as a grid (a row per phase, "new" for none yet; a column per
// event; the phase the event moves the request to, or "-" where it is refused), not read from the
// code's table.
const COLUMNS: SelfConfigEvent[] = ['observed', 'waitingForGate', 'held', 'gateOpened', 'applied', 'failed', 'denied', 'rejected', 'expired', 'verified', 'rolledBack', 'gateLost'];
const GRID = `
  new               Pending  -        -                 -          -        -       -       -         -        -        -           -
  Pending           Pending  Pending  AwaitingApproval  Verifying  Applied  Failed  Denied  -         -        -        -           -
  AwaitingApproval  -        -        -                 Verifying  Applied  Failed  Denied  Rejected  Expired  -        -           -
  Verifying         -        -        -                 -          -        -       -       -         -        Applied  RolledBack  Failed
  Applied           -        -        -                 -          -        -       -       -         -        -        -           -
  Failed            -        -        -                 -          -        -       -       -         -        -        -           -
  Denied            -        -        -                 -          -        -       -       -         -        -        -           -
  Rejected          -        -        -                 -          -        -       -       -         -        -        -           -
  Expired           -        -        -                 -          -        -       -       -         -        -        -           -
  RolledBack        -        -        -                 -          -        -       -       -         -        -        -           -
`;
const EXPECTED = parseGrid<SelfConfigPhase>(GRID, COLUMNS);
const ROWS = ['new', ...SELF_CONFIG_PHASES] as const;

describe('SelfConfig request lifecycle', () => {
  it('SC2 the grid names every phase and every event exactly once', () => {
    expect([...COLUMNS].sort()).toEqual([...SELF_CONFIG_EVENTS].sort());
    expect(EXPECTED.size).toBe(ROWS.length * SELF_CONFIG_EVENTS.length);
  });

  const pairs = ROWS.flatMap((phase) => SELF_CONFIG_EVENTS.map((event) => [phase, event] as const));
  it.each(pairs)('SC2 SG1 SG3 %s × %s', (phase, event) => {
    const expected = EXPECTED.get(`${phase} ${event}`);
    expect(expected).not.toBeUndefined();
    const t = selfConfigTransition(phase, event);
    if (expected === null) {
      expect(t).toMatchObject({ ok: false, from: phase, code: 'SELF_CONFIG_PHASE_CONFLICT' });
      if (!t.ok) expect(t.message).toContain(`that is ${phase} cannot take the event ${event}; it applies to one that is `);
    } else {
      expect(t).toMatchObject({ ok: true, from: phase, to: expected, reason: event });
    }
  });

  it('SC2 every request that is not ended can end, and an ended one takes no event', () => {
    for (const phase of ROWS) {
      const moves = SELF_CONFIG_EVENTS.map((e) => selfConfigTransition(phase, e)).flatMap((t) => (t.ok ? [t.to] : []));
      if (TERMINAL_PHASES.has(phase)) expect(moves).toEqual([]);
      else if (phase !== 'new') expect(moves.some((to) => to !== null && TERMINAL_PHASES.has(to))).toBe(true);
      else expect(moves).toEqual(['Pending']);
    }
  });

  it('SC2 a status with no phase, or one nobody here writes, is new; each known phase is itself', () => {
    for (const status of [undefined, null, {}, { phase: 'Submitted' }, { phase: 7 }, { phase: 'pending' }]) expect(phaseOf(status)).toBe('new');
    for (const phase of SELF_CONFIG_PHASES) expect(phaseOf({ phase })).toBe(phase);
    const refused = selfConfigTransition('Verifying', 'rejected');
    expect(refused.ok ? '' : refused.message).toBe('A request that is Verifying cannot take the event rejected; it applies to one that is AwaitingApproval.');
  });
});
