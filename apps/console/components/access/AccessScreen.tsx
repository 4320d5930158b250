'use client';

import { useQueries, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { accessBindingsForResourceQueryOptions } from '../../lib/access';
import { namespaceAgentsQueryOptions } from '../../lib/agents';
import { namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { usersQueryOptions } from '../../lib/users';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { AccessBindingsTable } from './AccessBindingsTable';
import { ExplainAccessForm } from './ExplainAccessForm';
import { GrantAccessForm } from './GrantAccessForm';
import { PrincipalOptions } from './PrincipalOptions';
import { SubjectGrants } from './SubjectGrants';

// /access?namespace=ns_… (optionally &subject=spn_… to prefill the forms, as the agent page links).
export function AccessScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  if (!namespaceId) return <MissingNamespace title="Access" />;
  return <NamespaceAccess namespaceId={namespaceId} initialSubjectId={params.get('subject') ?? ''} />;
}

function NamespaceAccess({ namespaceId, initialSubjectId }: { namespaceId: string; initialSubjectId: string }) {
  const { data, error, isPending } = useQuery(namespaceSecretsQueryOptions(namespaceId));
  const configurations = useQuery(namespaceConfigurationsQueryOptions(namespaceId));
  const agents = useQuery(namespaceAgentsQueryOptions(namespaceId));
  const users = useQuery(usersQueryOptions());
  const namespaceBindings = useQuery(accessBindingsForResourceQueryOptions('namespace', namespaceId));
  const secrets = data?.secrets ?? [];
  const secretBindings = useQueries({
    queries: secrets.map((secret) => accessBindingsForResourceQueryOptions('secret', secret.id)),
  });

  if (isPending) return <p role="status">Loading access…</p>;
  if (error) {
    return (
      <>
        <h1>Access</h1>
        <QueryErrorAlert error={error} what="this namespace" />
      </>
    );
  }
  if (!data) return <UnknownNamespace title="Access" namespaceId={namespaceId} />;

  const { namespace } = data;
  const names = new Map<string, string>([[namespace.id, namespace.name]]);
  for (const secret of secrets) names.set(secret.id, secret.name);
  for (const c of configurations.data?.configurations ?? []) names.set(c.id, c.name);
  for (const a of agents.data?.agents ?? []) names.set(a.id, a.name);
  const principals = [
    ...(users.data ?? []).map((user) => ({ id: user.id, label: `user ${user.name}${user.disabled ? ' (disabled)' : ''}` })),
    ...(agents.data?.agents ?? []).map((agent) => ({ id: agent.servicePrincipalId, label: `agent ${agent.name}` })),
  ];
  const onSecrets = secretBindings.flatMap((query) => query.data ?? []);
  const secretBindingsError = secretBindings.find((query) => query.error)?.error;

  return (
    <>
      <NamespaceHeader namespace={namespace} section="access" title={`Access in ${namespace.name}`} />
      <p className="lede">
        Grants give a subject (a user, or an agent&apos;s service principal) a role on this namespace or on one secret.
      </p>
      <PrincipalOptions id="principal-options" principals={principals} />
      <GrantAccessForm namespaceId={namespace.id} secrets={secrets} names={names} initialSubjectId={initialSubjectId} />
      <section aria-labelledby="namespace-grants-title" className="section">
        <h2 id="namespace-grants-title">Grants on this namespace</h2>
        {namespaceBindings.error ? <QueryErrorAlert error={namespaceBindings.error} what="the grants" /> : null}
        {namespaceBindings.isPending ? <p role="status">Loading grants…</p> : null}
        {namespaceBindings.data ? (
          <AccessBindingsTable
            bindings={namespaceBindings.data}
            caption="Grants on this namespace"
            names={names}
            revocable
            empty="No grants at this namespace's scope that you may see."
          />
        ) : null}
      </section>
      <section aria-labelledby="secret-grants-title" className="section">
        <h2 id="secret-grants-title">Grants on single secrets</h2>
        {secretBindingsError ? <QueryErrorAlert error={secretBindingsError} what="the grants on secrets" /> : null}
        <AccessBindingsTable
          bindings={onSecrets}
          caption="Grants on single secrets"
          names={names}
          revocable
          empty="No grants on single secrets that you may see."
        />
      </section>
      <SubjectGrants initialSubjectId={initialSubjectId} names={names} />
      <ExplainAccessForm
        namespace={namespace}
        resources={{
          secret: secrets,
          configuration: configurations.data?.configurations ?? [],
          agent: agents.data?.agents ?? [],
        }}
        names={names}
        initialSubjectId={initialSubjectId}
      />
    </>
  );
}
