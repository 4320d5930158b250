'use client';

import { useQuery } from '@tanstack/react-query';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useId, type FormEvent } from 'react';
import { namespaceAgentsQueryOptions } from '../../lib/agents';
import { usePaging } from '../../lib/paging';
import {
  SELF_CONFIG_PAGE_SIZE,
  SELF_CONFIG_PHASES,
  selfConfigFilterFrom,
  selfConfigRequestsQueryOptions,
  type SelfConfigFilter,
} from '../../lib/selfconfig';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { Pager } from '../ui/ListControls';
import { TableSkeleton } from '../ui/Skeleton';
import { OwnershipMatrix } from './OwnershipMatrix';
import { RequestTable } from './RequestTable';

// /selfconfig?namespace=ns_…[&agent=agt_…][&phase=Applied]: the filter lives in the address, so a
// filtered view is a link (the agent page links here with its agent).
export function SelfConfigScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  if (!namespaceId) return <MissingNamespace title="SelfConfig" />;
  const filter = selfConfigFilterFrom(params);
  // A new filter starts again at the first page.
  return <NamespaceSelfConfig key={`${namespaceId}|${filter.agentId}|${filter.phase}`} namespaceId={namespaceId} filter={filter} />;
}

function NamespaceSelfConfig({ namespaceId, filter }: { namespaceId: string; filter: SelfConfigFilter }) {
  const paging = usePaging(SELF_CONFIG_PAGE_SIZE);
  const query = useQuery(selfConfigRequestsQueryOptions(namespaceId, filter, paging.args));
  const { data, error, isPending } = query;
  const namespace = data?.namespace ?? null;
  const filtered = Boolean(filter.agentId || filter.phase);

  return (
    <>
      <NamespaceHeader
        namespace={namespace}
        namespaceId={namespaceId}
        section="selfconfig"
        title={namespace ? `SelfConfig in ${namespace.name}` : 'SelfConfig'}
      />
      <p className="lede">
        Running agents ask to change their own instance: add or remove skills, env vars and workspace files, patch the config.
        Field ownership decides what an agent may remove; a removal of an item another manager owns is skipped, and says so.
      </p>
      {error ? <QueryErrorAlert error={error} what="this namespace's SelfConfig requests" retry={() => query.refetch()} /> : null}
      {data === null ? <UnknownNamespace namespaceId={namespaceId} /> : null}
      {data !== null ? <FilterForm namespaceId={namespaceId} filter={filter} /> : null}
      {filter.agentId && data !== null ? <OwnershipMatrix agentId={filter.agentId} namespaceId={namespaceId} link="agent" /> : null}
      {data !== null && !error ? (
        <section aria-labelledby="selfconfig-requests-title">
          <h2 id="selfconfig-requests-title">Requests</h2>
          {isPending ? <TableSkeleton label="Loading SelfConfig requests…" /> : null}
          {data ? (
            data.page.items.length === 0 ? (
              <p className="empty">
                {filter.phase
                  ? 'No requests match this filter.'
                  : filtered
                    ? 'No requests from this agent yet.'
                  : 'No SelfConfig requests in this namespace yet. An agent whose self-configure policy is enabled files them from its running instance.'}
              </p>
            ) : (
              <RequestTable namespaceId={namespaceId} requests={data.page.items} />
            )
          ) : null}
          <Pager paging={paging} page={data?.page} noun="requests" />
        </section>
      ) : null}
    </>
  );
}

function FilterForm({ namespaceId, filter }: { namespaceId: string; filter: SelfConfigFilter }) {
  const id = useId();
  const router = useRouter();
  const pathname = usePathname();
  const agents = useQuery(namespaceAgentsQueryOptions(namespaceId));
  const options = agents.data?.agents ?? [];
  // An agent named in the address but not (yet) among the options stays selectable as its id.
  const unknownAgent = filter.agentId && !options.some((a) => a.id === filter.agentId) ? filter.agentId : null;

  function go(agentId: string, phase: string) {
    const params = new URLSearchParams({ namespace: namespaceId });
    if (agentId) params.set('agent', agentId);
    if (phase) params.set('phase', phase);
    router.replace(`${pathname}?${params.toString()}`);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    go(String(fields.get('agent') ?? ''), String(fields.get('phase') ?? ''));
  }

  return (
    <form method="post" className="card form filters" onSubmit={onSubmit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Filter</h2>
      <div className="grid-2">
        <div className="field">
          <label htmlFor={`${id}-agent`}>Agent</label>
          <select id={`${id}-agent`} name="agent" defaultValue={filter.agentId ?? ''} key={`${filter.agentId}-${options.length}`}>
            <option value="">All agents</option>
            {options.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
            {unknownAgent ? <option value={unknownAgent}>{unknownAgent}</option> : null}
          </select>
          {agents.error ? <p className="hint">Could not load the agents’ names; the filter still works by id.</p> : null}
        </div>
        <div className="field">
          <label htmlFor={`${id}-phase`}>Phase</label>
          <select id={`${id}-phase`} name="phase" defaultValue={filter.phase ?? ''}>
            <option value="">Any phase</option>
            {SELF_CONFIG_PHASES.map((phase) => (
              <option key={phase} value={phase}>
                {phase}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="button-row">
        <button type="submit" className="button primary">
          Apply filter
        </button>
        <button type="button" className="button secondary" onClick={() => go('', '')}>
          Clear
        </button>
      </div>
    </form>
  );
}
