'use client';

import { useRouter } from 'next/navigation';
import { agentKeys, deleteAgent } from '../../lib/agents';
import { DeleteButton } from '../feedback/DeleteButton';
import { namespaceHref } from '../../lib/namespace-links';

/** W6: delete a stopped agent after typing its name; a running one is refused with the reason. */
export function DeleteAgentButton({ namespaceId, agent }: { namespaceId: string; agent: { id: string; name: string; desiredState: string } }) {
  const router = useRouter();
  return (
    <DeleteButton
      kind="agent"
      name={agent.name}
      remove={() => deleteAgent(agent.id)}
      invalidate={[agentKeys.byNamespace(namespaceId), agentKeys.detail(agent.id)]}
      afterSuccess={() => router.push(namespaceHref('agents', namespaceId))}
      consequence={
        <>
          <p>
            This deletes the agent&apos;s Kubernetes objects, disables its service principal and revokes its keys and grants.
            Its revisions stay, for audit.
          </p>
          {agent.desiredState !== 'stopped' ? <p className="hint">The agent is not stopped: stop it first, or this is refused.</p> : null}
        </>
      }
    />
  );
}
