import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import { namespaceKeys } from './namespaces';
import type { PageArgs } from './paging';

// Its own module: only the namespaces list reads it (the first-load budgets of the other routes).

/**
 * Each listed namespace's health (what the viewer may read of it, counted), asked apart from the
 * list with the same page arguments: the names show at once, the counts when they come. The
 * namespace switcher reads the list without them.
 */
export const NamespaceHealthQuery = gql(`
  query NamespaceHealth($first: Int, $after: String, $namePrefix: String, $order: ListOrder = NEWEST_FIRST) {
    namespaces(first: $first, after: $after, namePrefix: $namePrefix, order: $order) {
      edges { node { id health { status agents { total running failed degraded deploying } secrets { total stale } rolloutsAwaitingApproval selfConfigAwaitingApproval recentFailures recentFailuresSince } } }
    }
  }
`);

export type NamespaceHealth = ResultOf<typeof NamespaceHealthQuery>['namespaces']['edges'][number]['node']['health'];

export function namespaceHealthQueryOptions(args: PageArgs) {
  return queryOptions({
    queryKey: [...namespaceKeys.all, 'health', args] as const,
    queryFn: async ({ signal }) => new Map((await graphql(NamespaceHealthQuery, args, signal)).namespaces.edges.map((e) => [e.node.id, e.node.health] as const)),
    refetchInterval: 15_000,
  });
}

