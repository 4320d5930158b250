// Secret metadata only: no document here selects a value (there is no such field) or the backend
// locator, which the console has no use for.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import {
  ConflictErrorFields,
  ForbiddenErrorFields,
  NamespaceNotReadyErrorFields,
  NotFoundErrorFields,
  OutcomeUnknownErrorFields,
  SecretInUseErrorFields,
  ValidationErrorFields,
} from './errors';
import { NamespaceFields, pollWhileProvisioning } from './namespaces';
import { toPage, type PageArgs } from './paging';

export const SecretFields = gql(`fragment SecretFields on Secret { id name version reference { kind namespaceId id } createdAt updatedAt }`);

export type Secret = ResultOf<typeof SecretFields>;
export type SecretReference = Secret['reference'];

// Query: one namespace with a page of its secrets --------------------------------------------------

/** Screens that name secrets from one list (the access tab's grants on single secrets, an agent's grants) read the newest
 * hundred (the lists' default order); bindings, harness auth and the grant form choose through SecretPicker, which asks by prefix instead. */
export const SECRETS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: SECRETS_PAGE_SIZE, after: null, namePrefix: null };

export const NamespaceSecretsQuery = gql(`
  query NamespaceSecrets($id: ID!, $first: Int, $after: String, $namePrefix: String, $stale: Boolean, $used: Boolean, $order: ListOrder = NEWEST_FIRST) {
    namespace(id: $id) {
      ...NamespaceFields
      secrets(first: $first, after: $after, namePrefix: $namePrefix, stale: $stale, used: $used, order: $order) {
        edges { node { ...SecretFields consumers { total } staleConsumers { total } viewerCan { update delete } } } pageInfo { hasNextPage endCursor } totalCount
      }
    }
  }
`, [NamespaceFields, SecretFields]);

/** A row of the secrets list: how many consumers it has (the references a delete would refuse over),
 * and how many running revisions hold an older version (W7). */
export type SecretListItem = NonNullable<ResultOf<typeof NamespaceSecretsQuery>['namespace']>['secrets']['edges'][number]['node'];

export const secretKeys = {
  all: ['secrets'] as const,
  byNamespace: (namespaceId: string) => [...secretKeys.all, 'namespace', namespaceId] as const,
  page: (namespaceId: string, args: SecretListArgs) => [...secretKeys.byNamespace(namespaceId), args] as const,
};

/** A page's arguments and the filters from the address: `stale` (the namespaces list's health links) and `used`; each true or false keeps those only. */
export type SecretListArgs = PageArgs & { stale?: boolean; used?: boolean };

/** A page of the namespace's secrets. */
export function namespaceSecretsQueryOptions(namespaceId: string, args: SecretListArgs = ALL) {
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

// Query: the secret picker's options ---------------------------------------------------------------

/** The picker asks for one page by name prefix: it works the same with five secrets or fifty thousand. */
export const SECRET_OPTIONS_PAGE_SIZE = 20;

export const SecretOptionsQuery = gql(`
  query SecretOptions($id: ID!, $first: Int, $namePrefix: String) {
    namespace(id: $id) {
      id
      secrets(first: $first, namePrefix: $namePrefix) {
        edges { node { id name version } } pageInfo { hasNextPage endCursor } totalCount
      }
    }
  }
`);

export type SecretOption = NonNullable<ResultOf<typeof SecretOptionsQuery>['namespace']>['secrets']['edges'][number]['node'];

/** Secret names are lowercase (S1), so a search for "Mod" means "mod". */
export function secretSearchPrefix(text: string): string | null {
  return text.trim().toLowerCase() || null;
}

export function secretOptionsQueryOptions(namespaceId: string, namePrefix: string | null) {
  // Under byNamespace: creating, rotating or deleting a secret refreshes the picker's pages too.
  return queryOptions({
    queryKey: [...secretKeys.byNamespace(namespaceId), 'options', namePrefix] as const,
    queryFn: async ({ signal }) => {
      const data = await graphql(SecretOptionsQuery, { id: namespaceId, first: SECRET_OPTIONS_PAGE_SIZE, namePrefix }, signal);
      return data.namespace ? toPage(data.namespace.secrets) : null;
    },
    staleTime: 10_000,
  });
}

// Mutation: createSecret ---------------------------------------------------------------------------

export const CreateSecretMutation = gql(`
  mutation CreateSecret($input: CreateSecretInput!) {
    createSecret(input: $input) {
      __typename
      ... on CreateSecretSuccess { secret { ...SecretFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...NamespaceNotReadyErrorFields
      ...OutcomeUnknownErrorFields
    }
  }
`, [SecretFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, NamespaceNotReadyErrorFields, OutcomeUnknownErrorFields]);

export type CreateSecretResult = ResultOf<typeof CreateSecretMutation>['createSecret'];

export async function createSecret(input: { namespaceId: string; name: string; value: string }) {
  const data = await graphql(CreateSecretMutation, { input });
  return data.createSecret;
}

// Mutation: updateSecret (rotate) ------------------------------------------------------------------

export const UpdateSecretMutation = gql(`
  mutation UpdateSecret($input: UpdateSecretInput!) {
    updateSecret(input: $input) {
      __typename
      ... on UpdateSecretSuccess {
        secret { ...SecretFields }
        delivery { stored delivered message staleRevisionIds rollout { id state targetVersion rotations } }
      }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...NamespaceNotReadyErrorFields
      ...OutcomeUnknownErrorFields
    }
  }
`, [SecretFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, NamespaceNotReadyErrorFields, OutcomeUnknownErrorFields]);

export type UpdateSecretResult = ResultOf<typeof UpdateSecretMutation>['updateSecret'];
export type SecretDelivery = Extract<UpdateSecretResult, { __typename: 'UpdateSecretSuccess' }>['delivery'];

export async function updateSecret(input: { id: string; value: string }) {
  const data = await graphql(UpdateSecretMutation, { input });
  return data.updateSecret;
}

// Mutation: deleteSecret ---------------------------------------------------------------------------

export const DeleteSecretMutation = gql(`
  mutation DeleteSecret($input: DeleteSecretInput!) {
    deleteSecret(input: $input) {
      __typename
      ... on DeleteSecretSuccess { deletedSecretId }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...SecretInUseErrorFields
      ...OutcomeUnknownErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, SecretInUseErrorFields, OutcomeUnknownErrorFields]);

export type DeleteSecretResult = ResultOf<typeof DeleteSecretMutation>['deleteSecret'];

export async function deleteSecret(id: string) {
  const data = await graphql(DeleteSecretMutation, { input: { id } });
  return data.deleteSecret;
}
