import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { parseGrid } from './lifecycle-grid.test-support.ts';
import {
  approvalRefusal,
  effectiveRotationPolicy,
  isOpenRollout,
  MANUAL_POLICY,
  nextRolloutAction,
  parseRotationPolicy,
  POLICY_BOUNDS,
  ROLLOUT_BATCH_EVENTS,
  ROLLOUT_BATCH_STATES,
  ROLLOUT_EVENT_KINDS,
  ROLLOUT_RECHECK_MS,
  ROLLOUT_STATES,
  rolloutBatchMove,
  rolloutBatchTransition,
  rolloutTransition,
  type MemberRevisionState,
  type RolloutBatchState,
  type RolloutEvent,
  type RolloutEventKind,
  type OpenBatch,
  type RotationPolicy,
  type RolloutSnapshot,
  type RolloutState,
} from './secret-rotation.ts';

const policyArb: fc.Arbitrary<RotationPolicy> = fc.record({
  mode: fc.constantFrom('MANUAL' as const, 'AUTOMATIC' as const),
  batchSize: fc.integer({ min: POLICY_BOUNDS.batchSize.min, max: 12 }),
  pauseSeconds: fc.integer({ min: 0, max: 120 }),
  readySeconds: fc.integer({ min: POLICY_BOUNDS.readySeconds.min, max: 600 }),
  approval: fc.constantFrom('NONE' as const, 'ANY_ADMINISTRATOR' as const, 'OTHER_ADMINISTRATOR' as const),
});

const auto = (over: Partial<RotationPolicy> = {}): RotationPolicy => ({ ...MANUAL_POLICY, mode: 'AUTOMATIC', ...over });

function snapshot(over: Partial<RolloutSnapshot> = {}): RolloutSnapshot {
  return { state: 'ROLLING', policy: auto(), nowMs: 1_000_000, lastRotatedAtMs: 0, lastBatchEndedAtMs: null, openBatch: null, stale: [], ...over };
}

describe('V4 rotation policy', () => {
  it('V4 a generated policy parses to itself; an absent field takes the manual default', () => {
    fc.assert(
      fc.property(policyArb, (p) => {
        expect(parseRotationPolicy(p)).toEqual(p);
      }),
    );
    expect(parseRotationPolicy({})).toEqual(MANUAL_POLICY);
    expect(parseRotationPolicy({ mode: 'AUTOMATIC' })).toEqual({ ...MANUAL_POLICY, mode: 'AUTOMATIC' });
  });

  it('V4 every field out of its bounds, of the wrong kind or unknown is refused naming the field, never quoting what was given', () => {
    const bad = fc.oneof(
      fc.record({ key: fc.constantFrom(...(Object.keys(POLICY_BOUNDS) as Array<keyof typeof POLICY_BOUNDS>)), value: fc.oneof(fc.double(), fc.string(), fc.integer({ min: -1000, max: 0 }), fc.integer({ min: 100_000, max: 10_000_000 })) }),
      fc.record({ key: fc.constantFrom('mode', 'approval'), value: fc.string({ minLength: 1 }) }),
      fc.record({ key: fc.string({ minLength: 1 }).filter((k) => !(k in MANUAL_POLICY) && k !== '__proto__'), value: fc.anything() }),
    );
    fc.assert(
      fc.property(bad, ({ key, value }) => {
        const input = { [key]: value };
        let parsed: RotationPolicy | null = null;
        let error: unknown = null;
        try {
          parsed = parseRotationPolicy(input);
        } catch (e) {
          error = e;
        }
        if (parsed) {
          // A generated value that happens to be valid (an integer within bounds, a real mode) parses.
          expect(parsed[key as keyof RotationPolicy]).toBe(value);
          return;
        }
        expect(error).toBeInstanceOf(ValidationError);
        const e = error as ValidationError;
        expect(e.code).toBe('INVALID_ROTATION_POLICY');
        if (key in MANUAL_POLICY) expect(e.field).toBe(`policy.${key}`);
        // Never quoting: the message is the one a fixed wrong input of the same field gets, so no part of
        // what was given (key or value) can reach it. A substring test would fail on a generated key such
        // as "name" that the fixed wording happens to contain.
        const known = key in MANUAL_POLICY;
        const reference = known ? { [key]: key === 'mode' || key === 'approval' ? '\u0000' : -1 } : { '\u0000': 0 };
        let referenceError: unknown = null;
        try {
          parseRotationPolicy(reference);
        } catch (r) {
          referenceError = r;
        }
        expect(referenceError).toBeInstanceOf(ValidationError);
        expect(e.message).toBe((referenceError as ValidationError).message);
      }),
    );
  });

  it('V4 the secret’s own policy wins, else the namespace default, else manual; a stored policy that no longer parses falls through', () => {
    fc.assert(
      fc.property(fc.option(policyArb, { nil: null }), fc.option(policyArb, { nil: null }), (own, ns) => {
        const { policy, source } = effectiveRotationPolicy(own, ns);
        if (own) expect({ policy, source }).toEqual({ policy: own, source: 'SECRET' });
        else if (ns) expect({ policy, source }).toEqual({ policy: ns, source: 'NAMESPACE' });
        else expect({ policy, source }).toEqual({ policy: MANUAL_POLICY, source: 'DEFAULT' });
      }),
    );
    expect(effectiveRotationPolicy({ batchSize: -1 }, auto()).source).toBe('NAMESPACE');
  });

  it('V4 approval: OTHER_ADMINISTRATOR refuses the rotator; the others do not', () => {
    expect(approvalRefusal(auto({ approval: 'OTHER_ADMINISTRATOR' }), 'prn_a', 'prn_a')).toMatch(/other than/);
    expect(approvalRefusal(auto({ approval: 'OTHER_ADMINISTRATOR' }), 'prn_a', 'prn_b')).toBeNull();
    expect(approvalRefusal(auto({ approval: 'ANY_ADMINISTRATOR' }), 'prn_a', 'prn_a')).toBeNull();
  });
});

// The rollout's lifecycle written out as grids (a row per state, "open" for none open yet; a
// column per event; the state it moves to, or "-" where it is refused), not read from the code.
// The first is for a policy that needs no approval; the second for one that does, where only the
// rotation and resume columns differ.
const ROLLOUT_COLUMNS: RolloutEventKind[] = ['rotated', 'approve', 'pause', 'resume', 'abort', 'batchStarted', 'batchFailed', 'rolledBack', 'succeeded'];
const NO_APPROVAL = `
  open               ROLLING       -        -       -        -        -        -             -            -
  AWAITING_APPROVAL  ROLLING       ROLLING  PAUSED  -        ABORTED  -        ROLLING_BACK  -            -
  ROLLING            ROLLING       -        PAUSED  -        ABORTED  ROLLING  ROLLING_BACK  -            SUCCEEDED
  PAUSED             PAUSED        -        -       ROLLING  ABORTED  -        ROLLING_BACK  -            -
  ROLLING_BACK       ROLLING_BACK  -        -       -        -        -        -             ROLLED_BACK  -
  SUCCEEDED          -             -        -       -        -        -        -             -            -
  ROLLED_BACK        -             -        -       -        -        -        -             -            -
  ABORTED            -             -        -       -        -        -        -             -            -
`;
const WITH_APPROVAL = `
  open               AWAITING_APPROVAL  -        -       -                  -        -        -             -            -
  AWAITING_APPROVAL  AWAITING_APPROVAL  ROLLING  PAUSED  -                  ABORTED  -        ROLLING_BACK  -            -
  ROLLING            AWAITING_APPROVAL  -        PAUSED  -                  ABORTED  ROLLING  ROLLING_BACK  -            SUCCEEDED
  PAUSED             PAUSED             -        -       AWAITING_APPROVAL  ABORTED  -        ROLLING_BACK  -            -
  ROLLING_BACK       ROLLING_BACK       -        -       -                  -        -        -             ROLLED_BACK  -
  SUCCEEDED          -                  -        -       -                  -        -        -             -            -
  ROLLED_BACK        -                  -        -       -                  -        -        -             -            -
  ABORTED            -                  -        -       -                  -        -        -             -            -
`;
const grid = (text: string) => parseGrid<RolloutState>(text, ROLLOUT_COLUMNS);
const event = (kind: RolloutEventKind, policy: RotationPolicy): RolloutEvent =>
  kind === 'rotated'
    ? { kind, policy }
    : kind === 'approve'
      ? { kind, policy, rotatorId: 'prn_rotator', approverId: 'prn_other' }
      : kind === 'resume'
        ? { kind, policy, approved: false }
        : { kind };
const ROLLOUT_ROWS: Array<RolloutState | null> = [null, ...ROLLOUT_STATES];
const rolloutPairs = (['NONE', 'ANY_ADMINISTRATOR'] as const).flatMap((approval) => ROLLOUT_ROWS.flatMap((state) => ROLLOUT_COLUMNS.map((kind) => [approval, state ?? 'open', kind] as const)));

describe('V4 rollout lifecycle', () => {
  it('V4 the grids name every state and every event exactly once', () => {
    expect([...ROLLOUT_COLUMNS].sort()).toEqual([...ROLLOUT_EVENT_KINDS].sort());
    for (const g of [NO_APPROVAL, WITH_APPROVAL]) expect(grid(g).size).toBe(ROLLOUT_ROWS.length * ROLLOUT_EVENT_KINDS.length);
  });

  it.each(rolloutPairs)('V4 approval %s: %s × %s', (approval, row, kind) => {
    const state = row === 'open' ? null : (row as RolloutState);
    const expected = grid(approval === 'NONE' ? NO_APPROVAL : WITH_APPROVAL).get(`${row} ${kind}`);
    expect(expected).not.toBeUndefined();
    const t = rolloutTransition(state, event(kind, auto({ approval })));
    if (expected === null) {
      expect(t).toMatchObject({ ok: false, from: state, code: 'ROLLOUT_STATE_CONFLICT' });
      if (!t.ok) expect(t.message).toMatch(new RegExp(`^The rollout is ${state ?? 'not open'}; .* applies only to a rollout that is `));
    } else {
      expect(t).toMatchObject({ ok: true, from: state, to: expected });
    }
  });

  it('V4 a person decision refused names the rollout state and the states it applies in', () => {
    const refused = (state: RolloutState, e: RolloutEvent) => {
      const t = rolloutTransition(state, e);
      return t.ok ? null : t.message;
    };
    expect(refused('ROLLING', event('approve', auto()))).toBe('The rollout is ROLLING; approve applies only to a rollout that is AWAITING_APPROVAL.');
    expect(refused('ROLLING_BACK', { kind: 'abort' })).toBe('The rollout is ROLLING_BACK; abort applies only to a rollout that is AWAITING_APPROVAL, ROLLING or PAUSED.');
    expect(refused('SUCCEEDED', { kind: 'pause' })).toBe('The rollout is SUCCEEDED; pause applies only to a rollout that is AWAITING_APPROVAL or ROLLING.');
    expect(refused('ABORTED', { kind: 'batchStarted' })).toBe('The rollout is ABORTED; the event batchStarted applies only to a rollout that is ROLLING.');
    expect(refused('ROLLING', event('resume', auto()))).toBe('The rollout is ROLLING; resume applies only to a rollout that is PAUSED.');
    expect(refused('SUCCEEDED', event('rotated', auto()))).toBe('The rollout is SUCCEEDED; the event rotated applies only to a rollout that is not open, AWAITING_APPROVAL, ROLLING, PAUSED or ROLLING_BACK.');
  });

  it('V4 approve: OTHER_ADMINISTRATOR refuses the rotator with its own code; resume of an approved rollout rolls; each move says why', () => {
    const policy = auto({ approval: 'OTHER_ADMINISTRATOR' });
    expect(rolloutTransition('AWAITING_APPROVAL', { kind: 'approve', policy, rotatorId: 'prn_a', approverId: 'prn_a' })).toMatchObject({ ok: false, code: 'ROLLOUT_APPROVER_IS_ROTATOR', message: expect.stringMatching(/other than/) });
    expect(rolloutTransition('AWAITING_APPROVAL', { kind: 'approve', policy, rotatorId: 'prn_a', approverId: 'prn_b' })).toMatchObject({ ok: true, to: 'ROLLING', reason: 'Approved' });
    expect(rolloutTransition('PAUSED', { kind: 'resume', policy, approved: true })).toMatchObject({ ok: true, to: 'ROLLING', reason: 'Resumed' });
    expect(rolloutTransition('PAUSED', { kind: 'resume', policy, approved: false })).toMatchObject({ ok: true, to: 'AWAITING_APPROVAL', reason: 'Resumed' });
    expect(rolloutTransition(null, { kind: 'rotated', policy })).toMatchObject({ reason: 'Opened' });
    expect(rolloutTransition('ROLLING', { kind: 'rotated', policy })).toMatchObject({ reason: 'RotatedAgain' });
    expect(rolloutTransition('ROLLING', { kind: 'batchFailed' })).toMatchObject({ reason: 'BatchFailed' });
    expect(rolloutTransition('ROLLING_BACK', { kind: 'rolledBack' })).toMatchObject({ reason: 'RolledBack' });
    expect(rolloutTransition('ROLLING', { kind: 'succeeded' })).toMatchObject({ reason: 'Succeeded' });
    expect(rolloutTransition('ROLLING', { kind: 'pause' })).toMatchObject({ reason: 'Paused' });
    expect(rolloutTransition('PAUSED', { kind: 'abort' })).toMatchObject({ reason: 'Aborted' });
    expect(rolloutTransition('ROLLING', { kind: 'batchStarted' })).toMatchObject({ reason: 'BatchStarted' });
  });

  it('V4 generated: every open rollout ends (some path of events reaches an ended state), and an ended one takes no event', () => {
    fc.assert(
      fc.property(policyArb, fc.constantFrom(...ROLLOUT_STATES), fc.boolean(), (policy, state, approved) => {
        const moves = ROLLOUT_EVENT_KINDS.map((kind) => rolloutTransition(state, kind === 'resume' ? { kind, policy, approved } : event(kind, policy)));
        if (isOpenRollout(state)) expect(moves.some((t) => t.ok && t.to !== null && !isOpenRollout(t.to))).toBe(true);
        else expect(moves.every((t) => !t.ok)).toBe(true);
        // Whatever moved stayed a rollout: nothing moves one back to "none open".
        for (const t of moves) if (t.ok) expect(ROLLOUT_STATES).toContain(t.to);
      }),
    );
  });
});

const BATCH_GRID: Record<RolloutBatchState, Record<(typeof ROLLOUT_BATCH_EVENTS)[number], RolloutBatchState | null>> = {
  ROLLING: { ready: 'READY', failed: 'FAILED', rolledBack: null, rolloutAborted: 'ABORTED' },
  READY: { ready: null, failed: null, rolledBack: null, rolloutAborted: null },
  FAILED: { ready: null, failed: null, rolledBack: 'ROLLED_BACK', rolloutAborted: null },
  ROLLED_BACK: { ready: null, failed: null, rolledBack: null, rolloutAborted: null },
  ABORTED: { ready: null, failed: null, rolledBack: null, rolloutAborted: null },
};

describe('V4 rollout batch lifecycle', () => {
  const pairs = ROLLOUT_BATCH_STATES.flatMap((state) => ROLLOUT_BATCH_EVENTS.map((e) => [state, e] as const));
  it.each(pairs)('V4 batch %s × %s', (state, e) => {
    const expected = BATCH_GRID[state][e];
    const t = rolloutBatchTransition(state, e);
    if (expected === null) {
      expect(t).toMatchObject({ ok: false, from: state, code: 'ROLLOUT_BATCH_STATE_CONFLICT' });
      expect(rolloutBatchMove(e).from).not.toBe(state);
    } else {
      expect(t).toMatchObject({ ok: true, from: state, to: expected, reason: e });
      expect(rolloutBatchMove(e)).toEqual({ from: state, to: expected });
    }
  });
});

describe('V4 the next step of a rollout', () => {
  it('V4 an ended rollout does nothing; one rolling back rolls back', () => {
    for (const state of ROLLOUT_STATES) {
      const action = nextRolloutAction(snapshot({ state, stale: [{ agentId: 'a', deliveredVersion: 1, inFlight: false }] }));
      if (!isOpenRollout(state)) expect(action).toEqual({ kind: 'done' });
      if (state === 'ROLLING_BACK') expect(action).toEqual({ kind: 'roll-back' });
    }
  });

  it('V4 a batch is never larger than the policy, names each agent once, skips agents another deploy already moves, and takes the oldest versions first', () => {
    const staleArb = fc.array(fc.record({ agentId: fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), deliveredVersion: fc.integer({ min: 1, max: 4 }), inFlight: fc.boolean() }), { maxLength: 20 });
    fc.assert(
      fc.property(policyArb, staleArb, (policy, stale) => {
        const action = nextRolloutAction(snapshot({ policy: { ...policy, mode: 'AUTOMATIC' }, stale }));
        const free = stale.filter((c) => !c.inFlight);
        if (free.length === 0) {
          expect(action.kind).toBe(stale.length ? 'wait' : 'succeed');
          return;
        }
        expect(action.kind).toBe('start-batch');
        const ids = (action as { agentIds: string[] }).agentIds;
        expect(ids.length).toBeLessThanOrEqual(policy.batchSize);
        expect(new Set(ids).size).toBe(ids.length);
        const freeIds = new Set(free.map((c) => c.agentId));
        for (const id of ids) expect(freeIds.has(id)).toBe(true);
        // Oldest first: no agent left out holds an older version than one taken.
        const oldest = (id: string) => Math.min(...free.filter((c) => c.agentId === id).map((c) => c.deliveredVersion));
        const left = [...freeIds].filter((id) => !ids.includes(id));
        if (left.length) expect(Math.min(...left.map(oldest))).toBeGreaterThanOrEqual(Math.max(...ids.map(oldest)));
      }),
    );
  });

  it('V4 no batch starts within the pause after the last rotation or the last batch, nor while awaiting approval or paused', () => {
    fc.assert(
      fc.property(policyArb, fc.integer({ min: 0, max: 500_000 }), fc.option(fc.integer({ min: 0, max: 500_000 }), { nil: null }), fc.constantFrom<RolloutState>('ROLLING', 'AWAITING_APPROVAL', 'PAUSED'), (policy, rotatedAgo, batchAgo, state) => {
        const nowMs = 1_000_000;
        const action = nextRolloutAction(
          snapshot({ state, policy, nowMs, lastRotatedAtMs: nowMs - rotatedAgo, lastBatchEndedAtMs: batchAgo === null ? null : nowMs - batchAgo, stale: [{ agentId: 'a', deliveredVersion: 1, inFlight: false }] }),
        );
        const settled = rotatedAgo >= policy.pauseSeconds * 1000 && (batchAgo === null || batchAgo >= policy.pauseSeconds * 1000);
        expect(action.kind === 'start-batch').toBe(state === 'ROLLING' && settled);
        if (state === 'ROLLING' && !settled) {
          expect(action).toMatchObject({ kind: 'wait', untilMs: Math.max(nowMs - rotatedAgo, batchAgo === null ? 0 : nowMs - batchAgo) + policy.pauseSeconds * 1000 });
        }
      }),
    );
  });

  it('V4 an open batch: deployed members first, then Ready when every member is active (or taken over), failed on a failed revision, a refusal or the deadline, whatever the rollout state', () => {
    const memberArb = fc.record({
      agentId: fc.uuid(),
      revision: fc.option(
        fc.record({ state: fc.constantFrom<MemberRevisionState>('queued', 'preparing', 'prepared', 'activating', 'active', 'failed', 'superseded', 'stopped'), failureCode: fc.constant('GATEWAY_NOT_READY'), failureMessage: fc.constant('CrashLoopBackOff') }),
        { nil: null },
      ),
      refusal: fc.option(fc.constant({ code: 'FORBIDDEN', message: 'may not deploy' }), { nil: null, freq: 6 }),
    });
    fc.assert(
      fc.property(fc.array(memberArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 700_000 }), policyArb, fc.constantFrom<RolloutState>('ROLLING', 'AWAITING_APPROVAL', 'PAUSED'), (members, elapsed, policy, state) => {
        const nowMs = 1_000_000;
        const action = nextRolloutAction(snapshot({ state, policy, nowMs, openBatch: { index: 2, startedAtMs: nowMs - elapsed, members } }));
        const done = (s: MemberRevisionState) => s === 'active' || s === 'superseded' || s === 'stopped';
        if (members.some((m) => m.refusal)) expect(action).toMatchObject({ kind: 'batch-failed', code: 'FORBIDDEN' });
        else if (members.some((m) => !m.revision)) expect(action).toEqual({ kind: 'deploy-members', agentIds: members.filter((m) => !m.revision).map((m) => m.agentId) });
        else if (members.some((m) => m.revision!.state === 'failed')) expect(action).toMatchObject({ kind: 'batch-failed', code: 'GATEWAY_NOT_READY' });
        else if (members.every((m) => done(m.revision!.state))) expect(action).toEqual({ kind: 'batch-ready' });
        else if (elapsed >= policy.readySeconds * 1000) expect(action).toMatchObject({ kind: 'batch-failed', code: 'BATCH_NOT_READY' });
        else expect(action).toEqual({ kind: 'wait', untilMs: nowMs - elapsed + policy.readySeconds * 1000, why: 'batch 3 becoming Ready' });
      }),
    );
  });

  it('V4 a failed batch says which agent and why: a refusal, a failed revision with or without its code and message, or the members not Ready by the deadline', () => {
    const policy = auto({ readySeconds: 60 });
    const nowMs = 1_000_000;
    const revision = (state: MemberRevisionState, failureCode: string | null = null, failureMessage: string | null = null) => ({ state, failureCode, failureMessage });
    const batch = (members: OpenBatch['members'], elapsed = 0) => nextRolloutAction(snapshot({ policy, nowMs, openBatch: { index: 2, startedAtMs: nowMs - elapsed, members } }));
    expect(batch([{ agentId: 'a', revision: null, refusal: { code: 'FORBIDDEN', message: 'may not deploy' } }])).toEqual({ kind: 'batch-failed', code: 'FORBIDDEN', message: 'Agent a was not deployed: may not deploy' });
    expect(batch([{ agentId: 'a', revision: revision('failed'), refusal: null }])).toEqual({ kind: 'batch-failed', code: 'REVISION_FAILED', message: "Agent a's revision failed." });
    expect(batch([{ agentId: 'a', revision: revision('active'), refusal: null }, { agentId: 'b', revision: revision('failed', 'GATEWAY_NOT_READY', 'CrashLoopBackOff'), refusal: null }])).toEqual({
      kind: 'batch-failed',
      code: 'GATEWAY_NOT_READY',
      message: "Agent b's revision failed: CrashLoopBackOff",
    });
    const slow = [{ agentId: 'a', revision: revision('active'), refusal: null }, { agentId: 'b', revision: revision('activating'), refusal: null }, { agentId: 'c', revision: revision('queued'), refusal: null }];
    expect(batch(slow, 60_000)).toEqual({ kind: 'batch-failed', code: 'BATCH_NOT_READY', message: 'Batch 3 was not Ready within 60 s: b, c not Ready.' });
    expect(batch(slow, 59_999)).toEqual({ kind: 'wait', untilMs: nowMs + 1, why: 'batch 3 becoming Ready' });
  });

  /**
   * A small world: agents each run one version; a batch's deploys deliver the version current when
   * they start, and take `deploySeconds` to be Ready; rotations arrive at generated times. Driven by
   * nextRolloutAction alone, every run must end with every agent on the last version, batches within
   * the policy, and (the debounce) no version delivered whose successor came within the pause.
   */
  it('V4 simulated rollouts under generated rotations: all agents end on the last version, and a version rotated past within the pause is never delivered', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 20 }),
        (agents, batchSize, pauseSeconds, rotationGaps, deploySeconds) => {
          const policy = auto({ batchSize, pauseSeconds, readySeconds: 60 });
          const running = new Map(Array.from({ length: agents }, (_, i) => [`agent-${i}`, 1]));
          const rotations: number[] = [];
          let t = 0;
          for (const gap of rotationGaps) rotations.push((t += gap * 1000));
          let version = 1;
          let lastRotatedAtMs = 0;
          let lastBatchEndedAtMs: number | null = null;
          let open: { index: number; startedAtMs: number; readyAtMs: number; agentIds: string[]; version: number } | null = null;
          let index = 0;
          const delivered = new Set<number>();
          let state: RolloutState = 'ROLLING';
          const end = rotations.at(-1)! + 10_000_000;
          for (let now = 0; now <= end; now += 1000) {
            while (rotations.length && rotations[0]! <= now) {
              rotations.shift();
              version++;
              lastRotatedAtMs = now;
              state = 'ROLLING';
            }
            if (state !== 'ROLLING') continue;
            const action = nextRolloutAction({
              state,
              policy,
              nowMs: now,
              lastRotatedAtMs,
              lastBatchEndedAtMs,
              openBatch: open && {
                index: open.index,
                startedAtMs: open.startedAtMs,
                members: open.agentIds.map((agentId) => ({ agentId, refusal: null, revision: { state: now >= open!.readyAtMs ? 'active' : 'activating', failureCode: null, failureMessage: null } })),
              },
              stale: [...running].filter(([, v]) => v < version).map(([agentId, deliveredVersion]) => ({ agentId, deliveredVersion, inFlight: false })),
            });
            if (action.kind === 'start-batch') {
              expect(action.agentIds.length).toBeLessThanOrEqual(batchSize);
              open = { index: index++, startedAtMs: now, readyAtMs: now + deploySeconds * 1000, agentIds: action.agentIds, version };
              delivered.add(version);
            } else if (action.kind === 'batch-ready') {
              for (const id of open!.agentIds) running.set(id, open!.version);
              open = null;
              lastBatchEndedAtMs = now;
            } else if (action.kind === 'succeed') {
              state = 'SUCCEEDED';
              if (!rotations.length) break;
            } else {
              expect(['wait']).toContain(action.kind);
            }
          }
          expect(rotations).toEqual([]);
          expect([...running.values()].every((v) => v === version)).toBe(true);
          // Debounce: a version whose successor came within the pause was never delivered.
          const rotatedAt: number[] = [];
          for (const gap of rotationGaps) rotatedAt.push((rotatedAt.at(-1) ?? 0) + gap * 1000);
          // Version v (v >= 2) was made by rotation v - 2.
          for (let v = 2; v < version; v++) {
            if (rotatedAt[v - 1]! - rotatedAt[v - 2]! < pauseSeconds * 1000) expect(delivered.has(v)).toBe(false);
          }
          expect(delivered.has(version)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('V4 exact answers (written out, not generated)', () => {
  const refusal = (input: unknown) => {
    try {
      parseRotationPolicy(input);
    } catch (error) {
      if (error instanceof ValidationError) return { code: error.code, field: error.field, message: error.message };
      throw error;
    }
    return null;
  };
  const bounded = (name: string, min: number, max: number) => ({ field: `policy.${name}`, message: `${name} is a whole number from ${min} to ${max}.` });
  it.each<[string, unknown, { field: string; message: string } | null]>([
    ['null', null, { field: 'policy', message: 'A rotation policy is an object.' }],
    ['an array', [], { field: 'policy', message: 'A rotation policy is an object.' }],
    ['a string', 'AUTOMATIC', { field: 'policy', message: 'A rotation policy is an object.' }],
    ['one unknown key', { speed: 1 }, { field: 'policy', message: 'A rotation policy has no field of that name; it has mode, batchSize, pauseSeconds, readySeconds and approval.' }],
    ['two unknown keys', { speed: 1, colour: 2 }, { field: 'policy', message: 'A rotation policy has no field of those names; it has mode, batchSize, pauseSeconds, readySeconds and approval.' }],
    ['an unknown mode', { mode: 'SOMETIMES' }, { field: 'policy.mode', message: 'mode is one of MANUAL, AUTOMATIC.' }],
    ['an unknown approval', { approval: 'ANYONE' }, { field: 'policy.approval', message: 'approval is one of NONE, ANY_ADMINISTRATOR, OTHER_ADMINISTRATOR.' }],
    ['a batch size as text', { batchSize: '3' }, bounded('batchSize', 1, 500)],
    ['a fractional batch size', { batchSize: 1.5 }, bounded('batchSize', 1, 500)],
    ['a batch size below its bound', { batchSize: 0 }, bounded('batchSize', 1, 500)],
    ['a batch size above its bound', { batchSize: 501 }, bounded('batchSize', 1, 500)],
    ['a batch size at its upper bound', { batchSize: 500 }, null],
    ['a pause above its bound', { pauseSeconds: 86_401 }, bounded('pauseSeconds', 0, 86_400)],
    ['a ready deadline below its bound', { readySeconds: 4 }, bounded('readySeconds', 5, 3_600)],
    ['a ready deadline at its lower bound', { readySeconds: 5 }, null],
  ])('V4 a policy with %s', (_name, input, expected) => {
    expect(refusal(input)).toEqual(expected && { code: 'INVALID_ROTATION_POLICY', ...expected });
  });

  it('V4 the policy in effect: none stored anywhere is the manual default; an undefined own policy inherits', () => {
    expect(effectiveRotationPolicy(null, null)).toEqual({ policy: MANUAL_POLICY, source: 'DEFAULT' });
    expect(effectiveRotationPolicy(undefined, undefined)).toEqual({ policy: MANUAL_POLICY, source: 'DEFAULT' });
    expect(effectiveRotationPolicy(undefined, auto())).toEqual({ policy: auto(), source: 'NAMESPACE' });
    expect(effectiveRotationPolicy({}, auto())).toEqual({ policy: MANUAL_POLICY, source: 'SECRET' });
  });

  it('V4 the next step: what a waiting rollout waits for, the last instant of the pause, and the order of equally old consumers', () => {
    const stale = [{ agentId: 'a', deliveredVersion: 1, inFlight: false }];
    expect(nextRolloutAction(snapshot({ state: 'AWAITING_APPROVAL', stale }))).toEqual({ kind: 'wait', untilMs: null, why: 'approval' });
    expect(nextRolloutAction(snapshot({ state: 'PAUSED', stale }))).toEqual({ kind: 'wait', untilMs: null, why: 'resume' });
    const policy = auto({ pauseSeconds: 30 });
    expect(nextRolloutAction(snapshot({ policy, nowMs: 29_999, lastRotatedAtMs: 0, stale }))).toEqual({ kind: 'wait', untilMs: 30_000, why: 'the pause' });
    expect(nextRolloutAction(snapshot({ policy, nowMs: 30_000, lastRotatedAtMs: 0, stale }))).toEqual({ kind: 'start-batch', agentIds: ['a'] });
    const tied = ['d', 'b', 'e', 'a', 'c'].map((agentId) => ({ agentId, deliveredVersion: 2, inFlight: false }));
    expect(nextRolloutAction(snapshot({ policy: auto({ batchSize: 3 }), stale: [...tied, { agentId: 'z', deliveredVersion: 1, inFlight: false }] }))).toEqual({ kind: 'start-batch', agentIds: ['z', 'a', 'b'] });
    expect(nextRolloutAction(snapshot({ stale: [{ agentId: 'a', deliveredVersion: 1, inFlight: true }] }))).toEqual({ kind: 'wait', untilMs: 1_000_000 + ROLLOUT_RECHECK_MS, why: 'other deploys of the remaining consumers' });
  });

  it('V4 an open batch: members without a revision are deployed; superseded and stopped members count as settled, activating ones do not', () => {
    const member = (agentId: string, state: MemberRevisionState | null) => ({ agentId, refusal: null, revision: state && { state, failureCode: null, failureMessage: null } });
    const open = (members: OpenBatch['members']) => nextRolloutAction(snapshot({ openBatch: { index: 0, startedAtMs: 1_000_000, members } }));
    expect(open([member('a', 'active'), member('b', null), member('c', null)])).toEqual({ kind: 'deploy-members', agentIds: ['b', 'c'] });
    expect(open([member('a', 'active'), member('b', 'superseded'), member('c', 'stopped')])).toEqual({ kind: 'batch-ready' });
    expect(open([member('a', 'active'), member('b', 'activating')])).toMatchObject({ kind: 'wait', why: 'batch 1 becoming Ready' });
    const refused = rolloutBatchTransition('READY', 'failed');
    expect(refused.ok ? '' : refused.message).toBe('A batch that is READY cannot take the event failed; it applies to one that is ROLLING.');
  });
});
