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

export type SecretReference = { kind: string; namespaceId: string; id: string };

export type Secret = {
  id: string;
  name: string;
  version: number;
  reference: SecretReference;
  createdAt: string;
  updatedAt: string;
};

const secretFields = 'id name version reference { kind namespaceId id } createdAt updatedAt';

// Query: one namespace with its secrets -----------------------------------------------------------

export const SECRETS_PAGE_SIZE = 100;

type NamespaceSecretsResult = {
  namespace:
    | (Namespace & { secrets: { edges: { node: Secret }[]; pageInfo: { hasNextPage: boolean } } })
    | null;
};

export const NamespaceSecretsQuery = gql<NamespaceSecretsResult, { id: string; first: number }>(`
  query NamespaceSecrets($id: ID!, $first: Int) {
    namespace(id: $id) {
      id name status statusMessage createdAt
      secrets(first: $first) {
        edges { node { ${secretFields} } }
        pageInfo { hasNextPage }
      }
    }
  }
`);

export const secretKeys = {
  all: ['secrets'] as const,
  byNamespace: (namespaceId: string) => [...secretKeys.all, 'namespace', namespaceId] as const,
};

export function namespaceSecretsQueryOptions(namespaceId: string) {
  return queryOptions({
    queryKey: secretKeys.byNamespace(namespaceId),
    queryFn: async ({ signal }) => {
      const data = await graphql(NamespaceSecretsQuery, { id: namespaceId, first: SECRETS_PAGE_SIZE }, signal);
      if (!data.namespace) return null;
      const { secrets, ...namespace } = data.namespace;
      return {
        namespace,
        secrets: secrets.edges.map((edge) => edge.node),
        hasMore: secrets.pageInfo.hasNextPage,
      };
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
