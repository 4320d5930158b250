import type { SecretListItem } from '../../lib/secrets';
import type { Sorting } from '../../lib/paging';
import { SortableHeader } from '../ui/ListAddress';
import { ScrollTable } from '../ui/ScrollTable';
import { SecretRow } from './SecretRow';

export function SecretTable({ namespaceId, secrets, sorting }: { namespaceId: string; secrets: SecretListItem[]; sorting?: Sorting | undefined }) {
  return (
    <ScrollTable label="Secrets">
      <table className="table">
        <caption className="visually-hidden">Secrets</caption>
        <thead>
          <tr>
            <SortableHeader label="Name" sorting={sorting} ascending="NAME_A_TO_Z" descending="NAME_Z_TO_A" />
            <th scope="col">ID</th>
            <th scope="col">Version</th>
            <th scope="col">Used by</th>
            <th scope="col">Updated</th>
            <th scope="col">Reference</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {secrets.map((secret) => (
            <SecretRow key={secret.id} namespaceId={namespaceId} secret={secret} />
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
