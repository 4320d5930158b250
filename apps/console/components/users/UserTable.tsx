import Link from 'next/link';
import type { User } from '../../lib/users';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { DisableUserButton } from './DisableUserButton';

export function UserTable({
  users,
  viewerId,
  caption,
  noDisable = false,
}: {
  users: User[];
  viewerId: string | undefined;
  caption: string;
  noDisable?: boolean;
}) {
  return (
    <ScrollTable label={caption}>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">ID</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id}>
              <th scope="row">
                {user.name}
                {user.id === viewerId ? <span className="hint"> (you)</span> : null}
              </th>
              <td>
                <CopyId value={user.id} label={`id of ${user.name}`} />
              </td>
              <td>
                {user.disabled ? <span className="badge badge-failed">DISABLED</span> : <span className="badge badge-ready">ACTIVE</span>}
              </td>
              <td>
                <RelativeTime iso={user.createdAt} />
              </td>
              <td>
                <span className="link-list">
                  <Link href={`/users?id=${encodeURIComponent(user.id)}`} aria-label={`API keys of ${user.name}`}>
                    API keys
                  </Link>
                  {user.id === viewerId || noDisable ? null : <DisableUserButton user={user} />}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
