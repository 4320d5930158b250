'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { usersQueryOptions } from '../../lib/users';
import { viewerQueryOptions } from '../../lib/viewer';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { CreateUserForm } from './CreateUserForm';
import { UserApiKeys } from './UserApiKeys';
import { UserTable } from './UserTable';

// /users lists and creates users; adding ?id=… opens one user's API keys.
export function UsersScreen() {
  const params = useSearchParams();
  const principalId = params.get('id');
  const users = useQuery(usersQueryOptions());
  const viewer = useQuery(viewerQueryOptions());

  if (principalId) {
    return <UserApiKeys principalId={principalId} user={users.data?.find((u) => u.id === principalId)} />;
  }

  return (
    <>
      <h1>Users</h1>
      <p className="lede">People who sign in with an API key. A new user&apos;s key is shown once, when it is created.</p>
      <CreateUserForm />
      <section aria-labelledby="users-list-title">
        <h2 id="users-list-title">All users</h2>
        {users.error ? <QueryErrorAlert error={users.error} what="users" /> : null}
        {users.isPending ? <p role="status">Loading users…</p> : null}
        {users.data ? <UserTable users={users.data} viewerId={viewer.data?.id} /> : null}
      </section>
    </>
  );
}
