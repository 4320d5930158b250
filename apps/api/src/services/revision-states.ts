import { canTransition, type RevisionState } from '@occ/domain/revision';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';

// D4, W1, W6, RC8: every change of a revision's state goes through here, as a compare-and-set
// (only rows still in one of `from` move) that the domain's state machine allows: a move it
// forbids is a programming error, thrown before any row is touched, whichever rows would match.

export type StoredRevisionState = Uppercase<RevisionState>;

export class ForbiddenRevisionTransition extends Error {
  constructor(from: StoredRevisionState, to: StoredRevisionState) {
    super(`a revision may not move from ${from} to ${to} (packages/domain/src/revision.ts)`);
    this.name = 'ForbiddenRevisionTransition';
  }
}

const domain = (state: StoredRevisionState) => state.toLowerCase() as RevisionState;

/** Throws unless the state machine allows each of `from` to move to `to`. */
export function assertTransitions(from: readonly StoredRevisionState[], to: StoredRevisionState): void {
  for (const state of from) if (!canTransition(domain(state), domain(to))) throw new ForbiddenRevisionTransition(state, to);
}

/**
 * Moves the revisions `where` selects that are in one of `from` to `to` (with `data` besides);
 * answers how many moved. Rows in any other state are left as they are.
 */
export async function moveRevisions(
  tx: Tx,
  where: Prisma.AgentRevisionWhereInput,
  from: readonly StoredRevisionState[],
  to: StoredRevisionState,
  data: Omit<Prisma.AgentRevisionUpdateManyMutationInput, 'state'> = {},
): Promise<number> {
  assertTransitions(from, to);
  const moved = await tx.agentRevision.updateMany({ where: { ...where, state: { in: [...from] } }, data: { ...data, state: to } });
  return moved.count;
}
