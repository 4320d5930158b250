import type { SecretListItem } from '../../lib/secrets';
import { ScrollTable } from '../ui/ScrollTable';
import { SecretRow } from './SecretRow';

export function SecretTable({ namespaceId, secrets }: { namespaceId: string; secrets: SecretListItem[] }) {
  return (
    <ScrollTable label="Secrets">
      <table className="table">
        <caption className="visually-hidden">Secrets</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
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
