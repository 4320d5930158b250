// Configurations: the native OpenClaw document (references only) and its secret bindings
// (envName → secret). Updates carry the generation the editor read; a stale one is a CONFLICT.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';
import { selectErrors, type ConflictError, type ForbiddenError, type NotFoundError, type ValidationError } from './errors';
import type { Namespace } from './namespaces';
import { connectionFields, toPage, type Connection, type PageArgs } from './paging';
import type { SecretReference } from './secrets';

export type SecretBinding = {
  envName: string;
  delivery: { type: string };
  source: SecretReference;
  /** Null when the caller may not read the bound secret. */
  secret: { id: string; name: string } | null;
};

export type ConfigurationSummary = {
  id: string;
  name: string;
  generation: number;
  createdAt: string;
  updatedAt: string;
  secretBindings: SecretBinding[];
};

export type Configuration = ConfigurationSummary & {
  values: unknown;
  namespace: Pick<Namespace, 'id' | 'name' | 'status'> | null;
};

const bindingFields = 'envName delivery { type } source { kind namespaceId id } secret { id name }';
const summaryFields = `id name generation createdAt updatedAt secretBindings { ${bindingFields} }`;
const configurationFields = `${summaryFields} values namespace { id name status }`;

/** What the create and update inputs take for each binding. */
export type SecretBindingInput = { envName: string; source: { id: string } };

export const configurationKeys = {
  all: ['configurations'] as const,
  byNamespace: (namespaceId: string) => [...configurationKeys.all, 'namespace', namespaceId] as const,
  detail: (id: string) => [...configurationKeys.all, 'detail', id] as const,
};

// Query: a page of a namespace's configurations -----------------------------------------------------

export const CONFIGURATIONS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: CONFIGURATIONS_PAGE_SIZE, after: null, namePrefix: null };

type NamespaceConfigurationsResult = {
  namespace: (Namespace & { configurations: Connection<ConfigurationSummary> }) | null;
};

export const NamespaceConfigurationsQuery = gql<NamespaceConfigurationsResult, PageArgs & { id: string }>(`
  query NamespaceConfigurations($id: ID!, $first: Int, $after: String, $namePrefix: String) {
    namespace(id: $id) {
      id name status statusMessage createdAt
      configurations(first: $first, after: $after, namePrefix: $namePrefix) { ${connectionFields(summaryFields)} }
    }
  }
`);

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

export const ConfigurationQuery = gql<{ configuration: Configuration | null }, { id: string }>(`
  query Configuration($id: ID!) {
    configuration(id: $id) { ${configurationFields} }
  }
`);

export function configurationQueryOptions(id: string) {
  return queryOptions({
    queryKey: configurationKeys.detail(id),
    queryFn: async ({ signal }) => (await graphql(ConfigurationQuery, { id }, signal)).configuration,
  });
}

// Mutation: createConfiguration --------------------------------------------------------------------

export type CreateConfigurationResult =
  | { __typename: 'CreateConfigurationSuccess'; configuration: Configuration }
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError;

export type CreateConfigurationInput = {
  namespaceId: string;
  name: string;
  values: unknown;
  secretBindings: SecretBindingInput[];
};

export const CreateConfigurationMutation = gql<
  { createConfiguration: CreateConfigurationResult },
  { input: CreateConfigurationInput }
>(`
  mutation CreateConfiguration($input: CreateConfigurationInput!) {
    createConfiguration(input: $input) {
      __typename
      ... on CreateConfigurationSuccess { configuration { ${configurationFields} } }
      ${selectErrors('ValidationError', 'NotFoundError', 'ForbiddenError', 'ConflictError')}
    }
  }
`);

export async function createConfiguration(input: CreateConfigurationInput): Promise<CreateConfigurationResult> {
  return (await graphql(CreateConfigurationMutation, { input })).createConfiguration;
}

// Mutation: updateConfiguration --------------------------------------------------------------------

export type UpdateConfigurationResult =
  | { __typename: 'UpdateConfigurationSuccess'; configuration: Configuration }
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError;

export type UpdateConfigurationInput = {
  id: string;
  expectedGeneration: number;
  values?: unknown;
  secretBindings?: SecretBindingInput[];
};

export const UpdateConfigurationMutation = gql<
  { updateConfiguration: UpdateConfigurationResult },
  { input: UpdateConfigurationInput }
>(`
  mutation UpdateConfiguration($input: UpdateConfigurationInput!) {
    updateConfiguration(input: $input) {
      __typename
      ... on UpdateConfigurationSuccess { configuration { ${configurationFields} } }
      ${selectErrors('ValidationError', 'NotFoundError', 'ForbiddenError', 'ConflictError')}
    }
  }
`);

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
