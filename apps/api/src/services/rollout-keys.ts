import type { Tx } from '../db/client.ts';
import { wake } from './work-queue.ts';

// V4: how a rollout's work item and the revisions its batches deploy are named, and the wake that
// joins them: a batch waits on its members' revisions, and each of those carries its step
// (AgentRevision.rolloutStep, `<rollout id>/<batch>/<role>`), so the move that settles a member
// (revision-states.ts) makes its rollout look again at once rather than at its next recheck.

export const SECRET_ROLLOUT_KIND = 'secret.rollout';

export function rolloutKey(rolloutId: string): string {
  return `${SECRET_ROLLOUT_KIND}:${rolloutId}`;
}

export function stepKey(rolloutId: string, batch: number, role: 'deliver' | 'rollback'): string {
  return `${rolloutId}/${batch}/${role}`;
}

/** The rollouts whose steps deployed revisions with these steps (nulls: not a rollout's) run now, with the caller's commit. */
export async function wakeRolloutsOf(tx: Tx, rolloutSteps: ReadonlyArray<string | null>): Promise<void> {
  const rollouts = new Set(rolloutSteps.filter((s): s is string => s !== null && s.includes('/')).map((s) => s.slice(0, s.indexOf('/'))));
  for (const id of rollouts) await wake(tx, rolloutKey(id));
}
