import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';

export type Principal = { id: string; kind: 'HUMAN' | 'SERVICE'; name: string };

// `viewer` answers null instead of UNAUTHENTICATED, so asking who is signed in never redirects.
export const ViewerQuery = gql<{ viewer: Principal | null }>(`
  query Viewer {
    viewer { id kind name }
  }
`);

export const viewerKeys = { all: ['viewer'] as const };

export function viewerQueryOptions() {
  return queryOptions({
    queryKey: viewerKeys.all,
    queryFn: async ({ signal }) => (await graphql(ViewerQuery, {}, signal)).viewer,
    staleTime: 60_000,
  });
}
