'use client';

import { useQuery } from '@tanstack/react-query';
import { useResultMutation } from '../../lib/use-result-mutation';
import { apiKeysQueryOptions, createApiKey, revokeApiKey, userKeys, type ApiKey, type User } from '../../lib/users';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { useToast } from '../feedback/Toaster';
import { Breadcrumbs } from '../layout/Breadcrumbs';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { TableSkeleton } from '../ui/Skeleton';
import { OneTimeKey } from './OneTimeKey';
import { BusyButton } from '../ui/Busy';

/** /users?id=… : one principal's keys (prefixes and dates only), a new key shown once, and revoke. */
export function UserApiKeys({ principalId, user }: { principalId: string; user: User | undefined }) {
  const keys = useQuery(apiKeysQueryOptions(principalId));
  const name = user?.name ?? principalId;

  const create = useResultMutation({
    mutationFn: () => createApiKey(principalId),
    invalidate: [userKeys.apiKeys(principalId)],
    cancelFirst: true,
  });

  return (
    <>
      <Breadcrumbs crumbs={[{ label: 'Users', href: '/users' }, { label: name }]} />
      <h1>API keys of {name}</h1>
      <p className="lede">
        <CopyId value={principalId} label={`id of ${name}`} />
      </p>
      {user?.disabled ? <p className="alert notice">This user is disabled: none of their keys is accepted.</p> : null}
      <section className="card" aria-label="Create an API key">
        <BusyButton type="button" className="button primary" busy={create.pending} onClick={() => create.submit(undefined)}>
          {create.pending ? 'Creating…' : 'Create API key'}
        </BusyButton>
        <FormOutcome outcome={create.outcome} doing="create a key">
          {(result) => <OneTimeKey label={`New API key for ${name}:`} apiKey={result.apiKey} />}
        </FormOutcome>
      </section>
      <section aria-labelledby="api-keys-title">
        <h2 id="api-keys-title" tabIndex={-1}>
          Keys
        </h2>
        {keys.error ? <QueryErrorAlert error={keys.error} what="API keys" retry={() => keys.refetch()} /> : null}
        {keys.isPending ? <TableSkeleton label="Loading API keys…" /> : null}
        {keys.data ? <ApiKeyTable keys={keys.data} principalId={principalId} /> : null}
      </section>
    </>
  );
}

function ApiKeyTable({ keys, principalId }: { keys: ApiKey[]; principalId: string }) {
  if (keys.length === 0) return <p className="empty">No API keys you may see.</p>;
  return (
    <ScrollTable label="API keys">
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
                <RelativeTime iso={key.createdAt} />
              </td>
              <td>{key.lastUsedAt ? <RelativeTime iso={key.lastUsedAt} /> : 'never'}</td>
              <td>{key.revokedAt ? <RelativeTime iso={key.revokedAt} /> : 'no'}</td>
              <td>{key.revokedAt ? null : <RevokeApiKeyButton apiKey={key} principalId={principalId} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

function RevokeApiKeyButton({ apiKey, principalId }: { apiKey: ApiKey; principalId: string }) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: () => revokeApiKey(apiKey.id),
    invalidate: [userKeys.apiKeys(principalId)],
    cancelFirst: true,
    onSuccess: () => toast(`Key ${apiKey.prefix}… revoked.`),
  });
  return (
    <ConfirmDestructive
      verb="Revoke"
      what={`key ${apiKey.prefix}…`}
      name={apiKey.prefix}
      triggerLabel={`Revoke key ${apiKey.prefix}`}
      consequence={<p>Anything using this key stops working at once.</p>}
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={() => document.getElementById('api-keys-title')?.focus()}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="revoke the key" />
    </ConfirmDestructive>
  );
}
