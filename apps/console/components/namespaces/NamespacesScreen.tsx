'use client';

import { useQuery } from '@tanstack/react-query';
import { useCan } from '../../lib/can';
import { namespaceHealthQueryOptions } from '../../lib/namespace-health';
import { namespacesQueryOptions } from '../../lib/namespaces';
import { usePaging } from '../../lib/paging';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { CreatePanel } from '../ui/CreatePanel';
import { ListSearch, Pager } from '../ui/ListControls';
import { OrderSelect, useListOrder } from '../ui/ListAddress';
import { TableSkeleton } from '../ui/Skeleton';
import { CreateNamespaceForm } from './CreateNamespaceForm';
import { NamespaceTable } from './NamespaceTable';

export function NamespacesScreen() {
  const sorting = useListOrder();
  const paging = usePaging(undefined, sorting);
  const query = useQuery({ ...namespacesQueryOptions(paging.args), placeholderData: (previous) => previous });
  const health = useQuery({ ...namespaceHealthQueryOptions(paging.args), placeholderData: (previous) => previous });
  const mayCreate = useCan('create', 'namespace');
  const { data, error, isPending } = query;

  return (
    <>
      <h1>Namespaces</h1>
      <p className="lede">Each namespace owns a Kubernetes namespace that holds its secrets.</p>
      {mayCreate !== false ? (
        <CreatePanel label="New namespace" defaultOpen={data?.totalCount === 0 && !paging.args.namePrefix}>
          <CreateNamespaceForm listArgs={paging.args} />
        </CreatePanel>
      ) : null}
      <section aria-labelledby="namespaces-list-title">
        <h2 id="namespaces-list-title">All namespaces</h2>
        <ListSearch paging={paging} noun="namespaces">
            <OrderSelect sorting={sorting} noun="namespaces" />
          </ListSearch>
        {error ? <QueryErrorAlert error={error} what="namespaces" retry={() => query.refetch()} /> : null}
        {isPending ? <TableSkeleton label="Loading namespaces…" /> : null}
        {data ? (
          data.items.length === 0 ? (
            <p className="empty">
              {paging.args.namePrefix
                ? `No namespaces whose name starts with “${paging.args.namePrefix}”.`
                : mayCreate
                  ? 'No namespaces yet. Create the first with “New namespace”.'
                  : 'No namespaces yet that you may see. An administrator can grant you access to one.'}
            </p>
          ) : (
            <NamespaceTable namespaces={data.items} health={health.data ?? null} sorting={sorting} />
          )
        ) : null}
        <Pager paging={paging} page={data} noun="namespaces" />
      </section>
    </>
  );
}
