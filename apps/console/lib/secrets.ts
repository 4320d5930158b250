// Secret metadata only: no document here selects a value (there is no such field) or the backend
// locator, which the console has no use for.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';
import {
  selectErrors,
  type ConflictError,
  type ForbiddenError,
  type NamespaceNotReadyError,
  type NotFoundError,
  type OutcomeUnknownError,
  type SecretInUseError,
  type ValidationError,
} from './errors';
import { pollWhileProvisioning, type Namespace } from './namespaces';
import { connectionFields, toPage, type Connection, type PageArgs } from './paging';

export type SecretReference = { kind: string; namespaceId: string; id: string };

export type Secret = {
  id: string;
  name: string;
  version: number;
  reference: SecretReference;
  createdAt: string;
  updatedAt: string;
};

/** A row of the secrets list: how many consumers it has (the references a delete would refuse over),
 * and how many running revisions hold an older version (W7). */
export type SecretListItem = Secret & { consumers: { total: number }; staleConsumers: { total: number } };

const secretFields = 'id name version reference { kind namespaceId id } createdAt updatedAt';

// Query: one namespace with a page of its secrets --------------------------------------------------

/** The pickers (bindings, grants, harness auth) offer the first hundred by name. */
export const SECRETS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: SECRETS_PAGE_SIZE, after: null, namePrefix: null };

type NamespaceSecretsResult = {
  namespace: (Namespace & { secrets: Connection<SecretListItem> }) | null;
};

export const NamespaceSecretsQuery = gql<NamespaceSecretsResult, PageArgs & { id: string }>(`
  query NamespaceSecrets($id: ID!, $first: Int, $after: String, $namePrefix: String) {
    namespace(id: $id) {
      id name status statusMessage createdAt
      secrets(first: $first, after: $after, namePrefix: $namePrefix) { ${connectionFields(`${secretFields} consumers { total } staleConsumers { total }`)} }
    }
  }
`);

export const secretKeys = {
  all: ['secrets'] as const,
  byNamespace: (namespaceId: string) => [...secretKeys.all, 'namespace', namespaceId] as const,
  page: (namespaceId: string, args: PageArgs) => [...secretKeys.byNamespace(namespaceId), args] as const,
};

export function namespaceSecretsQueryOptions(namespaceId: string, args: PageArgs = ALL) {
  return queryOptions({
    queryKey: secretKeys.page(namespaceId, args),
    queryFn: async ({ signal }) => {
      const data = await graphql(NamespaceSecretsQuery, { id: namespaceId, ...args }, signal);
      if (!data.namespace) return null;
      const { secrets, ...namespace } = data.namespace;
      const page = toPage(secrets);
      return { namespace, secrets: page.items, page };
    },
    refetchInterval: (query) => {
      const status = query.state.data?.namespace.status;
      return pollWhileProvisioning(status ? [status] : undefined);
    },
  });
}

// Mutation: createSecret ---------------------------------------------------------------------------

export type CreateSecretResult =
  | { __typename: 'CreateSecretSuccess'; secret: Secret }
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError
  | NamespaceNotReadyError
  | OutcomeUnknownError;

export const CreateSecretMutation = gql<
  { createSecret: CreateSecretResult },
  { input: { namespaceId: string; name: string; value: string } }
>(`
  mutation CreateSecret($input: CreateSecretInput!) {
    createSecret(input: $input) {
      __typename
      ... on CreateSecretSuccess { secret { ${secretFields} } }
      ${selectErrors('ValidationError', 'NotFoundError', 'ForbiddenError', 'ConflictError', 'NamespaceNotReadyError', 'OutcomeUnknownError')}
    }
  }
`);

export async function createSecret(input: { namespaceId: string; name: string; value: string }) {
  const data = await graphql(CreateSecretMutation, { input });
  return data.createSecret;
}

// Mutation: updateSecret (rotate) ------------------------------------------------------------------

export type SecretDelivery = { stored: boolean; delivered: boolean; message: string; staleRevisionIds: string[] };

export type UpdateSecretResult =
  | { __typename: 'UpdateSecretSuccess'; secret: Secret; delivery: SecretDelivery }
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError
  | NamespaceNotReadyError
  | OutcomeUnknownError;

export const UpdateSecretMutation = gql<
  { updateSecret: UpdateSecretResult },
  { input: { id: string; value: string } }
>(`
  mutation UpdateSecret($input: UpdateSecretInput!) {
    updateSecret(input: $input) {
      __typename
      ... on UpdateSecretSuccess {
        secret { ${secretFields} }
        delivery { stored delivered message staleRevisionIds }
      }
      ${selectErrors('ValidationError', 'NotFoundError', 'ForbiddenError', 'ConflictError', 'NamespaceNotReadyError', 'OutcomeUnknownError')}
    }
  }
`);

export async function updateSecret(input: { id: string; value: string }) {
  const data = await graphql(UpdateSecretMutation, { input });
  return data.updateSecret;
}

// Mutation: deleteSecret ---------------------------------------------------------------------------

export type DeleteSecretResult =
  | { __typename: 'DeleteSecretSuccess'; deletedSecretId: string }
  | NotFoundError
  | ForbiddenError
  | ConflictError
  | SecretInUseError
  | OutcomeUnknownError;

export const DeleteSecretMutation = gql<{ deleteSecret: DeleteSecretResult }, { input: { id: string } }>(`
  mutation DeleteSecret($input: DeleteSecretInput!) {
    deleteSecret(input: $input) {
      __typename
      ... on DeleteSecretSuccess { deletedSecretId }
      ${selectErrors('NotFoundError', 'ForbiddenError', 'ConflictError', 'SecretInUseError', 'OutcomeUnknownError')}
    }
  }
`);

export async function deleteSecret(id: string) {
  const data = await graphql(DeleteSecretMutation, { input: { id } });
  return data.deleteSecret;
}
