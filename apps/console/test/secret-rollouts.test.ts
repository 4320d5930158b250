import { describe, expect, it } from 'vitest';
import { isOpen, shownDecisions, type DecisionCheck } from '../lib/secret-rollouts';

// V4 (README "Rotation rollouts"): the console offers a decision only where the API takes it, and
// polls only while a rollout is open. The expected values are written out from the README, not
// derived from the module's own tables.
describe('V4 rollout states in the console', () => {
  it('V4 A3 shows the decisions the rollout\'s state takes (its viewerCan says), enabled or with the reason; none the state refuses', () => {
    const ok: DecisionCheck = { allowed: true, code: null, message: null };
    const state: DecisionCheck = { allowed: false, code: 'ROLLOUT_STATE_CONFLICT', message: 'The rollout is ROLLING; approve applies only to a rollout that is AWAITING_APPROVAL.' };
    const forbidden: DecisionCheck = { allowed: false, code: 'FORBIDDEN', message: 'Deciding on a rollout needs administer on its secret.' };
    const rotator: DecisionCheck = { allowed: false, code: 'ROLLOUT_APPROVER_IS_ROTATOR', message: 'This rollout needs an administrator other than the one who rotated the secret.' };
    const shown = (viewerCan: Record<'approve' | 'pause' | 'resume' | 'abort', DecisionCheck>) => shownDecisions({ viewerCan }).map(({ decision, check }) => [decision, check.allowed, check.code]);
    // An administrator who rotated it, awaiting approval under OTHER_ADMINISTRATOR.
    expect(shown({ approve: rotator, pause: ok, resume: state, abort: ok })).toEqual([
      ['approve', false, 'ROLLOUT_APPROVER_IS_ROTATOR'],
      ['pause', true, null],
      ['abort', true, null],
    ]);
    // A viewer of a paused rollout: resume and abort shown, disabled.
    expect(shown({ approve: state, pause: state, resume: forbidden, abort: forbidden })).toEqual([
      ['resume', false, 'FORBIDDEN'],
      ['abort', false, 'FORBIDDEN'],
    ]);
    // Ended: nothing.
    expect(shown({ approve: state, pause: state, resume: state, abort: state })).toEqual([]);
  });

  it('V4 polls while awaiting approval, rolling, paused or rolling back, and stops once it ends', () => {
    for (const open of ['AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK'] as const) expect(isOpen(open)).toBe(true);
    for (const ended of ['SUCCEEDED', 'ROLLED_BACK', 'ABORTED'] as const) expect(isOpen(ended)).toBe(false);
  });
});
