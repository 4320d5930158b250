'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { agentQueryOptions, namespaceAgentsQueryOptions } from '../../lib/agents';
import { namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { formatDateTime } from '../../lib/format';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { AccessBindingsTable } from '../access/AccessBindingsTable';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, namespaceHref, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { AgentTable } from './AgentTable';
import { CreateAgentForm } from './CreateAgentForm';
import { MissingGrants } from './MissingGrants';
import { ServicePrincipalCallout } from './ServicePrincipalCallout';

// /agents?namespace=ns_… lists and creates; adding &id=agt_… opens one agent and its grants.
export function AgentsScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  const agentId = params.get('id');
  if (!namespaceId) return <MissingNamespace title="Agents" />;
  if (agentId) return <AgentDetail namespaceId={namespaceId} agentId={agentId} />;
  return <NamespaceAgents namespaceId={namespaceId} />;
}

function NamespaceAgents({ namespaceId }: { namespaceId: string }) {
  const { data, error, isPending } = useQuery(namespaceAgentsQueryOptions(namespaceId));
  const configurations = useQuery(namespaceConfigurationsQueryOptions(namespaceId));
  const secrets = useQuery(namespaceSecretsQueryOptions(namespaceId));

  if (isPending) return <p role="status">Loading agents…</p>;
  if (error) {
    return (
      <>
        <h1>Agents</h1>
        <QueryErrorAlert error={error} what="this namespace" />
      </>
    );
  }
  if (!data) return <UnknownNamespace title="Agents" namespaceId={namespaceId} />;

  const { namespace, agents, hasMore } = data;
  return (
    <>
      <NamespaceHeader namespace={namespace} section="agents" title={`Agents in ${namespace.name}`} />
      <p className="lede">
        Each agent gets its own service principal. It can use only the secrets that principal may operate on.
      </p>
      {configurations.error ? <QueryErrorAlert error={configurations.error} what="the configurations" /> : null}
      {secrets.error ? <QueryErrorAlert error={secrets.error} what="the secrets" /> : null}
      <CreateAgentForm
        namespaceId={namespace.id}
        configurations={configurations.data?.configurations ?? []}
        secrets={secrets.data?.secrets ?? []}
      />
      <section aria-labelledby="agents-list-title">
        <h2 id="agents-list-title">Agents</h2>
        <AgentTable namespaceId={namespace.id} agents={agents} />
        {hasMore ? <p className="hint">Showing the first {agents.length} agents.</p> : null}
      </section>
    </>
  );
}

function AgentDetail({ namespaceId, agentId }: { namespaceId: string; agentId: string }) {
  const { data: agent, error, isPending } = useQuery(agentQueryOptions(agentId));
  const configuration = useQuery({
    ...namespaceConfigurationsQueryOptions(namespaceId),
    select: (data) => data?.configurations.find((c) => c.id === agent?.configuration?.id) ?? null,
    enabled: Boolean(agent?.configuration),
  });
  // Names for the grants' scopes (secret ids otherwise).
  const secrets = useQuery(namespaceSecretsQueryOptions(namespaceId));
  const back = (
    <p>
      <Link href={namespaceHref('agents', namespaceId)}>Back to agents</Link>
    </p>
  );

  if (isPending) return <p role="status">Loading agent…</p>;
  if (error) {
    return (
      <>
        <h1>Agent</h1>
        <QueryErrorAlert error={error} what="this agent" />
        {back}
      </>
    );
  }
  if (!agent || !agent.namespace || agent.namespace.id !== namespaceId) {
    return (
      <>
        <h1>Agent</h1>
        <p role="alert" className="alert error">
          Agent <code>{agentId}</code> does not exist in this namespace or you may not see it.
        </p>
        {back}
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
  const names = new Map<string, string>([[agent.namespace.id, agent.namespace.name]]);
  for (const secret of secrets.data?.secrets ?? []) names.set(secret.id, secret.name);

  return (
    <>
      <NamespaceHeader namespace={agent.namespace} section="agents" title={`Agent ${agent.name}`} />
      {back}
      <ServicePrincipalCallout
        namespaceId={namespaceId}
        servicePrincipalId={agent.servicePrincipalId}
        consumedSecrets={[...consumed].map(([id, name]) => ({ id, name }))}
      />
      <dl className="facts spaced">
        <dt>ID</dt>
        <dd>
          <code>{agent.id}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          {agent.status} (desired {agent.desiredState})
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
          <time dateTime={agent.createdAt}>{formatDateTime(agent.createdAt)}</time>
        </dd>
      </dl>
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
    </>
  );
}
