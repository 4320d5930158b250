'use client';

import { useQuery } from '@tanstack/react-query';
import { namespacesQueryOptions } from '../../lib/namespaces';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { CreateNamespaceForm } from './CreateNamespaceForm';
import { NamespaceTable } from './NamespaceTable';

export function NamespacesScreen() {
  const { data, error, isPending } = useQuery(namespacesQueryOptions());

  return (
    <>
      <h1>Namespaces</h1>
      <p className="lede">Each namespace owns a Kubernetes namespace that holds its secrets.</p>
      <CreateNamespaceForm />
      <section aria-labelledby="namespaces-list-title">
        <h2 id="namespaces-list-title">All namespaces</h2>
        {error ? <QueryErrorAlert error={error} what="namespaces" /> : null}
        {isPending ? <p role="status">Loading namespaces…</p> : null}
        {data ? <NamespaceTable namespaces={data.namespaces} hasMore={data.hasMore} /> : null}
      </section>
    </>
  );
}
