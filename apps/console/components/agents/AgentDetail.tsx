'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { agentQueryOptions } from '../../lib/agents';
import { namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { AccessBindingsTable } from '../access/AccessBindingsTable';
import { DeploySection } from '../deploy/DeploySection';
import { RevisionsList } from '../deploy/RevisionsList';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { namespaceHref } from '../../lib/namespace-links';
import { NamespaceHeader } from '../namespaces/NamespaceHeader';
import { AgentGateway } from './AgentGateway';
import { AgentRuntimeSection } from './AgentRuntime';
import { DeleteAgentButton } from './DeleteAgentButton';
import { MissingGrants } from './MissingGrants';
import { ServicePrincipalCallout } from './ServicePrincipalCallout';
import { OwnershipMatrix } from '../selfconfig/OwnershipMatrix';
import { SelfConfigBudget } from '../selfconfig/SelfConfigBudget';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';

// One agent (/agents?namespace=…&id=agt_…), loaded on demand by AgentsScreen.
export default function AgentDetail({ namespaceId, agentId }: { namespaceId: string; agentId: string }) {
  const query = useQuery(agentQueryOptions(agentId));
  const { data, error, isPending } = query;
  const agent = data && data.namespace && data.namespace.id === namespaceId ? data : null;
  const configuration = useQuery({
    ...namespaceConfigurationsQueryOptions(namespaceId),
    select: (list) => list?.configurations.find((c) => c.id === agent?.configuration?.id) ?? null,
    enabled: Boolean(agent?.configuration),
  });
  // Names for the grants' scopes (secret ids otherwise).
  const secrets = useQuery(namespaceSecretsQueryOptions(namespaceId));
  const header = (
    <NamespaceHeader
      namespace={agent?.namespace ?? secrets.data?.namespace ?? null}
      namespaceId={namespaceId}
      section="agents"
      title={agent ? `Agent ${agent.name}` : 'Agent'}
      trail={[{ label: agent?.name ?? agentId }]}
    />
  );

  if (isPending || error || !agent) {
    return (
      <>
        {header}
        {isPending ? <TableSkeleton label="Loading agent…" rows={4} /> : null}
        {error ? <QueryErrorAlert error={error} what="this agent" retry={() => query.refetch()} /> : null}
        {!isPending && !error ? (
          <p role="alert" className="alert error">
            Agent <code>{agentId}</code> does not exist in this namespace or you may not see it.{' '}
            <Link href={namespaceHref('agents', namespaceId)}>Back to agents</Link>
          </p>
        ) : null}
      </>
    );
  }

  const consumed = new Map<string, string>();
  for (const binding of configuration.data?.secretBindings ?? []) {
    consumed.set(binding.source.id, binding.secret?.name ?? binding.source.id);
  }
  if (agent.harnessAuth) {
    consumed.set(agent.harnessAuth.source.id, agent.harnessAuth.secret?.name ?? agent.harnessAuth.source.id);
  }
  const names = new Map<string, string>([[namespaceId, agent.namespace?.name ?? namespaceId]]);
  for (const secret of secrets.data?.secrets ?? []) names.set(secret.id, secret.name);

  return (
    <>
      {header}
      <ServicePrincipalCallout
        namespaceId={namespaceId}
        servicePrincipalId={agent.servicePrincipalId}
        consumedSecrets={[...consumed].map(([id, name]) => ({ id, name }))}
      />
      <dl className="facts spaced">
        <dt>ID</dt>
        <dd>
          <CopyId value={agent.id} label="agent id" />
        </dd>
        <dt>Configuration</dt>
        <dd>
          {agent.configuration ? (
            <Link href={namespaceHref('configurations', namespaceId, { id: agent.configuration.id })}>
              {agent.configuration.name}
            </Link>
          ) : (
            'none'
          )}
        </dd>
        <dt>Harness auth</dt>
        <dd>
          {agent.harnessAuth ? (
            <>
              {agent.harnessAuth.provider} → <code>{agent.harnessAuth.envName}</code> from{' '}
              {agent.harnessAuth.secret?.name ?? <code>{agent.harnessAuth.source.id}</code>}
            </>
          ) : (
            'none'
          )}
        </dd>
        <dt>Self-configure</dt>
        <dd>
          {agent.selfConfigure.enabled
            ? `enabled: ${agent.selfConfigure.allowedActions.join(', ') || 'no actions'}`
            : 'disabled'}
        </dd>
        <dt>Created</dt>
        <dd>
          <RelativeTime iso={agent.createdAt} />
        </dd>
      </dl>
      <AgentRuntimeSection agentId={agent.id} />
      <DeploySection agent={agent} names={names} />
      <RevisionsList agent={agent} />
      <AgentGateway agentId={agent.id} />
      <section aria-labelledby="agent-missing-title" className="section">
        <h2 id="agent-missing-title">Missing grants</h2>
        <MissingGrants grants={agent.missingGrants} names={names} />
      </section>
      <section aria-labelledby="agent-grants-title" className="section">
        <h2 id="agent-grants-title">Grants of its service principal</h2>
        <AccessBindingsTable
          bindings={agent.accessBindings}
          caption="Grants of the agent's service principal"
          names={names}
          empty="No grants yet: it cannot operate on any secret."
        />
      </section>
      <OwnershipMatrix agentId={agent.id} namespaceId={namespaceId} link="requests" />
      <SelfConfigBudget agentId={agent.id} namespaceId={namespaceId} />
      <section aria-labelledby="agent-delete-title" className="section">
        <h2 id="agent-delete-title">Delete</h2>
        {agent.viewerCan.delete ? (
          <DeleteAgentButton namespaceId={namespaceId} agent={agent} />
        ) : (
          <NotAllowedButton label={`Delete ${agent.name}`} reason={notAllowedReason(agent.name, 'delete', 'delete', 'agent')}>
            Delete
          </NotAllowedButton>
        )}
      </section>
    </>
  );
}
