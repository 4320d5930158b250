// Human principals and their API keys: listed for grant subjects and managed on /users.
import { queryOptions } from '@tanstack/react-query';
import { selectErrors, type ConflictError, type ForbiddenError, type NotFoundError, type ValidationError } from './errors';
import { gql, graphql } from './graphql';
import { connectionFields, toPage, type Connection, type PageArgs } from './paging';
import type { Principal } from './viewer';

export type User = Principal & { disabled: boolean; createdAt: string };

export const USERS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: USERS_PAGE_SIZE, after: null, namePrefix: null };
const userFields = 'id kind name disabled createdAt';

export const UsersQuery = gql<{ users: Connection<User> }, PageArgs>(`
  query Users($first: Int, $after: String, $namePrefix: String) {
    users(first: $first, after: $after, namePrefix: $namePrefix) { ${connectionFields(userFields)} }
  }
`);

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

export const BootstrapPrincipalQuery = gql<{ bootstrapPrincipal: User | null }>(`
  query BootstrapPrincipal {
    bootstrapPrincipal { ${userFields} }
  }
`);

export function bootstrapPrincipalQueryOptions() {
  return queryOptions({
    queryKey: userKeys.bootstrap(),
    queryFn: async ({ signal }) => (await graphql(BootstrapPrincipalQuery, {}, signal)).bootstrapPrincipal,
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
  | ValidationError
  | ConflictError;

export const CreateUserMutation = gql<{ createUser: CreateUserResult }, { input: { name: string } }>(`
  mutation CreateUser($input: CreateUserInput!) {
    createUser(input: $input) {
      __typename
      ... on CreateUserSuccess { apiKey principal { id kind name disabled createdAt } storedKey { ${apiKeyFields} } }
      ${selectErrors('ForbiddenError', 'ValidationError', 'ConflictError')}
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
