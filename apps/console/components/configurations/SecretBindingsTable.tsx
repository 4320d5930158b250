import type { SecretBinding } from '../../lib/configurations';
import { CopyId } from '../ui/CopyId';
import { ScrollTable } from '../ui/ScrollTable';

/** A configuration's bindings as stored: env name, the bound secret's name, and its reference. */
export function SecretBindingsTable({ bindings }: { bindings: SecretBinding[] }) {
  if (bindings.length === 0) return <p className="empty">No secret bindings.</p>;
  return (
    <ScrollTable label="Secret bindings">
    <table className="table">
      <caption className="visually-hidden">Secret bindings</caption>
      <thead>
        <tr>
          <th scope="col">Env name</th>
          <th scope="col">Secret</th>
          <th scope="col">Secret ID</th>
          <th scope="col">Delivery</th>
        </tr>
      </thead>
      <tbody>
        {bindings.map((binding) => (
          <tr key={binding.envName}>
            <th scope="row">
              <code>{binding.envName}</code>
            </th>
            <td>{binding.secret ? binding.secret.name : <span className="hint">not readable by you</span>}</td>
            <td>
              <CopyId value={binding.source.id} label={`id of the secret bound to ${binding.envName}`} />
            </td>
            <td>{binding.delivery.type}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </ScrollTable>
  );
}
