'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useId } from 'react';
import { agentFieldOwnershipQueryOptions, itemLabel, ownershipMatrix, type InstanceFieldOwnership } from '../../lib/selfconfig';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { namespaceHref } from '../../lib/namespace-links';
import { CopyId } from '../ui/CopyId';
import { ScrollTable } from '../ui/ScrollTable';
import { TableSkeleton } from '../ui/Skeleton';

const SELFCONFIG_MANAGER = 'openclaw-selfconfig';

/**
 * Who owns each item of one agent's OpenClawInstance (item × field manager, with the operation),
 * from its managedFields. The agent may remove only what openclaw-selfconfig owns alone (SC7), so
 * the last column says so in words.
 */
export function OwnershipMatrix({ agentId, namespaceId, link }: { agentId: string; namespaceId: string; link: 'requests' | 'agent' }) {
  const id = useId();
  const query = useQuery(agentFieldOwnershipQueryOptions(agentId));
  const { data, error, isPending } = query;
  const agentName = data?.name ?? agentId;
  return (
    <section aria-labelledby={`${id}-title`} className="section" data-testid="ownership-matrix">
      <div className="section-head">
        <h2 id={`${id}-title`}>Field ownership{data ? ` of ${data.name}'s instance` : ''}</h2>
        {link === 'requests' ? (
          <Link href={namespaceHref('selfconfig', namespaceId, { agent: agentId })}>SelfConfig requests of this agent</Link>
        ) : (
          <Link href={namespaceHref('agents', namespaceId, { id: agentId })}>Open agent {agentName}</Link>
        )}
      </div>
      {isPending ? <TableSkeleton label="Loading field ownership…" rows={3} /> : null}
      {error ? <QueryErrorAlert error={error} what="the field ownership" retry={() => query.refetch()} /> : null}
      {data === null ? <p className="empty">No such agent, or you may not see it.</p> : null}
      {data && !data.fieldOwnership ? (
        <p className="empty">No instance yet: deploying the agent creates its OpenClawInstance.</p>
      ) : null}
      {data?.fieldOwnership ? <Matrix ownership={data.fieldOwnership} /> : null}
    </section>
  );
}

function Matrix({ ownership }: { ownership: InstanceFieldOwnership }) {
  const { managers, groups } = ownershipMatrix(ownership.items);
  const caption = `Field ownership of ${ownership.instanceName}: items by field manager`;
  return (
    <>
      <p className="hint">
        Instance <CopyId value={ownership.instanceName} label="instance name" /> in <code>{ownership.k8sNamespace}</code>, resource
        version <code>{ownership.resourceVersion}</code>. Apply: server-side apply; Update: create, replace or patch. The agent
        (<code>{SELFCONFIG_MANAGER}</code>) may remove only the items it owns alone; a request to remove anything else is skipped.
        Config keys are listed one by one: each manager owns the keys it set.
      </p>
      {groups.length === 0 ? (
        <p className="empty">No field manager owns a skill, env var, workspace file or config key on this instance.</p>
      ) : (
        <ScrollTable label={caption}>
          <table className="table matrix">
            <caption className="visually-hidden">{caption}</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                {managers.map((manager) => (
                  <th scope="col" key={manager}>
                    <code>{manager}</code>
                  </th>
                ))}
                <th scope="col">Agent may remove</th>
              </tr>
            </thead>
            {groups.map((group) => (
              <tbody key={group.kind} data-group={group.kind}>
                <tr className="group-row">
                  <th scope="rowgroup" colSpan={managers.length + 2}>
                    {group.label} ({group.rows.length})
                  </th>
                </tr>
                {group.rows.map(({ item, cells }) => {
                  const alone = item.owners.length > 0 && item.owners.every((o) => o.manager === SELFCONFIG_MANAGER);
                  return (
                    <tr key={`${item.kind}:${item.name}`} data-item={itemLabel(item)}>
                      <th scope="row">
                        <code>{itemLabel(item)}</code>
                      </th>
                      {cells.map((operations, i) => (
                        <td key={managers[i]} className={operations.length > 0 ? 'owned' : 'unowned'}>
                          {operations.length > 0 ? (
                            operations.join(', ')
                          ) : (
                            <>
                              <span aria-hidden="true">–</span>
                              <span className="visually-hidden">not owned</span>
                            </>
                          )}
                        </td>
                      ))}
                      <td>{alone ? 'yes' : 'no'}</td>
                    </tr>
                  );
                })}
              </tbody>
            ))}
          </table>
        </ScrollTable>
      )}
    </>
  );
}
