import Link from 'next/link';
import { lazy, Suspense } from 'react';
import { mayNeedReprovisioning } from '../../lib/namespace-reprovision';
import type { Namespace } from '../../lib/namespaces';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { namespaceHref } from '../../lib/namespace-links';
import { StatusBadge } from './StatusBadge';

// Offered only on a LOST or FAILED row (RC5), so a chunk of its own loaded then: the confirmation,
// the form hook and the access check stay out of every route's first load (scripts/size-budgets.json).
const ReprovisionNamespaceButton = lazy(() => import('./ReprovisionNamespaceButton'));

export function NamespaceTable({ namespaces }: { namespaces: Namespace[] }) {
  return (
    <ScrollTable label="Namespaces">
      <table className="table">
        <caption className="visually-hidden">Namespaces</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">ID</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Links</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {namespaces.map((ns) => (
            <tr key={ns.id}>
              <th scope="row">{ns.name}</th>
              <td>
                <CopyId value={ns.id} label={`id of ${ns.name}`} />
              </td>
              <td>
                <StatusBadge status={ns.status} />
                {ns.statusMessage ? (
                  <span className={ns.status === 'LOST' ? 'status-message lost-message' : 'status-message'} data-testid="namespace-status-message">
                    {ns.statusMessage}
                  </span>
                ) : null}
                {mayNeedReprovisioning(ns.status) ? (
                  <span className="row-action">
                    <Suspense fallback={null}>
                      <ReprovisionNamespaceButton namespace={ns} />
                    </Suspense>
                  </span>
                ) : null}
              </td>
              <td>
                <RelativeTime iso={ns.createdAt} />
              </td>
              <td>
                <span className="link-list">
                  <Link href={namespaceHref('secrets', ns.id)} aria-label={`Secrets of ${ns.name}`}>
                    Secrets
                  </Link>
                  <Link href={namespaceHref('configurations', ns.id)} aria-label={`Configurations of ${ns.name}`}>
                    Configurations
                  </Link>
                  <Link href={namespaceHref('agents', ns.id)} aria-label={`Agents of ${ns.name}`}>
                    Agents
                  </Link>
                  <Link href={namespaceHref('access', ns.id)} aria-label={`Access in ${ns.name}`}>
                    Access
                  </Link>
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
