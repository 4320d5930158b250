import { describe, expect, it } from 'vitest';
import { REVISION_EVENTS, type RevisionEvent } from '@occ/domain/revision';
import { storedMove, type StoredRevisionState } from './revision-states.ts';

// The moves the product makes, as stored, written out here rather than read from the domain's
// lifecycle (a test that loops over the code's own table would pass whatever the table said).
// Each event has its call site: deploy-work.ts (W1's steps, RC8's supersedes, failures) and
// stop-agent.ts (W6); no call site names a state.
const PENDING: StoredRevisionState[] = ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING'];
const MADE: Array<[RevisionEvent, StoredRevisionState[], StoredRevisionState, string]> = [
  ['checked', ['QUEUED'], 'PREPARING', 'W1 preparation starts'],
  ['prepared', ['PREPARING'], 'PREPARED', 'W1 preparation done'],
  ['activationCommitted', ['PREPARED'], 'ACTIVATING', 'W1 activation starts'],
  ['gatewayReady', ['ACTIVATING'], 'ACTIVE', 'W1 activation done'],
  ['failed', PENDING, 'FAILED', 'W1 a step failed for good'],
  ['newerDeployed', ['QUEUED'], 'SUPERSEDED', 'RC8 a newer deploy came before preparation'],
  ['newerActivated', ['ACTIVATING', 'ACTIVE'], 'SUPERSEDED', "RC8 the next revision's activation"],
  ['stopped', [...PENDING, 'ACTIVE'], 'STOPPED', 'W6 stopAgent'],
];

describe('revision state changes as stored', () => {
  it('D4 every event of the lifecycle is one the product makes', () => {
    expect(MADE.map(([event]) => event).sort()).toEqual([...REVISION_EVENTS].sort());
  });

  // V4: a move out of the pending states settles the revision and wakes its rollout.
  it.each(MADE)('D4 V4 %s moves %j to %s (%s), settling it when that is no longer pending', (event, from, to) => {
    expect(storedMove(event)).toEqual({ from, to, settles: !PENDING.includes(to) });
  });
});
