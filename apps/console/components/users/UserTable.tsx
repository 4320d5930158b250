import Link from 'next/link';
import { useMemo } from 'react';
import type { User } from '../../lib/users';
import { CopyId } from '../ui/CopyId';
import { DataTable, listColumn, type ListColumn } from '../ui/DataTable';
import { RelativeTime } from '../ui/RelativeTime';
import { DisableUserButton } from './DisableUserButton';

function userColumns(viewerId: string | undefined, noDisable: boolean): Array<ListColumn<User>> {
  return [
    listColumn('name', { label: 'Name', rowHeader: true }, (user) => (
      <>
        {user.name}
        {user.id === viewerId ? <span className="hint"> (you)</span> : null}
      </>
    )),
    listColumn('id', { label: 'ID' }, (user) => <CopyId value={user.id} label={`id of ${user.name}`} />),
    listColumn('status', { label: 'Status' }, (user) =>
      user.disabled ? <span className="badge badge-failed">DISABLED</span> : <span className="badge badge-ready">ACTIVE</span>,
    ),
    listColumn('created', { label: 'Created' }, (user) => <RelativeTime iso={user.createdAt} />),
    listColumn('actions', { label: 'Actions', quietHeader: true }, (user) => (
      <span className="link-list">
        <Link href={`/users?id=${encodeURIComponent(user.id)}`} aria-label={`API keys of ${user.name}`}>
          API keys
        </Link>
        {user.id === viewerId || noDisable ? null : <DisableUserButton user={user} />}
      </span>
    )),
  ];
}

export function UserTable({ users, viewerId, caption, noDisable = false }: { users: User[]; viewerId: string | undefined; caption: string; noDisable?: boolean }) {
  const columns = useMemo(() => userColumns(viewerId, noDisable), [viewerId, noDisable]);
  return <DataTable name="users" label={caption} rows={users} columns={columns} rowId={(user) => user.id} columnChoice={!noDisable} />;
}
