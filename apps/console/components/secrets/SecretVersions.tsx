'use client';

import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { secretVersionsQueryOptions } from '../../lib/secret-exposure';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { TableSkeleton } from '../ui/Skeleton';

function When({ iso, never }: { iso: string | null; never: string }) {
  return iso ? <RelativeTime iso={iso} /> : <span className="hint">{never}</span>;
}

/**
 * V5 inside the rotate panel: every version of the secret (metadata only) and the exposure matrix,
 * which agent's running revision holds which version since when. Loaded on demand.
 */
export default function SecretVersions({ secretId }: { secretId: string }) {
  const id = useId();
  const query = useQuery(secretVersionsQueryOptions(secretId));
  const data = query.data;
  if (query.isPending) return <TableSkeleton label="Loading the versions…" rows={2} />;
  if (query.error) return <QueryErrorAlert error={query.error} what="the versions" retry={() => query.refetch()} />;
  if (!data) return null;

  return (
    <>
      <section className="section" aria-labelledby={`${id}-versions`} data-testid="secret-versions">
        <h4 id={`${id}-versions`}>Versions</h4>
        <ScrollTable label="Versions">
          <table className="table">
            <caption className="visually-hidden">Versions of this secret, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Current</th>
                <th scope="col">Created</th>
                <th scope="col">First delivered</th>
                <th scope="col">Last delivered</th>
                <th scope="col">Retired</th>
              </tr>
            </thead>
            <tbody>
              {data.versions.map((v) => (
                <tr key={v.number} data-testid={`secret-version-${v.number}`}>
                  <th scope="row">{v.number}</th>
                  <td>{v.current ? 'current' : ''}</td>
                  <td>
                    <RelativeTime iso={v.createdAt} />
                  </td>
                  <td>
                    <When iso={v.firstDeliveredAt} never="never" />
                  </td>
                  <td>
                    <When iso={v.lastDeliveredAt} never="never" />
                  </td>
                  <td>
                    <When iso={v.retiredAt} never="kept" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </section>
      <section className="section" aria-labelledby={`${id}-exposure`} data-testid="secret-exposure">
        <h4 id={`${id}-exposure`}>Which agents run which version</h4>
        {data.exposure.items.length > 0 ? (
          <ScrollTable label="Exposure">
            <table className="table">
              <caption className="visually-hidden">Running agents and the version of this secret each holds</caption>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Revision</th>
                  <th scope="col">Version</th>
                  <th scope="col">Since</th>
                  <th scope="col">Env names</th>
                </tr>
              </thead>
              <tbody>
                {data.exposure.items.map((item) => (
                  <tr key={`${item.revisionId}-${item.version}`} data-testid="exposure-row">
                    <th scope="row">{item.agentName ?? <code>{item.agentId}</code>}</th>
                    <td>{item.revisionNumber}</td>
                    <td data-testid="exposure-version">{item.version}</td>
                    <td>
                      <RelativeTime iso={item.since} />
                    </td>
                    <td>
                      {item.envNames.map((name) => (
                        <code key={name}>{name} </code>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        ) : (
          <p className="empty">No running agent you may read holds this secret.</p>
        )}
        {data.exposure.hiddenCount > 0 ? (
          <p className="hint" data-testid="exposure-hidden">
            {data.exposure.hiddenCount} running {data.exposure.hiddenCount === 1 ? 'agent' : 'agents'} you may not read: counted, not named.
          </p>
        ) : null}
      </section>
    </>
  );
}
