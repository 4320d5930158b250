// Human principals and their API keys: listed for grant subjects and managed on /users.
import { queryOptions } from '@tanstack/react-query';
import { ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields, ValidationErrorFields } from './errors';
import { gql, graphql, type ResultOf } from './graphql';
import { toPage, type PageArgs } from './paging';

export const UserFields = gql(`fragment UserFields on Principal { id kind name disabled createdAt }`);

export type User = ResultOf<typeof UserFields>;

export const USERS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: USERS_PAGE_SIZE, after: null, namePrefix: null };

export const UsersQuery = gql(`
  query Users($first: Int, $after: String, $namePrefix: String) {
    users(first: $first, after: $after, namePrefix: $namePrefix) {
      edges { node { ...UserFields } } pageInfo { hasNextPage endCursor } totalCount
    }
  }
`, [UserFields]);

export const userKeys = {
  all: ['users'] as const,
  list: (args: PageArgs = ALL) => [...userKeys.all, 'list', args] as const,
  bootstrap: () => [...userKeys.all, 'bootstrap'] as const,
  apiKeys: (principalId: string) => [...userKeys.all, 'apiKeys', principalId] as const,
};

export function usersQueryOptions(args: PageArgs = ALL) {
  return queryOptions({
    queryKey: userKeys.list(args),
    queryFn: async ({ signal }) => toPage((await graphql(UsersQuery, args, signal)).users),
    staleTime: 60_000,
  });
}

// Query: the bootstrap service principal (null unless you may read principals) ----------------------

export const BootstrapPrincipalQuery = gql(`
  query BootstrapPrincipal {
    bootstrapPrincipal { ...UserFields }
  }
`, [UserFields]);

export function bootstrapPrincipalQueryOptions() {
  return queryOptions({
    queryKey: userKeys.bootstrap(),
    queryFn: async ({ signal }) => (await graphql(BootstrapPrincipalQuery, {}, signal)).bootstrapPrincipal,
    staleTime: 60_000,
  });
}

// Query: apiKeys -----------------------------------------------------------------------------------

export const ApiKeyFields = gql(`fragment ApiKeyFields on ApiKey { id principalId prefix createdAt lastUsedAt revokedAt }`);

export type ApiKey = ResultOf<typeof ApiKeyFields>;

export const ApiKeysQuery = gql(`
  query ApiKeys($principalId: ID!) {
    apiKeys(principalId: $principalId) { ...ApiKeyFields }
  }
`, [ApiKeyFields]);

export function apiKeysQueryOptions(principalId: string) {
  return queryOptions({
    queryKey: userKeys.apiKeys(principalId),
    queryFn: async ({ signal }) => (await graphql(ApiKeysQuery, { principalId }, signal)).apiKeys,
  });
}

// Mutations ----------------------------------------------------------------------------------------

export const CreateUserMutation = gql(`
  mutation CreateUser($input: CreateUserInput!) {
    createUser(input: $input) {
      __typename
      ... on CreateUserSuccess { apiKey principal { ...UserFields } storedKey { ...ApiKeyFields } }
      ...ForbiddenErrorFields
      ...ValidationErrorFields
      ...ConflictErrorFields
    }
  }
`, [UserFields, ApiKeyFields, ForbiddenErrorFields, ValidationErrorFields, ConflictErrorFields]);

export type CreateUserResult = ResultOf<typeof CreateUserMutation>['createUser'];

export async function createUser(name: string): Promise<CreateUserResult> {
  return (await graphql(CreateUserMutation, { input: { name } })).createUser;
}

export const DisableUserMutation = gql(`
  mutation DisableUser($input: DisableUserInput!) {
    disableUser(input: $input) {
      __typename
      ... on DisableUserSuccess { changed principal { ...UserFields } }
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`, [UserFields, ForbiddenErrorFields, NotFoundErrorFields]);

export type DisableUserResult = ResultOf<typeof DisableUserMutation>['disableUser'];

export async function disableUser(id: string): Promise<DisableUserResult> {
  return (await graphql(DisableUserMutation, { input: { id } })).disableUser;
}

export const CreateApiKeyMutation = gql(`
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      __typename
      ... on CreateApiKeySuccess { apiKey storedKey { ...ApiKeyFields } }
      ...ConflictErrorFields
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`, [ApiKeyFields, ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields]);

export type CreateApiKeyResult = ResultOf<typeof CreateApiKeyMutation>['createApiKey'];

export async function createApiKey(principalId: string): Promise<CreateApiKeyResult> {
  return (await graphql(CreateApiKeyMutation, { input: { principalId } })).createApiKey;
}

export const RevokeApiKeyMutation = gql(`
  mutation RevokeApiKey($input: RevokeApiKeyInput!) {
    revokeApiKey(input: $input) {
      __typename
      ... on RevokeApiKeySuccess { changed apiKey { ...ApiKeyFields } }
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`, [ApiKeyFields, ForbiddenErrorFields, NotFoundErrorFields]);

export type RevokeApiKeyResult = ResultOf<typeof RevokeApiKeyMutation>['revokeApiKey'];

export async function revokeApiKey(id: string): Promise<RevokeApiKeyResult> {
  return (await graphql(RevokeApiKeyMutation, { input: { id } })).revokeApiKey;
}
