// Human principals and their API keys: listed for grant subjects and managed on /users.
import { queryOptions } from '@tanstack/react-query';
import { selectErrors, type ConflictError, type ForbiddenError, type NotFoundError, type ValidationError } from './errors';
import { gql, graphql } from './graphql';
import type { Principal } from './viewer';

export type User = Principal & { disabled: boolean; createdAt: string };

export const USERS_PAGE_SIZE = 100;

export const UsersQuery = gql<
  { users: { edges: { node: User }[]; pageInfo: { hasNextPage: boolean } } },
  { first: number }
>(`
  query Users($first: Int) {
    users(first: $first) {
      edges { node { id kind name disabled createdAt } }
      pageInfo { hasNextPage }
    }
  }
`);

export const userKeys = {
  all: ['users'] as const,
  list: () => [...userKeys.all, 'list'] as const,
  apiKeys: (principalId: string) => [...userKeys.all, 'apiKeys', principalId] as const,
};

export function usersQueryOptions() {
  return queryOptions({
    queryKey: userKeys.list(),
    queryFn: async ({ signal }) =>
      (await graphql(UsersQuery, { first: USERS_PAGE_SIZE }, signal)).users.edges.map((edge) => edge.node),
    staleTime: 60_000,
  });
}

// Query: apiKeys -----------------------------------------------------------------------------------

export type ApiKey = {
  id: string;
  principalId: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

const apiKeyFields = 'id principalId prefix createdAt lastUsedAt revokedAt';

export const ApiKeysQuery = gql<{ apiKeys: ApiKey[] }, { principalId: string }>(`
  query ApiKeys($principalId: ID!) {
    apiKeys(principalId: $principalId) { ${apiKeyFields} }
  }
`);

export function apiKeysQueryOptions(principalId: string) {
  return queryOptions({
    queryKey: userKeys.apiKeys(principalId),
    queryFn: async ({ signal }) => (await graphql(ApiKeysQuery, { principalId }, signal)).apiKeys,
  });
}

// Mutations ----------------------------------------------------------------------------------------

export type CreateUserResult =
  | { __typename: 'CreateUserSuccess'; apiKey: string; principal: User; storedKey: ApiKey }
  | ForbiddenError
  | ValidationError;

export const CreateUserMutation = gql<{ createUser: CreateUserResult }, { input: { name: string } }>(`
  mutation CreateUser($input: CreateUserInput!) {
    createUser(input: $input) {
      __typename
      ... on CreateUserSuccess { apiKey principal { id kind name disabled createdAt } storedKey { ${apiKeyFields} } }
      ${selectErrors('ForbiddenError', 'ValidationError')}
    }
  }
`);

export async function createUser(name: string): Promise<CreateUserResult> {
  return (await graphql(CreateUserMutation, { input: { name } })).createUser;
}

export type DisableUserResult =
  | { __typename: 'DisableUserSuccess'; changed: boolean; principal: User }
  | ForbiddenError
  | NotFoundError;

export const DisableUserMutation = gql<{ disableUser: DisableUserResult }, { input: { id: string } }>(`
  mutation DisableUser($input: DisableUserInput!) {
    disableUser(input: $input) {
      __typename
      ... on DisableUserSuccess { changed principal { id kind name disabled createdAt } }
      ${selectErrors('ForbiddenError', 'NotFoundError')}
    }
  }
`);

export async function disableUser(id: string): Promise<DisableUserResult> {
  return (await graphql(DisableUserMutation, { input: { id } })).disableUser;
}

export type CreateApiKeyResult =
  | { __typename: 'CreateApiKeySuccess'; apiKey: string; storedKey: ApiKey }
  | ConflictError
  | ForbiddenError
  | NotFoundError;

export const CreateApiKeyMutation = gql<{ createApiKey: CreateApiKeyResult }, { input: { principalId: string } }>(`
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      __typename
      ... on CreateApiKeySuccess { apiKey storedKey { ${apiKeyFields} } }
      ${selectErrors('ConflictError', 'ForbiddenError', 'NotFoundError')}
    }
  }
`);

export async function createApiKey(principalId: string): Promise<CreateApiKeyResult> {
  return (await graphql(CreateApiKeyMutation, { input: { principalId } })).createApiKey;
}

export type RevokeApiKeyResult =
  | { __typename: 'RevokeApiKeySuccess'; changed: boolean; apiKey: ApiKey }
  | ForbiddenError
  | NotFoundError;

export const RevokeApiKeyMutation = gql<{ revokeApiKey: RevokeApiKeyResult }, { input: { id: string } }>(`
  mutation RevokeApiKey($input: RevokeApiKeyInput!) {
    revokeApiKey(input: $input) {
      __typename
      ... on RevokeApiKeySuccess { changed apiKey { ${apiKeyFields} } }
      ${selectErrors('ForbiddenError', 'NotFoundError')}
    }
  }
`);

export async function revokeApiKey(id: string): Promise<RevokeApiKeyResult> {
  return (await graphql(RevokeApiKeyMutation, { input: { id } })).revokeApiKey;
}
