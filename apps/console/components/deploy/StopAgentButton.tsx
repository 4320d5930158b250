'use client';

import { agentKeys } from '../../lib/agents';
import { deployKeys, stopAgent } from '../../lib/deploy';
import { focusMainHeading } from '../../lib/focus';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** W6: stop after typing the agent's name; the gateway scales to zero and its revisions stop. */
export function StopAgentButton({ agentId, agentName }: { agentId: string; agentName: string }) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: () => stopAgent(agentId),
    invalidate: [agentKeys.all, deployKeys.all],
    onSuccess: (result) =>
      toast(
        result.gatewayScaledToZero
          ? `Agent ${agentName} stopped: its gateway is scaled to zero.`
          : `Agent ${agentName} stopped (it had no gateway).`,
      ),
  });
  return (
    <ConfirmDestructive
      verb="Stop"
      what={`agent ${agentName}`}
      name={agentName}
      triggerLabel={`Stop ${agentName}`}
      consequence={
        <p>
          Its gateway scales to zero and its active revision (and any on its way) stops. Nothing is deleted: deploy again to start
          it with a new revision.
        </p>
      }
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={focusMainHeading}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="stop the agent" />
    </ConfirmDestructive>
  );
}
