import Link from 'next/link';
import { formatDateTime } from '../../lib/format';
import type { User } from '../../lib/users';
import { DisableUserButton } from './DisableUserButton';

export function UserTable({ users, viewerId }: { users: User[]; viewerId: string | undefined }) {
  if (users.length === 0) return <p className="empty">No users you may see.</p>;
  return (
    <table className="table">
      <caption className="visually-hidden">Users</caption>
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
              <code>{user.id}</code>
            </td>
            <td>{user.disabled ? <span className="badge badge-failed">DISABLED</span> : <span className="badge badge-ready">ACTIVE</span>}</td>
            <td>
              <time dateTime={user.createdAt}>{formatDateTime(user.createdAt)}</time>
            </td>
            <td>
              <span className="link-list">
                <Link href={`/users?id=${encodeURIComponent(user.id)}`} aria-label={`API keys of ${user.name}`}>
                  API keys
                </Link>
                {user.id === viewerId ? null : <DisableUserButton user={user} />}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
