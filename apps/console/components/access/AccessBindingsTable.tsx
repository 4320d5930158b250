import { describeScope, type AccessBinding } from '../../lib/access';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { RevokeBindingButton } from './RevokeBindingButton';

/** Who holds which role where. With `revocable`, each row gets a revoke button. */
export function AccessBindingsTable({
  bindings,
  caption,
  names,
  revocable = false,
  empty = 'No grants.',
}: {
  bindings: AccessBinding[];
  caption: string;
  names?: ReadonlyMap<string, string>;
  revocable?: boolean;
  empty?: string;
}) {
  if (bindings.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ScrollTable label={caption}>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Role</th>
            <th scope="col">Scope</th>
            <th scope="col">Granted</th>
            {revocable ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {bindings.map((binding) => (
            <tr key={binding.id} data-binding-id={binding.id}>
              <th scope="row">
                {binding.subject.name} <span className="hint">({binding.subject.kind.toLowerCase()})</span>
                <br />
                <CopyId value={binding.subject.id} label={`id of ${binding.subject.name}`} />
              </th>
              <td>{binding.role.name}</td>
              <td>{describeScope(binding.scope, names)}</td>
              <td>
                <RelativeTime iso={binding.createdAt} />
              </td>
              {revocable ? (
                <td className="actions">
                  <RevokeBindingButton
                    binding={binding}
                    label={`${binding.role.name} for ${binding.subject.name} on ${describeScope(binding.scope, names)}`}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
