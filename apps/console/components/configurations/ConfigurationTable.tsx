import Link from 'next/link';
import type { ConfigurationSummary } from '../../lib/configurations';
import { formatDateTime } from '../../lib/format';
import { namespaceHref } from '../namespaces/NamespaceHeader';

export function ConfigurationTable({
  namespaceId,
  configurations,
}: {
  namespaceId: string;
  configurations: ConfigurationSummary[];
}) {
  if (configurations.length === 0) {
    return <p className="empty">No configurations in this namespace yet.</p>;
  }
  return (
    <table className="table">
      <caption className="visually-hidden">Configurations</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">ID</th>
          <th scope="col">Generation</th>
          <th scope="col">Bindings</th>
          <th scope="col">Updated</th>
          <th scope="col">
            <span className="visually-hidden">Links</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {configurations.map((configuration) => (
          <tr key={configuration.id}>
            <th scope="row">{configuration.name}</th>
            <td>
              <code>{configuration.id}</code>
            </td>
            <td className="numeric">{configuration.generation}</td>
            <td className="numeric">{configuration.secretBindings.length}</td>
            <td>
              <time dateTime={configuration.updatedAt}>{formatDateTime(configuration.updatedAt)}</time>
            </td>
            <td>
              <Link
                href={namespaceHref('configurations', namespaceId, { id: configuration.id })}
                aria-label={`Open configuration ${configuration.name}`}
              >
                Open
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
