'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { useCan } from '../../lib/can';
import { usePaging } from '../../lib/paging';
import { bootstrapPrincipalQueryOptions, usersQueryOptions } from '../../lib/users';
import { viewerQueryOptions } from '../../lib/viewer';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { CreatePanel } from '../ui/CreatePanel';
import { ListSearch, Pager } from '../ui/ListControls';
import { TableSkeleton } from '../ui/Skeleton';
import { CreateUserForm } from './CreateUserForm';
import { UserApiKeys } from './UserApiKeys';
import { UserTable } from './UserTable';

// /users lists and creates users; adding ?id=… opens one principal's API keys (a user's, or the
// bootstrap service principal's).
export function UsersScreen() {
  const params = useSearchParams();
  const principalId = params.get('id');
  if (principalId) return <PrincipalKeys principalId={principalId} />;
  return <UserList />;
}

function PrincipalKeys({ principalId }: { principalId: string }) {
  const users = useQuery(usersQueryOptions());
  const bootstrap = useQuery(bootstrapPrincipalQueryOptions());
  const viewer = useQuery(viewerQueryOptions());
  const principal =
    users.data?.items.find((u) => u.id === principalId) ??
    (bootstrap.data?.id === principalId ? bootstrap.data : undefined) ??
    (viewer.data?.id === principalId ? { ...viewer.data, disabled: false, createdAt: '' } : undefined);
  return <UserApiKeys principalId={principalId} user={principal} />;
}

function UserList() {
  const paging = usePaging();
  const users = useQuery({ ...usersQueryOptions(paging.args), placeholderData: (previous) => previous });
  const bootstrap = useQuery(bootstrapPrincipalQueryOptions());
  const viewer = useQuery(viewerQueryOptions());
  const mayCreate = useCan('create', 'principal');

  return (
    <>
      <h1>Users</h1>
      <p className="lede">People who sign in with an API key. A new user&apos;s key is shown once, when it is created.</p>
      {mayCreate !== false ? (
        <CreatePanel label="New user">
          <CreateUserForm />
        </CreatePanel>
      ) : null}
      <section aria-labelledby="users-list-title">
        <h2 id="users-list-title">All users</h2>
        <ListSearch paging={paging} noun="users" />
        {users.error ? <QueryErrorAlert error={users.error} what="users" retry={() => users.refetch()} /> : null}
        {users.isPending ? <TableSkeleton label="Loading users…" /> : null}
        {users.data ? (
          users.data.items.length === 0 ? (
            <p className="empty">
              {paging.args.namePrefix ? `No users whose name starts with “${paging.args.namePrefix}”.` : 'No users you may see.'}
            </p>
          ) : (
            <UserTable users={users.data.items} viewerId={viewer.data?.id} caption="Users" />
          )
        ) : null}
        <Pager paging={paging} page={users.data} noun="users" />
      </section>
      {bootstrap.data ? (
        <section aria-labelledby="bootstrap-title" className="section">
          <h2 id="bootstrap-title">Bootstrap service principal</h2>
          <p className="hint">
            Created at installation with installation-admin. Its keys are the most powerful there are: revoke the ones
            nobody needs.
          </p>
          <UserTable users={[bootstrap.data]} viewerId={viewer.data?.id} caption="Bootstrap service principal" noDisable />
        </section>
      ) : null}
    </>
  );
}
