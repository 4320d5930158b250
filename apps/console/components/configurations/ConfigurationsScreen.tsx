'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { lazy, Suspense } from 'react';
import { configurationQueryOptions, namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { useCan } from '../../lib/can';
import { usePaging } from '../../lib/paging';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { namespaceHref } from '../../lib/namespace-links';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { DeleteConfigurationButton } from './DeleteConfigurationButton';
import { ConfigurationTable } from './ConfigurationTable';
import { CreateConfigurationForm } from './CreateConfigurationForm';
import { EditConfigurationForm } from './EditConfigurationForm';
import { SecretBindingsTable } from './SecretBindingsTable';
import { CreatePanel } from '../ui/CreatePanel';
import { CopyId } from '../ui/CopyId';
import { ListSearch, Pager } from '../ui/ListControls';
import { OrderSelect, useListOrder } from '../ui/ListAddress';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';

// A configuration's history is below its editor and read on demand: its chunk loads with the detail
// page, not with the route, which keeps /configurations inside its first-load budget
// (scripts/size-budgets.json), as AgentsScreen does for its list and detail.
const GenerationHistory = lazy(() => import('./GenerationHistory').then((m) => ({ default: m.GenerationHistory })));

// /configurations?namespace=ns_… lists and creates; adding &id=cfg_… opens one configuration.
export function ConfigurationsScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  const configurationId = params.get('id');
  if (!namespaceId) return <MissingNamespace title="Configurations" />;
  if (configurationId) return <ConfigurationDetail namespaceId={namespaceId} configurationId={configurationId} />;
  return <NamespaceConfigurations namespaceId={namespaceId} />;
}

function NamespaceConfigurations({ namespaceId }: { namespaceId: string }) {
  const sorting = useListOrder();
  const paging = usePaging(undefined, sorting);
  const query = useQuery({ ...namespaceConfigurationsQueryOptions(namespaceId, paging.args), placeholderData: (previous) => previous });
  const mayCreate = useCan('create', 'configuration', namespaceId);
  const { data, error, isPending } = query;
  const namespace = data?.namespace ?? null;

  return (
    <>
      <NamespaceHeader
        namespace={namespace}
        namespaceId={namespaceId}
        section="configurations"
        title={namespace ? `Configurations in ${namespace.name}` : 'Configurations'}
      />
      <p className="lede">
        A configuration is the native OpenClaw document plus the secrets it binds to env names. Agents use one.
      </p>
      {error ? <QueryErrorAlert error={error} what="this namespace's configurations" retry={() => query.refetch()} /> : null}
      {data === null ? <UnknownNamespace namespaceId={namespaceId} /> : null}
      {namespace && mayCreate !== false ? (
        <CreatePanel label="New configuration" defaultOpen={data?.page.totalCount === 0 && !paging.args.namePrefix}>
          <CreateConfigurationForm namespace={namespace} />
        </CreatePanel>
      ) : null}
      {data !== null && !error ? (
        <section aria-labelledby="configurations-list-title">
          <h2 id="configurations-list-title">Configurations</h2>
          <ListSearch paging={paging} noun="configurations">
            <OrderSelect sorting={sorting} noun="configurations" />
          </ListSearch>
          {isPending ? <TableSkeleton label="Loading configurations…" /> : null}
          {data ? (
            data.configurations.length === 0 ? (
              <p className="empty">
                {paging.args.namePrefix
                  ? `No configurations whose name starts with “${paging.args.namePrefix}”.`
                  : mayCreate
                    ? 'No configurations in this namespace yet. Create the first with “New configuration”.'
                    : 'No configurations in this namespace yet that you may see.'}
              </p>
            ) : (
              <ConfigurationTable namespaceId={namespaceId} configurations={data.configurations} sorting={sorting} />
            )
          ) : null}
          <Pager paging={paging} page={data?.page} noun="configurations" />
        </section>
      ) : null}
    </>
  );
}

function ConfigurationDetail({ namespaceId, configurationId }: { namespaceId: string; configurationId: string }) {
  const query = useQuery(configurationQueryOptions(configurationId));
  const { data: configuration, error, isPending } = query;
  const found = configuration && configuration.namespace && configuration.namespace.id === namespaceId ? configuration : null;
  const name = found?.name ?? configurationId;

  return (
    <>
      <NamespaceHeader
        namespace={found?.namespace ?? null}
        namespaceId={namespaceId}
        section="configurations"
        title={found ? `Configuration ${found.name}` : 'Configuration'}
        trail={[{ label: name }]}
      />
      {isPending ? <TableSkeleton label="Loading configuration…" rows={4} /> : null}
      {error ? <QueryErrorAlert error={error} what="this configuration" retry={() => query.refetch()} /> : null}
      {!isPending && !error && !found ? (
        <p role="alert" className="alert error">
          Configuration <code>{configurationId}</code> does not exist in this namespace or you may not see it.{' '}
          <Link href={namespaceHref('configurations', namespaceId)}>Back to configurations</Link>
        </p>
      ) : null}
      {found ? (
        <>
          <dl className="facts">
            <dt>ID</dt>
            <dd>
              <CopyId value={found.id} label="configuration id" />
            </dd>
            <dt>Generation</dt>
            <dd data-testid="generation">{found.generation}</dd>
            <dt>Updated</dt>
            <dd>
              <RelativeTime iso={found.updatedAt} />
            </dd>
          </dl>
          <section aria-labelledby="bindings-title" className="section">
            <h2 id="bindings-title">Secret bindings</h2>
            <SecretBindingsTable bindings={found.secretBindings} />
          </section>
          <section aria-labelledby="values-title">
            <h2 id="values-title">Values</h2>
            <pre className="json" tabIndex={0} aria-label="Values">{JSON.stringify(found.values, null, 2)}</pre>
          </section>
          {found.viewerCan.update ? (
            <EditConfigurationForm key={found.id} namespaceId={namespaceId} configuration={found} />
          ) : (
            <p className="hint" data-testid="configuration-read-only">
              {notAllowedReason(found.name, 'edit', 'update', 'configuration')}
            </p>
          )}
          <Suspense fallback={<TableSkeleton label="Loading history…" rows={3} />}>
            <GenerationHistory configurationId={found.id} />
          </Suspense>
          <section aria-labelledby="configuration-delete-title" className="section">
            <h2 id="configuration-delete-title">Delete</h2>
            {found.viewerCan.delete ? (
              <DeleteConfigurationButton namespaceId={namespaceId} configuration={found} />
            ) : (
              <NotAllowedButton label={`Delete ${found.name}`} reason={notAllowedReason(found.name, 'delete', 'delete', 'configuration')}>
                Delete
              </NotAllowedButton>
            )}
          </section>
        </>
      ) : null}
    </>
  );
}
