'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { namespaceHref } from '../../lib/namespace-links';
import { lazy, Suspense, useState } from 'react';
import { useCan } from '../../lib/can';
import { usePaging } from '../../lib/paging';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { CreatePanel } from '../ui/CreatePanel';
import { ListSearch, Pager } from '../ui/ListControls';
import { FilterSelect, OrderSelect, useListOrder } from '../ui/ListAddress';
import { TableSkeleton } from '../ui/Skeleton';
import { CreateSecretForm } from './CreateSecretForm';
import { SecretReferencesScreen } from './ReferenceGraph';
import { SecretTable } from './SecretTable';

// The namespace's rotation default and its editor are a chunk of their own, loaded when opened.
const NamespaceRotationDefault = lazy(() => import('./NamespaceRotationDefault'));

// A static export has no dynamic segments, so the namespace id travels as ?namespace=ns_…
export function SecretsScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  const secretId = params.get('id');
  if (!namespaceId) {
    return <MissingNamespace title="Secrets" />;
  }
  // &id=sec_… opens one secret's reference graph.
  if (secretId) return <SecretReferencesScreen namespaceId={namespaceId} secretId={secretId} />;
  // &stale=1 (the namespaces list's health links) or &used=1 / &used=0 (the Show filter).
  return <NamespaceSecrets namespaceId={namespaceId} filter={secretFilterOf(params)} />;
}

/**
 * The Show filter's choices, each the address it keeps (`params`: `1` or `0`, null to leave out);
 * the API's `used` and `stale` arguments are read from the same (secretFilterQuery), and the
 * address is read back through it (secretFilterOf).
 */
const SECRET_FILTERS = {
  all: { label: 'All secrets', params: { used: null, stale: null }, notice: null, empty: null },
  used: { label: 'Used', params: { used: '1', stale: null }, notice: 'Only secrets a configuration binds or an agent’s harness uses.', empty: 'No secret here is used by a configuration or an agent.' },
  unused: { label: 'Not used', params: { used: '0', stale: null }, notice: 'Only secrets nothing uses: no configuration binds them and no agent’s harness uses them.', empty: 'Every secret here is used.' },
  stale: {
    label: 'Stale',
    params: { used: null, stale: '1' },
    notice: 'Only stale secrets: rotated while a running revision still holds an older version.',
    empty: 'No stale secrets here now: every running revision holds the current version.',
  },
} as const;
type SecretFilter = keyof typeof SECRET_FILTERS;
const FILTERS = Object.keys(SECRET_FILTERS) as SecretFilter[];

/** The filter the address names: the first whose set parameters it holds, else all. */
function secretFilterOf(params: URLSearchParams): SecretFilter {
  return FILTERS.find((f) => f !== 'all' && Object.entries(SECRET_FILTERS[f].params).every(([name, value]) => value === null || params.get(name) === value)) ?? 'all';
}

/** The API's arguments for a filter: each parameter it sets, `1` as true and `0` as false. */
function secretFilterQuery(filter: SecretFilter): { used?: boolean; stale?: boolean } {
  return Object.fromEntries(Object.entries(SECRET_FILTERS[filter].params).flatMap(([name, value]) => (value === null ? [] : [[name, value === '1']])));
}

function NamespaceSecrets({ namespaceId, filter }: { namespaceId: string; filter: SecretFilter }) {
  const sorting = useListOrder();
  const paging = usePaging(undefined, sorting, filter);
  const shown = SECRET_FILTERS[filter];
  const query = useQuery({ ...namespaceSecretsQueryOptions(namespaceId, { ...paging.args, ...secretFilterQuery(filter) }), placeholderData: (previous) => previous });
  const mayCreate = useCan('create', 'secret', namespaceId);
  const { data, error, isPending } = query;
  const namespace = data?.namespace ?? null;

  return (
    <>
      <NamespaceHeader
        namespace={namespace}
        namespaceId={namespaceId}
        section="secrets"
        title={namespace ? `Secrets in ${namespace.name}` : 'Secrets'}
      />
      <p className="lede">Values are write-only: the console stores them and never shows them again.</p>
      {error ? <QueryErrorAlert error={error} what="this namespace's secrets" retry={() => query.refetch()} /> : null}
      {data === null ? <UnknownNamespace namespaceId={namespaceId} /> : null}
      {namespace && mayCreate !== false ? (
        <CreatePanel label="New secret" defaultOpen={data?.page.totalCount === 0 && !paging.args.namePrefix && filter === 'all'}>
          <CreateSecretForm namespace={namespace} />
        </CreatePanel>
      ) : null}
      {data !== null && !error ? (
        <section aria-labelledby="secrets-list-title">
          <h2 id="secrets-list-title">Secrets</h2>
          {shown.notice ? (
            <p className="alert notice" data-testid="list-filter">
              {shown.notice} <Link href={namespaceHref('secrets', namespaceId)}>Show all secrets</Link>
            </p>
          ) : null}
          <ListSearch paging={paging} noun="secrets">
            <OrderSelect sorting={sorting} noun="secrets" />
            <FilterSelect label="Show" choices={SECRET_FILTERS} current={filter} />
          </ListSearch>
          {isPending ? <TableSkeleton label="Loading secrets…" /> : null}
          {data ? (
            data.secrets.length === 0 ? (
              <p className="empty">
                {shown.empty && paging.args.namePrefix
                  ? `No secrets whose name starts with “${paging.args.namePrefix}” are shown by this filter.`
                  : shown.empty
                  ? shown.empty
                  : paging.args.namePrefix
                  ? `No secrets whose name starts with “${paging.args.namePrefix}”.`
                  : mayCreate
                    ? 'No secrets in this namespace yet. Create the first with “New secret”.'
                    : 'No secrets in this namespace yet that you may see. A namespace administrator can grant you access.'}
              </p>
            ) : (
              <SecretTable namespaceId={namespaceId} secrets={data.secrets} sorting={sorting} />
            )
          ) : null}
          <Pager paging={paging} page={data?.page} noun="secrets" />
        </section>
      ) : null}
      {namespace ? <RotationDefaultSection namespaceId={namespaceId} /> : null}
    </>
  );
}

/** V4: the namespace's default rotation policy, loaded (with its editor's chunk) when opened. */
function RotationDefaultSection({ namespaceId }: { namespaceId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section aria-labelledby="rotation-default-title" className="section">
      <h2 id="rotation-default-title">Rotation default</h2>
      <p className="hint">What a rotation of a secret without a policy of its own does in this namespace.</p>
      <button type="button" className="button secondary" aria-expanded={open} aria-controls="rotation-default-body" onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide the rotation default' : 'Show the rotation default'}
      </button>
      {open ? (
        <div id="rotation-default-body">
          <Suspense fallback={<p className="hint">Loading…</p>}>
            <NamespaceRotationDefault namespaceId={namespaceId} />
          </Suspense>
        </div>
      ) : null}
    </section>
  );
}
