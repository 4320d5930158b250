'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { accessBindingsForResourceQueryOptions, resourceAccessBindingsInNamespaceQueryOptions } from '../../lib/access';
import { namespaceAgentsQueryOptions } from '../../lib/agents';
import { namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { bootstrapPrincipalQueryOptions, usersQueryOptions } from '../../lib/users';
import { viewerQueryOptions } from '../../lib/viewer';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { TableSkeleton } from '../ui/Skeleton';
import { AccessBindingsTable } from './AccessBindingsTable';
import { ExplainAccessForm } from './ExplainAccessForm';
import { GrantAccessForm } from './GrantAccessForm';
import type { PrincipalOption } from './SubjectPicker';
import { SubjectGrants } from './SubjectGrants';

// /access?namespace=ns_… ; &subject=spn_… prefills the subject, &role=rol_…&secret=sec_… the grant
// (the agent page links the least privilege this way: secret-operator on one secret).
export function AccessScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  if (!namespaceId) return <MissingNamespace title="Access" />;
  return (
    <NamespaceAccess
      namespaceId={namespaceId}
      initial={{ subject: params.get('subject') ?? '', role: params.get('role') ?? '', secret: params.get('secret') ?? '' }}
    />
  );
}

function NamespaceAccess({ namespaceId, initial }: { namespaceId: string; initial: { subject: string; role: string; secret: string } }) {
  const query = useQuery(namespaceSecretsQueryOptions(namespaceId));
  const { data, error, isPending } = query;
  const configurations = useQuery(namespaceConfigurationsQueryOptions(namespaceId));
  const agents = useQuery(namespaceAgentsQueryOptions(namespaceId));
  const users = useQuery(usersQueryOptions());
  const bootstrap = useQuery(bootstrapPrincipalQueryOptions());
  const viewer = useQuery(viewerQueryOptions());
  const namespaceBindings = useQuery(accessBindingsForResourceQueryOptions('namespace', namespaceId));
  // One request for the grants on every secret of the namespace, however many secrets it has.
  const secretBindings = useQuery(resourceAccessBindingsInNamespaceQueryOptions(namespaceId, 'secret'));

  const namespace = data?.namespace ?? null;
  const secrets = data?.secrets ?? [];
  const names = new Map<string, string>([[namespaceId, namespace?.name ?? namespaceId]]);
  for (const secret of secrets) names.set(secret.id, secret.name);
  for (const c of configurations.data?.configurations ?? []) names.set(c.id, c.name);
  const principals: PrincipalOption[] = [];
  for (const a of agents.data?.agents ?? []) {
    names.set(a.id, a.name);
    names.set(a.servicePrincipalId, `agent ${a.name}`);
    principals.push({ id: a.servicePrincipalId, label: `agent ${a.name}` });
  }
  for (const user of users.data?.items ?? []) {
    names.set(user.id, `user ${user.name}`);
    principals.push({ id: user.id, label: `user ${user.name}${user.disabled ? ' (disabled)' : ''}` });
  }
  for (const p of [bootstrap.data, viewer.data]) {
    if (p && !principals.some((x) => x.id === p.id)) {
      names.set(p.id, `${p.kind === 'SERVICE' ? 'service principal' : 'user'} ${p.name}`);
      principals.push({ id: p.id, label: `${p.kind === 'SERVICE' ? 'service principal' : 'user'} ${p.name}` });
    }
  }

  return (
    <>
      <NamespaceHeader namespace={namespace} namespaceId={namespaceId} section="access" title={namespace ? `Access in ${namespace.name}` : 'Access'} />
      <p className="lede">
        Grants give a subject (a user, or an agent&apos;s service principal) a role on one secret or on this namespace.
      </p>
      {isPending ? <TableSkeleton label="Loading access…" rows={4} /> : null}
      {error ? <QueryErrorAlert error={error} what="this namespace" retry={() => query.refetch()} /> : null}
      {data === null ? <UnknownNamespace namespaceId={namespaceId} /> : null}
      {namespace ? (
        <>
          <GrantAccessForm
            namespaceId={namespaceId}
            names={names}
            principals={principals}
            initialSubjectId={initial.subject}
            initialRoleId={initial.role}
            initialSecretId={initial.secret}
          />
          <section aria-labelledby="namespace-grants-title" className="section">
            <h2 id="namespace-grants-title">Grants on this namespace</h2>
            {namespaceBindings.error ? (
              <QueryErrorAlert error={namespaceBindings.error} what="the grants" retry={() => namespaceBindings.refetch()} />
            ) : null}
            {namespaceBindings.isPending ? <TableSkeleton label="Loading grants…" /> : null}
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
            {secretBindings.error ? (
              <QueryErrorAlert error={secretBindings.error} what="the grants on secrets" retry={() => secretBindings.refetch()} />
            ) : null}
            {secretBindings.isPending ? <TableSkeleton label="Loading grants…" /> : null}
            {secretBindings.data ? (
              <AccessBindingsTable
                bindings={secretBindings.data}
                caption="Grants on single secrets"
                names={names}
                revocable
                empty="No grants on single secrets that you may see."
              />
            ) : null}
          </section>
          <SubjectGrants initialSubjectId={initial.subject} names={names} principals={principals} />
          <ExplainAccessForm
            namespace={namespace}
            resources={{
              secret: secrets,
              configuration: configurations.data?.configurations ?? [],
              agent: agents.data?.agents ?? [],
            }}
            names={names}
            principals={principals}
            initialSubjectId={initial.subject}
          />
        </>
      ) : null}
    </>
  );
}
