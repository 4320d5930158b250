import Link from 'next/link';
import { formatDateTime } from '../../lib/format';
import type { Namespace } from '../../lib/namespaces';
import { namespaceHref } from './NamespaceHeader';
import { StatusBadge } from './StatusBadge';

export function NamespaceTable({ namespaces, hasMore }: { namespaces: Namespace[]; hasMore: boolean }) {
  if (namespaces.length === 0) {
    return <p className="empty">No namespaces yet. Create the first one above.</p>;
  }
  return (
    <>
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
                <code>{ns.id}</code>
              </td>
              <td>
                <StatusBadge status={ns.status} />
                {ns.statusMessage ? <span className="status-message">{ns.statusMessage}</span> : null}
              </td>
              <td>
                <time dateTime={ns.createdAt}>{formatDateTime(ns.createdAt)}</time>
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
      {hasMore ? <p className="hint">Showing the first {namespaces.length} namespaces.</p> : null}
    </>
  );
}
