import { PENDING_REVISION_STATES, revisionMove, type RevisionEvent, type RevisionState } from '@occ/domain/revision';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import { wakeRolloutsOf } from './rollout-keys.ts';

// D4, W1, W6, RC8: every change of a revision's state goes through here. The caller names the
// event (a step done, a failure, a newer deploy, a stop); the domain's lifecycle says which
// states it moves a revision out of and into which one, and the write is a compare-and-set on
// those states: a row that moved meanwhile is left as it is, and no call site picks a state.

export type StoredRevisionState = Uppercase<RevisionState>;

const stored = (state: RevisionState) => state.toUpperCase() as StoredRevisionState;

/** The stored states `event` moves a revision out of, the stored state it moves it to, and whether that settles it (no longer pending). */
export function storedMove(event: RevisionEvent): { from: StoredRevisionState[]; to: StoredRevisionState; settles: boolean } {
  const { from, to } = revisionMove(event);
  return { from: from.map(stored), to: stored(to), settles: !PENDING_REVISION_STATES.includes(to) };
}

/**
 * Applies `event` to the revisions `where` selects (with `data` besides): those in a state the
 * event applies to move; answers how many did. Rows in any other state are left as they are.
 * V4: a move that settles a revision a rollout's batch deployed (no longer pending) wakes that
 * rollout with the same commit.
 */
export async function moveRevisions(
  tx: Tx,
  where: Prisma.AgentRevisionWhereInput,
  event: RevisionEvent,
  data: Omit<Prisma.AgentRevisionUpdateManyMutationInput, 'state'> = {},
): Promise<number> {
  const { from, to, settles } = storedMove(event);
  const moved = await tx.agentRevision.updateManyAndReturn({ where: { ...where, state: { in: from } }, data: { ...data, state: to }, select: { rolloutStep: true } });
  if (settles) await wakeRolloutsOf(tx, moved.map((r) => r.rolloutStep));
  return moved.length;
}
