import Link from 'next/link';
import type { Namespace } from '../../lib/namespaces';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { namespaceHref } from './NamespaceHeader';
import { StatusBadge } from './StatusBadge';

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
                {ns.statusMessage ? <span className="status-message">{ns.statusMessage}</span> : null}
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
