'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { formatDateTime } from '../../lib/format';
import { apiKeysQueryOptions, createApiKey, revokeApiKey, userKeys, type ApiKey, type User } from '../../lib/users';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { OneTimeKey } from './OneTimeKey';

/** /users?id=… : one user's keys (prefixes and dates only), a new key shown once, and revoke. */
export function UserApiKeys({ principalId, user }: { principalId: string; user: User | undefined }) {
  const queryClient = useQueryClient();
  const keys = useQuery(apiKeysQueryOptions(principalId));
  const name = user?.name ?? principalId;

  const create = useMutation({
    mutationFn: () => createApiKey(principalId),
    onSuccess: async (result) => {
      if (result.__typename !== 'CreateApiKeySuccess') return;
      await queryClient.cancelQueries({ queryKey: userKeys.apiKeys(principalId) });
      await queryClient.invalidateQueries({ queryKey: userKeys.apiKeys(principalId) });
    },
  });
  const createFailure = create.data && create.data.__typename !== 'CreateApiKeySuccess' ? create.data : null;

  return (
    <>
      <p className="breadcrumb">
        <Link href="/users">Users</Link> / {name}
      </p>
      <h1>API keys of {name}</h1>
      {user?.disabled ? (
        <p className="alert notice">This user is disabled: none of their keys is accepted.</p>
      ) : null}
      <section className="card" aria-label="Create an API key">
        <button type="button" className="button primary" disabled={create.isPending} onClick={() => create.mutate()}>
          {create.isPending ? 'Creating…' : 'Create API key'}
        </button>
        {createFailure ? <MutationErrorAlert error={createFailure} /> : null}
        {create.error ? (
          <p role="alert" className="alert error">
            <strong>Could not create a key:</strong> {create.error.message}
          </p>
        ) : null}
        {create.data?.__typename === 'CreateApiKeySuccess' ? (
          <OneTimeKey label={`New API key for ${name}:`} apiKey={create.data.apiKey} />
        ) : null}
      </section>
      <section aria-labelledby="api-keys-title">
        <h2 id="api-keys-title">Keys</h2>
        {keys.error ? <QueryErrorAlert error={keys.error} what="API keys" /> : null}
        {keys.isPending ? <p role="status">Loading API keys…</p> : null}
        {keys.data ? <ApiKeyTable keys={keys.data} principalId={principalId} /> : null}
      </section>
    </>
  );
}

function ApiKeyTable({ keys, principalId }: { keys: ApiKey[]; principalId: string }) {
  if (keys.length === 0) return <p className="empty">No API keys you may see.</p>;
  return (
    <table className="table">
      <caption className="visually-hidden">API keys</caption>
      <thead>
        <tr>
          <th scope="col">Prefix</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Revoked</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <th scope="row">
              <code>{key.prefix}…</code>
            </th>
            <td>
              <time dateTime={key.createdAt}>{formatDateTime(key.createdAt)}</time>
            </td>
            <td>{key.lastUsedAt ? <time dateTime={key.lastUsedAt}>{formatDateTime(key.lastUsedAt)}</time> : 'never'}</td>
            <td>{key.revokedAt ? <time dateTime={key.revokedAt}>{formatDateTime(key.revokedAt)}</time> : 'no'}</td>
            <td>{key.revokedAt ? null : <RevokeApiKeyButton apiKey={key} principalId={principalId} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RevokeApiKeyButton({ apiKey, principalId }: { apiKey: ApiKey; principalId: string }) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: () => revokeApiKey(apiKey.id),
    onSuccess: async (result) => {
      if (result.__typename !== 'RevokeApiKeySuccess') return;
      await queryClient.cancelQueries({ queryKey: userKeys.apiKeys(principalId) });
      await queryClient.invalidateQueries({ queryKey: userKeys.apiKeys(principalId) });
    },
  });
  const failure = mutation.data && mutation.data.__typename !== 'RevokeApiKeySuccess' ? mutation.data : null;
  return (
    <>
      <button
        type="button"
        className="button danger"
        aria-label={`Revoke key ${apiKey.prefix}`}
        disabled={mutation.isPending}
        onClick={() => {
          if (window.confirm(`Revoke key ${apiKey.prefix}…? Anything using it stops working.`)) mutation.mutate();
        }}
      >
        {mutation.isPending ? 'Revoking…' : 'Revoke'}
      </button>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not revoke the key:</strong> {mutation.error.message}
        </p>
      ) : null}
    </>
  );
}
