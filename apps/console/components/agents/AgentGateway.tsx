'use client';

import { useQuery } from '@tanstack/react-query';
import { agentGatewayQueryOptions } from '../../lib/references';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { TableSkeleton } from '../ui/Skeleton';

// The gateway Deployment that runs the agent's active revision, as Kubernetes names it: where an
// auditor following a secret's reference graph lands (#gateway), and what to pass to kubectl.
export function AgentGateway({ agentId }: { agentId: string }) {
  const query = useQuery(agentGatewayQueryOptions(agentId));
  const { data, error, isPending } = query;
  const active = data?.activeRevision ?? null;
  return (
    <section aria-labelledby="agent-gateway-title" className="section" id="gateway">
      <h2 id="agent-gateway-title">Gateway</h2>
      {isPending ? <TableSkeleton label="Loading gateway…" rows={1} /> : null}
      {error ? <QueryErrorAlert error={error} what="this agent's gateway" retry={() => query.refetch()} /> : null}
      {data && active?.gateway ? (
        <dl className="facts" data-testid="agent-gateway">
          <dt>Deployment</dt>
          <dd>
            <code>{active.gateway.name}</code>
          </dd>
          <dt>Kubernetes namespace</dt>
          <dd>
            <code>{active.gateway.k8sNamespace}</code>
          </dd>
          <dt>Runs</dt>
          <dd>
            revision {active.number} ({active.state.toLowerCase()})
          </dd>
        </dl>
      ) : null}
      {data && !active?.gateway ? <p className="empty">No active revision: no gateway runs this agent.</p> : null}
    </section>
  );
}
