import Link from 'next/link';
import { useMemo } from 'react';
import type { AgentSummary } from '../../lib/agents';
import { namespaceHref } from '../../lib/namespace-links';
import type { Sorting } from '../../lib/paging';
import { CopyId } from '../ui/CopyId';
import { DataTable, listColumn, type ListColumn } from '../ui/DataTable';
import { AgentStatusBadge } from './AgentStatusBadge';

function agentColumns(namespaceId: string): Array<ListColumn<AgentSummary>> {
  return [
    listColumn('name', { label: 'Name', rowHeader: true, sort: { ascending: 'NAME_A_TO_Z', descending: 'NAME_Z_TO_A' } }, (agent) => agent.name),
    listColumn('status', { label: 'Status' }, (agent) => <AgentStatusBadge status={agent.status} />),
    listColumn('servicePrincipal', { label: 'Service principal' }, (agent) => <CopyId value={agent.servicePrincipalId} label={`service principal of ${agent.name}`} />),
    listColumn('configuration', { label: 'Configuration' }, (agent) =>
      agent.configuration ? (
        <Link href={namespaceHref('configurations', namespaceId, { id: agent.configuration.id })}>{agent.configuration.name}</Link>
      ) : (
        <span className="hint">none</span>
      ),
    ),
    listColumn('harnessAuth', { label: 'Harness auth' }, (agent) =>
      agent.harnessAuth ? (
        <>
          {agent.harnessAuth.provider} → <code>{agent.harnessAuth.envName}</code>
        </>
      ) : (
        <span className="hint">none</span>
      ),
    ),
    listColumn('links', { label: 'Links', quietHeader: true }, (agent) => (
      <Link href={namespaceHref('agents', namespaceId, { id: agent.id })} aria-label={`Open agent ${agent.name}`}>
        Open
      </Link>
    )),
  ];
}

export function AgentTable({ namespaceId, agents, sorting }: { namespaceId: string; agents: AgentSummary[]; sorting?: Sorting | undefined }) {
  const columns = useMemo(() => agentColumns(namespaceId), [namespaceId]);
  return <DataTable name="agents" label="Agents" rows={agents} columns={columns} rowId={(agent) => agent.id} sorting={sorting} />;
}
