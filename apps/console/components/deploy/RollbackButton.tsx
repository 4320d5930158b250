'use client';

import { agentKeys } from '../../lib/agents';
import { deployKeys, rollbackAgent, type RollbackDelivery } from '../../lib/deploy';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** A delivery whose requested version is gone, in a sentence; null when it was delivered as asked. */
export function substitution(d: RollbackDelivery): string | null {
  if (d.requestedVersionRetained) return null;
  return `${d.envName}: version ${d.requestedVersion} is no longer kept, so the current version ${d.versionUsed} is delivered instead.`;
}

/**
 * V7: "roll back to this": a new revision deployed from this one's frozen configuration and
 * bindings, through every deploy check, after typing the agent's name (it changes what runs).
 */
export function RollbackButton({ agentId, agentName, revisionId, number }: { agentId: string; agentName: string; revisionId: string; number: number }) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: () => rollbackAgent(agentId, revisionId),
    invalidate: [agentKeys.all, deployKeys.all],
    onSuccess: (result) => {
      const substituted = result.deliveries.map(substitution).filter((s): s is string => s !== null);
      toast(`Rolling back to revision ${result.rolledBackTo.number}: revision ${result.revision.number} is queued.${substituted.length ? ` ${substituted.join(' ')}` : ''}`);
    },
  });
  const success = mutation.success;
  return (
    <div className="revision-rollback">
      <ConfirmDestructive
        verb="Roll back"
        what={`agent ${agentName} to revision ${number}`}
        triggerText={`Roll back to revision ${number}`}
        name={agentName}
        triggerLabel={`Roll back to revision ${number}`}
        consequence={
          <p>
            A new revision is deployed with revision {number}&apos;s configuration and secret bindings (its secret versions where they
            are still kept, else the current ones), through every deploy check. The active revision keeps running until the new one is
            Ready.
          </p>
        }
        pending={mutation.pending}
        succeeded={success !== null}
        onConfirm={() => mutation.submit(undefined)}
      >
        <FormOutcome outcome={mutation.outcome?.kind === 'success' ? null : mutation.outcome} doing="roll back" />
      </ConfirmDestructive>
      {success ? (
        <div className="outcome" role="status" data-testid="rollback-outcome">
          <p>
            Revision {success.revision.number} is queued with revision {success.rolledBackTo.number}&apos;s configuration.
          </p>
          {success.deliveries
            .map(substitution)
            .filter((s): s is string => s !== null)
            .map((s) => (
              <p key={s} className="hint">
                {s}
              </p>
            ))}
        </div>
      ) : null}
    </div>
  );
}
