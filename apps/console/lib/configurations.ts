// Configurations: the native OpenClaw document (references only) and its secret bindings
// (envName → secret). Updates carry the generation the editor read; a stale one is a CONFLICT.
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
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
  fragment ConfigurationFields on Configuration { ...ConfigurationSummaryFields values namespace { id name status } viewerCan { update delete } }
`, [ConfigurationSummaryFields]);

export type ConfigurationSummary = ResultOf<typeof ConfigurationSummaryFields>;
export type SecretBinding = ConfigurationSummary['secretBindings'][number];
export type Configuration = ResultOf<typeof ConfigurationFields>;

export const configurationKeys = {
  all: ['configurations'] as const,
  byNamespace: (namespaceId: string) => [...configurationKeys.all, 'namespace', namespaceId] as const,
  detail: (id: string) => [...configurationKeys.all, 'detail', id] as const,
  generations: (id: string) => [...configurationKeys.detail(id), 'generations'] as const,
};

// Query: a page of a namespace's configurations -----------------------------------------------------

export const CONFIGURATIONS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: CONFIGURATIONS_PAGE_SIZE, after: null, namePrefix: null };

export const NamespaceConfigurationsQuery = gql(`
  query NamespaceConfigurations($id: ID!, $first: Int, $after: String, $namePrefix: String, $order: ListOrder = NEWEST_FIRST) {
    namespace(id: $id) {
      ...NamespaceFields
      configurations(first: $first, after: $after, namePrefix: $namePrefix, order: $order) {
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

// Query: a configuration's generation history (newest first), a page at a time ------------------------

export const GENERATIONS_PAGE_SIZE = 10;

/** A binding's `secret` is null when the caller may not read it, as on the configuration. */
export const ConfigurationGenerationsQuery = gql(`
  query ConfigurationGenerations($id: ID!, $first: Int, $after: String) {
    configuration(id: $id) {
      id
      generations(first: $first, after: $after) {
        totalCount
        edges { cursor node {
          generation values createdAt
          createdBy { id name kind }
          secretBindings { envName source { id } secret { id name } }
        } }
      }
    }
  }
`);

export type ConfigurationGeneration = NonNullable<ResultOf<typeof ConfigurationGenerationsQuery>['configuration']>['generations']['edges'][number]['node'];

/**
 * Each page asks for one generation more than it shows: the extra one is the previous generation
 * of the page's oldest, so every shown generation's changes can be computed; the next page starts
 * after the last one shown.
 */
export function configurationGenerationsQueryOptions(id: string, pageSize = GENERATIONS_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: [...configurationKeys.generations(id), pageSize] as const,
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam, signal }) => {
      const data = await graphql(ConfigurationGenerationsQuery, { id, first: pageSize + 1, after: pageParam }, signal);
      const connection = data.configuration?.generations;
      if (!connection) return { shown: [], previous: null, nextCursor: null, totalCount: 0 };
      const shown = connection.edges.slice(0, pageSize);
      return {
        shown: shown.map((edge) => edge.node),
        /** The generation before the page's oldest, when there is one. */
        previous: connection.edges[pageSize]?.node ?? null,
        nextCursor: connection.edges.length > pageSize ? (shown.at(-1)?.cursor ?? null) : null,
        totalCount: connection.totalCount,
      };
    },
    getNextPageParam: (page) => page.nextCursor,
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
