import Link from 'next/link';
import type { ConfigurationSummary } from '../../lib/configurations';
import type { Sorting } from '../../lib/paging';
import { SortableHeader } from '../ui/ListAddress';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { namespaceHref } from '../../lib/namespace-links';

export function ConfigurationTable({
  namespaceId,
  configurations,
  sorting,
}: {
  namespaceId: string;
  configurations: ConfigurationSummary[];
  sorting?: Sorting | undefined;
}) {
  return (
    <ScrollTable label="Configurations">
    <table className="table">
      <caption className="visually-hidden">Configurations</caption>
      <thead>
        <tr>
          <SortableHeader label="Name" sorting={sorting} ascending="NAME_A_TO_Z" descending="NAME_Z_TO_A" />
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
              <CopyId value={configuration.id} label={`id of ${configuration.name}`} />
            </td>
            <td className="numeric">{configuration.generation}</td>
            <td className="numeric">{configuration.secretBindings.length}</td>
            <td>
              <RelativeTime iso={configuration.updatedAt} />
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
    </ScrollTable>
  );
}
