'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { StatusBadge } from '../namespaces/StatusBadge';
import { CreateSecretForm } from './CreateSecretForm';
import { SecretTable } from './SecretTable';

// A static export has no dynamic segments, so the namespace id travels as ?namespace=ns_…
export function SecretsScreen() {
  const namespaceId = useSearchParams().get('namespace');
  if (!namespaceId) {
    return (
      <>
        <h1>Secrets</h1>
        <p role="alert" className="alert error">
          No namespace selected. Pick one on the <Link href="/namespaces">namespaces</Link> page.
        </p>
      </>
    );
  }
  return <NamespaceSecrets namespaceId={namespaceId} />;
}

function NamespaceSecrets({ namespaceId }: { namespaceId: string }) {
  const { data, error, isPending } = useQuery(namespaceSecretsQueryOptions(namespaceId));

  if (isPending) return <p role="status">Loading secrets…</p>;
  if (error) {
    return (
      <>
        <h1>Secrets</h1>
        <QueryErrorAlert error={error} what="this namespace" />
      </>
    );
  }
  if (!data) {
    return (
      <>
        <h1>Secrets</h1>
        <p role="alert" className="alert error">
          Namespace <code>{namespaceId}</code> does not exist or you may not see it.{' '}
          <Link href="/namespaces">Back to namespaces</Link>
        </p>
      </>
    );
  }

  const { namespace, secrets, hasMore } = data;
  return (
    <>
      <p className="breadcrumb">
        <Link href="/namespaces">Namespaces</Link> / {namespace.name}
      </p>
      <h1>
        Secrets in {namespace.name} <StatusBadge status={namespace.status} />
      </h1>
      <p className="lede">
        Namespace <code>{namespace.id}</code>. Values are write-only: the console stores them and never shows them
        again.
      </p>
      <CreateSecretForm namespace={namespace} />
      <section aria-labelledby="secrets-list-title">
        <h2 id="secrets-list-title">Secrets</h2>
        <SecretTable namespaceId={namespace.id} secrets={secrets} />
        {hasMore ? <p className="hint">Showing the first {secrets.length} secrets.</p> : null}
      </section>
    </>
  );
}
