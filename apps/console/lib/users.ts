// Human principals, to offer as grant subjects: everyone with `read` on principals, else only yourself.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';
import type { Principal } from './viewer';

export const USERS_PAGE_SIZE = 100;

export const UsersQuery = gql<
  { users: { edges: { node: Principal & { disabled: boolean } }[]; pageInfo: { hasNextPage: boolean } } },
  { first: number }
>(`
  query Users($first: Int) {
    users(first: $first) {
      edges { node { id kind name disabled } }
      pageInfo { hasNextPage }
    }
  }
`);

export const userKeys = { all: ['users'] as const, list: () => [...userKeys.all, 'list'] as const };

export function usersQueryOptions() {
  return queryOptions({
    queryKey: userKeys.list(),
    queryFn: async ({ signal }) =>
      (await graphql(UsersQuery, { first: USERS_PAGE_SIZE }, signal)).users.edges.map((edge) => edge.node),
    staleTime: 60_000,
  });
}
