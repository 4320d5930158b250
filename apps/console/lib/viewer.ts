import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';

// `viewer` answers null instead of UNAUTHENTICATED, so asking who is signed in never redirects.
export const ViewerQuery = gql(`
  query Viewer {
    viewer { id kind name }
  }
`);

export type Principal = NonNullable<ResultOf<typeof ViewerQuery>['viewer']>;

export const viewerKeys = { all: ['viewer'] as const };

export function viewerQueryOptions() {
  return queryOptions({
    queryKey: viewerKeys.all,
    queryFn: async ({ signal }) => (await graphql(ViewerQuery, {}, signal)).viewer,
    staleTime: 60_000,
    // Asked again every few seconds while it fails, so the header recovers once the server answers.
    refetchInterval: (query) => (query.state.status === 'error' ? 5_000 : false),
  });
}
