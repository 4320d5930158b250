// Configurations: the native OpenClaw document (references only) and its secret bindings
// (envName → secret). Updates carry the generation the editor read; a stale one is a CONFLICT.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf, type VariablesOf } from './graphql';
import { ConfigurationInUseErrorFields, ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields, ValidationErrorFields } from './errors';
import { NamespaceFields } from './namespaces';
import { toPage, type PageArgs } from './paging';

/** A binding's `secret` is null when the caller may not read the bound secret. */
export const ConfigurationSummaryFields = gql(`
  fragment ConfigurationSummaryFields on Configuration {
    id name generation createdAt updatedAt
    secretBindings { envName delivery { type } source { kind namespaceId id } secret { id name } }
  }
`);

export const ConfigurationFields = gql(`
  fragment ConfigurationFields on Configuration { ...ConfigurationSummaryFields values namespace { id name status } }
`, [ConfigurationSummaryFields]);

export type ConfigurationSummary = ResultOf<typeof ConfigurationSummaryFields>;
export type SecretBinding = ConfigurationSummary['secretBindings'][number];
export type Configuration = ResultOf<typeof ConfigurationFields>;

export const configurationKeys = {
  all: ['configurations'] as const,
  byNamespace: (namespaceId: string) => [...configurationKeys.all, 'namespace', namespaceId] as const,
  detail: (id: string) => [...configurationKeys.all, 'detail', id] as const,
};

// Query: a page of a namespace's configurations -----------------------------------------------------

export const CONFIGURATIONS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: CONFIGURATIONS_PAGE_SIZE, after: null, namePrefix: null };

export const NamespaceConfigurationsQuery = gql(`
  query NamespaceConfigurations($id: ID!, $first: Int, $after: String, $namePrefix: String) {
    namespace(id: $id) {
      ...NamespaceFields
      configurations(first: $first, after: $after, namePrefix: $namePrefix) {
        edges { node { ...ConfigurationSummaryFields } } pageInfo { hasNextPage endCursor } totalCount
      }
    }
  }
`, [NamespaceFields, ConfigurationSummaryFields]);

export function namespaceConfigurationsQueryOptions(namespaceId: string, args: PageArgs = ALL) {
  return queryOptions({
    queryKey: [...configurationKeys.byNamespace(namespaceId), args] as const,
    queryFn: async ({ signal }) => {
      const data = await graphql(NamespaceConfigurationsQuery, { id: namespaceId, ...args }, signal);
      if (!data.namespace) return null;
      const { configurations, ...namespace } = data.namespace;
      const page = toPage(configurations);
      return { namespace, configurations: page.items, page };
    },
  });
}

// Query: one configuration -------------------------------------------------------------------------

export const ConfigurationQuery = gql(`
  query Configuration($id: ID!) {
    configuration(id: $id) { ...ConfigurationFields }
  }
`, [ConfigurationFields]);

export function configurationQueryOptions(id: string) {
  return queryOptions({
    queryKey: configurationKeys.detail(id),
    queryFn: async ({ signal }) => (await graphql(ConfigurationQuery, { id }, signal)).configuration,
  });
}

// Mutation: createConfiguration --------------------------------------------------------------------

export const CreateConfigurationMutation = gql(`
  mutation CreateConfiguration($input: CreateConfigurationInput!) {
    createConfiguration(input: $input) {
      __typename
      ... on CreateConfigurationSuccess { configuration { ...ConfigurationFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
    }
  }
`, [ConfigurationFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields]);

export type CreateConfigurationInput = VariablesOf<typeof CreateConfigurationMutation>['input'];
/** What the create and update inputs take for each binding. */
export type SecretBindingInput = NonNullable<CreateConfigurationInput['secretBindings']>[number];
export type CreateConfigurationResult = ResultOf<typeof CreateConfigurationMutation>['createConfiguration'];

export async function createConfiguration(input: CreateConfigurationInput): Promise<CreateConfigurationResult> {
  return (await graphql(CreateConfigurationMutation, { input })).createConfiguration;
}

// Mutation: updateConfiguration --------------------------------------------------------------------

export const UpdateConfigurationMutation = gql(`
  mutation UpdateConfiguration($input: UpdateConfigurationInput!) {
    updateConfiguration(input: $input) {
      __typename
      ... on UpdateConfigurationSuccess { configuration { ...ConfigurationFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
    }
  }
`, [ConfigurationFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields]);

export type UpdateConfigurationInput = VariablesOf<typeof UpdateConfigurationMutation>['input'];
export type UpdateConfigurationResult = ResultOf<typeof UpdateConfigurationMutation>['updateConfiguration'];

export async function updateConfiguration(input: UpdateConfigurationInput): Promise<UpdateConfigurationResult> {
  return (await graphql(UpdateConfigurationMutation, { input })).updateConfiguration;
}

/** Client-side check of the values textarea: the API wants a JSON object. */
export function parseValues(text: string): { ok: true; values: Record<string, unknown> } | { ok: false; message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, message: 'Values must be a JSON object, such as {}.' };
  }
  return { ok: true, values: parsed as Record<string, unknown> };
}

// Mutation: deleteConfiguration ---------------------------------------------------------------------

export const DeleteConfigurationMutation = gql(`
  mutation DeleteConfiguration($input: DeleteConfigurationInput!) {
    deleteConfiguration(input: $input) {
      __typename
      ... on DeleteConfigurationSuccess { deletedConfigurationId }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConfigurationInUseErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields, ConfigurationInUseErrorFields]);

export type DeleteConfigurationResult = ResultOf<typeof DeleteConfigurationMutation>['deleteConfiguration'];

/** Refused with ConfigurationInUseError while an agent selects it, naming the agents the caller may read. */
export async function deleteConfiguration(id: string): Promise<DeleteConfigurationResult> {
  return (await graphql(DeleteConfigurationMutation, { input: { id } })).deleteConfiguration;
}
