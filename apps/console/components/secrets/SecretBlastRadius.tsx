'use client';

import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { describeCounts, hiddenTotal, secretBlastRadiusQueryOptions } from '../../lib/secret-exposure';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { TableSkeleton } from '../ui/Skeleton';

/**
 * V6 before a rotation or a delete: what it touches (configurations, agents, running revisions,
 * gateways), the readable agents named, the unreadable ones only counted (P6). Loaded on demand, in
 * the rotate panel and the delete confirmation, so the secrets route's first load stays in budget.
 */
export default function SecretBlastRadius({ secretId, action }: { secretId: string; action: 'rotation' | 'delete' }) {
  const id = useId();
  const query = useQuery(secretBlastRadiusQueryOptions(secretId));
  const radius = query.data;
  if (query.isPending) return <TableSkeleton label="Loading what this touches…" rows={1} />;
  if (query.error) return <QueryErrorAlert error={query.error} what="the blast radius" retry={() => query.refetch()} />;
  if (!radius) return null;
  const hidden = hiddenTotal(radius.hidden);

  return (
    <section className="section" aria-labelledby={`${id}-title`} data-testid="blast-radius">
      <h4 id={`${id}-title`}>What a {action} touches</h4>
      <p data-testid="blast-radius-total">{describeCounts(radius.total)}.</p>
      {hidden > 0 ? (
        <p className="hint" data-testid="blast-radius-hidden">
          Of these, you may not read {describeCounts(radius.hidden)}: counted, not named.
        </p>
      ) : null}
      {radius.agents.length > 0 ? (
        <ul className="plain-list" aria-label={`Agents a ${action} touches`} data-testid="blast-radius-agents">
          {radius.agents.map((agent) => (
            <li key={agent.id}>
              <strong>{agent.name}</strong> ({agent.status.toLowerCase()}), via {agent.via.map(describeVia).join(', ')}
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">No agent you may read is touched.</p>
      )}
    </section>
  );
}

function describeVia(via: 'CONFIGURATION' | 'HARNESS_AUTH' | 'REVISION'): string {
  switch (via) {
    case 'CONFIGURATION':
      return 'its configuration';
    case 'HARNESS_AUTH':
      return 'its harness auth';
    case 'REVISION':
      return 'a running revision';
  }
}
