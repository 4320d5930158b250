import type { Secret } from '../../lib/secrets';
import { SecretRow } from './SecretRow';

export function SecretTable({ namespaceId, secrets }: { namespaceId: string; secrets: Secret[] }) {
  if (secrets.length === 0) {
    return <p className="empty">No secrets in this namespace yet.</p>;
  }
  return (
    <table className="table">
      <caption className="visually-hidden">Secrets</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">ID</th>
          <th scope="col">Version</th>
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
  );
}
