'use client';

import { useRouter } from 'next/navigation';
import { agentKeys, deleteAgent } from '../../lib/agents';
import { namespaceHref } from '../namespaces/NamespaceHeader';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** W6: delete a stopped agent after typing its name; a running one is refused with the reason. */
export function DeleteAgentButton({ namespaceId, agent }: { namespaceId: string; agent: { id: string; name: string; desiredState: string } }) {
  const toast = useToast();
  const router = useRouter();
  const mutation = useResultMutation({
    mutationFn: () => deleteAgent(agent.id),
    invalidate: [agentKeys.byNamespace(namespaceId), agentKeys.detail(agent.id)],
    onSuccess: () => toast(`Agent ${agent.name} deleted.`),
  });
  return (
    <ConfirmDestructive
      verb="Delete"
      what={`agent ${agent.name}`}
      name={agent.name}
      triggerLabel={`Delete ${agent.name}`}
      consequence={
        <>
          <p>
            This deletes the agent&apos;s Kubernetes objects, disables its service principal and revokes its keys and grants.
            Its revisions stay, for audit.
          </p>
          {agent.desiredState !== 'stopped' ? <p className="hint">The agent is not stopped: stop it first, or this is refused.</p> : null}
        </>
      }
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={() => router.push(namespaceHref('agents', namespaceId))}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="delete the agent" />
    </ConfirmDestructive>
  );
}
