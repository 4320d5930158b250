import Link from 'next/link';
import type { AgentSummary } from '../../lib/agents';
import { namespaceHref } from '../../lib/namespace-links';
import type { Sorting } from '../../lib/paging';
import { SortableHeader } from '../ui/ListAddress';
import { CopyId } from '../ui/CopyId';
import { ScrollTable } from '../ui/ScrollTable';
import { AgentStatusBadge } from './AgentStatusBadge';

export function AgentTable({ namespaceId, agents, sorting }: { namespaceId: string; agents: AgentSummary[]; sorting?: Sorting | undefined }) {
  return (
    <ScrollTable label="Agents">
    <table className="table">
      <caption className="visually-hidden">Agents</caption>
      <thead>
        <tr>
          <SortableHeader label="Name" sorting={sorting} ascending="NAME_A_TO_Z" descending="NAME_Z_TO_A" />
          <th scope="col">Status</th>
          <th scope="col">Service principal</th>
          <th scope="col">Configuration</th>
          <th scope="col">Harness auth</th>
          <th scope="col">
            <span className="visually-hidden">Links</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {agents.map((agent) => (
          <tr key={agent.id}>
            <th scope="row">{agent.name}</th>
            <td>
              <AgentStatusBadge status={agent.status} />
            </td>
            <td>
              <CopyId value={agent.servicePrincipalId} label={`service principal of ${agent.name}`} />
            </td>
            <td>
              {agent.configuration ? (
                <Link href={namespaceHref('configurations', namespaceId, { id: agent.configuration.id })}>
                  {agent.configuration.name}
                </Link>
              ) : (
                <span className="hint">none</span>
              )}
            </td>
            <td>
              {agent.harnessAuth ? (
                <>
                  {agent.harnessAuth.provider} → <code>{agent.harnessAuth.envName}</code>
                </>
              ) : (
                <span className="hint">none</span>
              )}
            </td>
            <td>
              <Link href={namespaceHref('agents', namespaceId, { id: agent.id })} aria-label={`Open agent ${agent.name}`}>
                Open
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    </ScrollTable>
  );
}
