'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { lazy, Suspense } from 'react';
import { namespaceHref } from '../../lib/namespace-links';
import { namespaceAgentsQueryOptions } from '../../lib/agents';
import { namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { useCan } from '../../lib/can';
import { usePaging } from '../../lib/paging';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { AgentTable } from './AgentTable';
import { CreatePanel } from '../ui/CreatePanel';
import { ListSearch, Pager } from '../ui/ListControls';
import { FilterSelect, OrderSelect, useListOrder, type FilterChoice } from '../ui/ListAddress';
import { AGENT_STATUSES } from '../../lib/agent-runtime';
import { TableSkeleton } from '../ui/Skeleton';

// The create form, behind "New agent" (open at first only in an empty namespace), is a chunk of its
// own: the list is the page's first screen, the form a second step.
const CreateAgentForm = lazy(() => import('./CreateAgentForm').then((m) => ({ default: m.CreateAgentForm })));

// /agents?namespace=ns_… lists and creates.
export default function AgentList({ namespaceId }: { namespaceId: string | null }) {
  if (!namespaceId) return <MissingNamespace title="Agents" />;
  return <NamespaceAgents namespaceId={namespaceId} />;
}

/** The Status filter's choices (RC6's statuses, as the API derives them), kept in the address as &status=. */
const STATUS_FILTERS: Readonly<Record<string, FilterChoice>> = Object.fromEntries([
  ['', { label: 'Any status', params: { status: null } }],
  ...AGENT_STATUSES.filter((s) => s !== 'deleted').map((s) => [s, { label: s[0]!.toUpperCase() + s.slice(1), params: { status: s } }]),
]);

function NamespaceAgents({ namespaceId }: { namespaceId: string }) {
  // &status=failed (the namespaces list's health links, or the Status filter): only agents in that status.
  const status = useSearchParams().get('status');
  const sorting = useListOrder();
  const paging = usePaging(undefined, sorting, status ?? '');
  const query = useQuery({ ...namespaceAgentsQueryOptions(namespaceId, { ...paging.args, status }), placeholderData: (previous) => previous });
  const configurations = useQuery(namespaceConfigurationsQueryOptions(namespaceId));
  const mayCreate = useCan('create', 'agent', namespaceId);
  const { data, error, isPending } = query;
  const namespace = data?.namespace ?? null;

  return (
    <>
      <NamespaceHeader
        namespace={namespace}
        namespaceId={namespaceId}
        section="agents"
        title={namespace ? `Agents in ${namespace.name}` : 'Agents'}
      />
      <p className="lede">
        Each agent gets its own service principal. It can use only the secrets that principal may operate on.
      </p>
      {error ? <QueryErrorAlert error={error} what="this namespace's agents" retry={() => query.refetch()} /> : null}
      {data === null ? <UnknownNamespace namespaceId={namespaceId} /> : null}
      {configurations.error ? <QueryErrorAlert error={configurations.error} what="the configurations" retry={() => configurations.refetch()} /> : null}
      {namespace && mayCreate !== false ? (
        <CreatePanel label="New agent" defaultOpen={data?.page.totalCount === 0 && !paging.args.namePrefix && !status}>
          <Suspense fallback={<p className="hint">Loading the form…</p>}>
            <CreateAgentForm namespaceId={namespaceId} configurations={configurations.data?.configurations ?? []} />
          </Suspense>
        </CreatePanel>
      ) : null}
      {data !== null && !error ? (
        <section aria-labelledby="agents-list-title">
          <h2 id="agents-list-title">Agents</h2>
          {status ? (
            <p className="alert notice" data-testid="list-filter">
              Only agents whose status is <strong>{status}</strong>. <Link href={namespaceHref('agents', namespaceId)}>Show all agents</Link>
            </p>
          ) : null}
          <ListSearch paging={paging} noun="agents">
            <OrderSelect sorting={sorting} noun="agents" />
            <FilterSelect label="Status" choices={status && !Object.hasOwn(STATUS_FILTERS, status) ? { ...STATUS_FILTERS, [status]: { label: status, params: { status } } } : STATUS_FILTERS} current={status ?? ''} />
          </ListSearch>
          {isPending ? <TableSkeleton label="Loading agents…" /> : null}
          {data ? (
            data.agents.length === 0 ? (
              <p className="empty">
                {status
                  ? `No agents${paging.args.namePrefix ? ` whose name starts with “${paging.args.namePrefix}”` : ''} are ${status} now.`
                  : paging.args.namePrefix
                  ? `No agents whose name starts with “${paging.args.namePrefix}”.`
                  : mayCreate
                    ? 'No agents in this namespace yet. Create the first with “New agent”.'
                    : 'No agents in this namespace yet that you may see.'}
              </p>
            ) : (
              <AgentTable namespaceId={namespaceId} agents={data.agents} sorting={sorting} />
            )
          ) : null}
          <Pager paging={paging} page={data?.page} noun="agents" />
        </section>
      ) : null}
    </>
  );
}
