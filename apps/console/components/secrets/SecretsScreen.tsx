'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { CreateSecretForm } from './CreateSecretForm';
import { SecretTable } from './SecretTable';

// A static export has no dynamic segments, so the namespace id travels as ?namespace=ns_…
export function SecretsScreen() {
  const namespaceId = useSearchParams().get('namespace');
  if (!namespaceId) {
    return <MissingNamespace title="Secrets" />;
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
    return <UnknownNamespace title="Secrets" namespaceId={namespaceId} />;
  }

  const { namespace, secrets, hasMore } = data;
  return (
    <>
      <NamespaceHeader namespace={namespace} section="secrets" title={`Secrets in ${namespace.name}`} />
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
