import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import { toPage, type PageArgs } from './paging';
import { ConflictErrorFields, ForbiddenErrorFields, ValidationErrorFields } from './errors';

export const NamespaceFields = gql(`fragment NamespaceFields on Namespace { id name status statusMessage createdAt }`);

export type Namespace = ResultOf<typeof NamespaceFields>;
export type NamespaceStatus = Namespace['status'];

// Query: namespaces --------------------------------------------------------------------------------

/** Enough for the namespace switcher; the list page pages through all of them. */
export const NAMESPACES_PAGE_SIZE = 100;

export const NamespacesQuery = gql(`
  query Namespaces($first: Int, $after: String, $namePrefix: String, $order: ListOrder = NEWEST_FIRST) {
    namespaces(first: $first, after: $after, namePrefix: $namePrefix, order: $order) {
      edges { node { ...NamespaceFields } } pageInfo { hasNextPage endCursor } totalCount
    }
  }
`, [NamespaceFields]);

export const namespaceKeys = {
  all: ['namespaces'] as const,
  list: (args: PageArgs = { first: NAMESPACES_PAGE_SIZE, after: null, namePrefix: null }) => [...namespaceKeys.all, 'list', args] as const,
};

/** Poll while anything is still provisioning: the API readies namespaces in the background. */
export function pollWhileProvisioning(statuses: readonly NamespaceStatus[] | undefined): number | false {
  return statuses?.some((status) => status === 'PROVISIONING') ? 1000 : false;
}

export function namespacesQueryOptions(args: PageArgs = { first: NAMESPACES_PAGE_SIZE, after: null, namePrefix: null }) {
  return queryOptions({
    queryKey: namespaceKeys.list(args),
    queryFn: async ({ signal }) => toPage((await graphql(NamespacesQuery, args, signal)).namespaces),
    refetchInterval: (query) => pollWhileProvisioning(query.state.data?.items.map((ns) => ns.status)),
  });
}

// Mutation: createNamespace ------------------------------------------------------------------------

export const CreateNamespaceMutation = gql(`
  mutation CreateNamespace($input: CreateNamespaceInput!) {
    createNamespace(input: $input) {
      __typename
      ... on CreateNamespaceSuccess { namespace { ...NamespaceFields } }
      ...ValidationErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
    }
  }
`, [NamespaceFields, ValidationErrorFields, ForbiddenErrorFields, ConflictErrorFields]);

export type CreateNamespaceResult = ResultOf<typeof CreateNamespaceMutation>['createNamespace'];

export async function createNamespace(name: string): Promise<CreateNamespaceResult> {
  const data = await graphql(CreateNamespaceMutation, { input: { name } });
  return data.createNamespace;
}
