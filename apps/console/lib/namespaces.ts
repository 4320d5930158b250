import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';
import { selectErrors, type ConflictError, type ForbiddenError, type ValidationError } from './errors';

export type NamespaceStatus = 'PROVISIONING' | 'READY' | 'FAILED' | 'DELETING';

export type Namespace = {
  id: string;
  name: string;
  status: NamespaceStatus;
  statusMessage: string | null;
  createdAt: string;
};

const namespaceFields = 'id name status statusMessage createdAt';

// Query: namespaces --------------------------------------------------------------------------------

export const NAMESPACES_PAGE_SIZE = 100;

type NamespacesResult = {
  namespaces: { edges: { node: Namespace }[]; pageInfo: { hasNextPage: boolean } };
};

export const NamespacesQuery = gql<NamespacesResult, { first: number }>(`
  query Namespaces($first: Int) {
    namespaces(first: $first) {
      edges { node { ${namespaceFields} } }
      pageInfo { hasNextPage }
    }
  }
`);

export const namespaceKeys = {
  all: ['namespaces'] as const,
  list: () => [...namespaceKeys.all, 'list'] as const,
};

/** Poll while anything is still provisioning: the API readies namespaces in the background. */
export function pollWhileProvisioning(statuses: readonly NamespaceStatus[] | undefined): number | false {
  return statuses?.some((status) => status === 'PROVISIONING') ? 1000 : false;
}

export function namespacesQueryOptions() {
  return queryOptions({
    queryKey: namespaceKeys.list(),
    queryFn: async ({ signal }) => {
      const data = await graphql(NamespacesQuery, { first: NAMESPACES_PAGE_SIZE }, signal);
      return {
        namespaces: data.namespaces.edges.map((edge) => edge.node),
        hasMore: data.namespaces.pageInfo.hasNextPage,
      };
    },
    refetchInterval: (query) => pollWhileProvisioning(query.state.data?.namespaces.map((ns) => ns.status)),
  });
}

// Mutation: createNamespace ------------------------------------------------------------------------

export type CreateNamespaceResult =
  | { __typename: 'CreateNamespaceSuccess'; namespace: Namespace }
  | ValidationError
  | ForbiddenError
  | ConflictError;

export const CreateNamespaceMutation = gql<
  { createNamespace: CreateNamespaceResult },
  { input: { name: string } }
>(`
  mutation CreateNamespace($input: CreateNamespaceInput!) {
    createNamespace(input: $input) {
      __typename
      ... on CreateNamespaceSuccess { namespace { ${namespaceFields} } }
      ${selectErrors('ValidationError', 'ForbiddenError', 'ConflictError')}
    }
  }
`);

export async function createNamespace(name: string): Promise<CreateNamespaceResult> {
  const data = await graphql(CreateNamespaceMutation, { input: { name } });
  return data.createNamespace;
}
