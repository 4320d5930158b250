import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';
import { connectionFields, toPage, type Connection, type PageArgs } from './paging';
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

/** Enough for the namespace switcher; the list page pages through all of them. */
export const NAMESPACES_PAGE_SIZE = 100;

export const NamespacesQuery = gql<{ namespaces: Connection<Namespace> }, PageArgs>(`
  query Namespaces($first: Int, $after: String, $namePrefix: String) {
    namespaces(first: $first, after: $after, namePrefix: $namePrefix) { ${connectionFields(namespaceFields)} }
  }
`);

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
