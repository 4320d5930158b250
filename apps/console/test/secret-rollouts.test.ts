import { describe, expect, it } from 'vitest';
import { allowedDecisions, isOpen } from '../lib/secret-rollouts';

// V4 (README "Rotation rollouts"): the console offers a decision only where the API takes it, and
// polls only while a rollout is open. The expected values are written out from the README, not
// derived from the module's own tables.
describe('V4 rollout states in the console', () => {
  it('V4 offers approve only while awaiting approval, resume only while paused, nothing once ended', () => {
    expect(allowedDecisions('AWAITING_APPROVAL')).toEqual(['approve', 'pause', 'abort']);
    expect(allowedDecisions('ROLLING')).toEqual(['pause', 'abort']);
    expect(allowedDecisions('PAUSED')).toEqual(['resume', 'abort']);
    for (const ended of ['ROLLING_BACK', 'SUCCEEDED', 'ROLLED_BACK', 'ABORTED'] as const) expect(allowedDecisions(ended)).toEqual([]);
  });

  it('V4 polls while awaiting approval, rolling, paused or rolling back, and stops once it ends', () => {
    for (const open of ['AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK'] as const) expect(isOpen(open)).toBe(true);
    for (const ended of ['SUCCEEDED', 'ROLLED_BACK', 'ABORTED'] as const) expect(isOpen(ended)).toBe(false);
  });
});
