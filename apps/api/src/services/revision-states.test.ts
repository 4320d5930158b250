import { describe, expect, it } from 'vitest';
import { assertTransitions, ForbiddenRevisionTransition, moveRevisions, type StoredRevisionState } from './revision-states.ts';

// The moves the product makes, written out here rather than read from the state machine (a test
// that loops over the code's own table would pass whatever the table said). Each is made by one
// call site: deploy-work.ts (W1's steps, RC8's supersedes, failures) and stop-agent.ts (W6).
const PENDING: StoredRevisionState[] = ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING'];
const MADE: Array<[StoredRevisionState, StoredRevisionState, string]> = [
  ['QUEUED', 'PREPARING', 'W1 preparation starts'],
  ['PREPARING', 'PREPARED', 'W1 preparation done'],
  ['PREPARED', 'ACTIVATING', 'W1 activation starts'],
  ['ACTIVATING', 'ACTIVE', 'W1 activation done'],
  ['QUEUED', 'SUPERSEDED', 'RC8 a newer deploy came before preparation'],
  ['ACTIVATING', 'SUPERSEDED', "RC8 the next revision's activation"],
  ['ACTIVE', 'SUPERSEDED', "RC8 the next revision's activation"],
  ...PENDING.map((s) => [s, 'FAILED', 'W1 a step failed for good'] as [StoredRevisionState, StoredRevisionState, string]),
  ...[...PENDING, 'ACTIVE' as const].map((s) => [s, 'STOPPED', 'W6 stopAgent'] as [StoredRevisionState, StoredRevisionState, string]),
];
const NEVER: Array<[StoredRevisionState, StoredRevisionState]> = [
  ...(['FAILED', 'SUPERSEDED', 'STOPPED'] as const).flatMap((terminal) =>
    (['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING', 'ACTIVE', 'FAILED', 'SUPERSEDED', 'STOPPED'] as const).map((to) => [terminal, to] as [StoredRevisionState, StoredRevisionState]),
  ),
  ['QUEUED', 'ACTIVE'],
  ['QUEUED', 'ACTIVATING'],
  ['PREPARING', 'ACTIVE'],
  ['PREPARED', 'SUPERSEDED'],
  ['ACTIVE', 'FAILED'],
  ['ACTIVE', 'QUEUED'],
];

describe('revision state changes', () => {
  it.each(MADE)('D4 %s → %s is allowed (%s)', (from, to) => {
    expect(() => assertTransitions([from], to)).not.toThrow();
  });

  it.each(NEVER)('D4 %s → %s is refused before any row is read or written', async (from, to) => {
    expect(() => assertTransitions([from], to)).toThrow(ForbiddenRevisionTransition);
    // No transaction at all: a move that reached the database would fail with a TypeError instead.
    await expect(moveRevisions(undefined as never, { id: 'rev_x' }, ['QUEUED', from], to)).rejects.toBeInstanceOf(ForbiddenRevisionTransition);
  });
});
