// Agents: each has its own service principal, which needs `operate` on the secrets the agent
// consumes (its configuration's bindings and its harnessAuth secret).
import { queryOptions } from '@tanstack/react-query';
import { AccessBindingFields } from './access';
import { gql, graphql, type ResultOf, type VariablesOf } from './graphql';
import { ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields, OutcomeUnknownErrorFields, ValidationErrorFields } from './errors';
import { NamespaceFields } from './namespaces';
import { toPage, type PageArgs } from './paging';

/** The harness providers and the env name each delivers the model credential under. */
export const HARNESS_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'openrouter', 'xai', 'deepseek'] as const;
export const SELF_CONFIGURE_ACTIONS = ['skills', 'config', 'workspaceFiles', 'envVars'] as const;

export const AgentSummaryFields = gql(`
  fragment AgentSummaryFields on Agent {
    id name servicePrincipalId status desiredState createdAt
    configuration { id name generation }
    harnessAuth { provider envName source { id } secret { id name } }
    selfConfigure { enabled allowedActions }
    viewerCan { update delete deploy }
  }
`);

export type AgentSummary = ResultOf<typeof AgentSummaryFields>;

/** A3: a grant the agent's service principal still needs, with the built-in role that carries it. */
export const MissingGrantFields = gql(`
  fragment MissingGrantFields on MissingGrant { subjectId action resourceKind resourceId namespaceId roleId }
`);

export type MissingGrant = ResultOf<typeof MissingGrantFields>;

export const agentKeys = {
  all: ['agents'] as const,
  byNamespace: (namespaceId: string) => [...agentKeys.all, 'namespace', namespaceId] as const,
  detail: (id: string) => [...agentKeys.all, 'detail', id] as const,
};

// Query: a page of a namespace's agents -------------------------------------------------------------

export const AGENTS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: AGENTS_PAGE_SIZE, after: null, namePrefix: null };

export const NamespaceAgentsQuery = gql(`
  query NamespaceAgents($id: ID!, $first: Int, $after: String, $namePrefix: String, $status: String, $order: ListOrder = NEWEST_FIRST) {
    namespace(id: $id) {
      ...NamespaceFields
      agents(first: $first, after: $after, namePrefix: $namePrefix, status: $status, order: $order) {
        edges { node { ...AgentSummaryFields } } pageInfo { hasNextPage endCursor } totalCount
      }
    }
  }
`, [NamespaceFields, AgentSummaryFields]);

/** A page of the namespace's agents; `status` (from the address: the namespaces list's health links) keeps only those. */
export function namespaceAgentsQueryOptions(namespaceId: string, args: PageArgs & { status?: string | null } = ALL) {
  return queryOptions({
    queryKey: [...agentKeys.byNamespace(namespaceId), args] as const,
    queryFn: async ({ signal }) => {
      const data = await graphql(NamespaceAgentsQuery, { id: namespaceId, ...args }, signal);
      if (!data.namespace) return null;
      const { agents, ...namespace } = data.namespace;
      const page = toPage(agents);
      return { namespace, agents: page.items, page };
    },
  });
}

// Query: one agent with its service principal's grants ------------------------------------------------

export const AgentQuery = gql(`
  query Agent($id: ID!) {
    agent(id: $id) {
      ...AgentSummaryFields
      namespace { id name status }
      accessBindings { ...AccessBindingFields }
      missingGrants { ...MissingGrantFields }
    }
  }
`, [AgentSummaryFields, AccessBindingFields, MissingGrantFields]);

export type Agent = NonNullable<ResultOf<typeof AgentQuery>['agent']>;

export function agentQueryOptions(id: string) {
  return queryOptions({
    queryKey: agentKeys.detail(id),
    queryFn: async ({ signal }) => (await graphql(AgentQuery, { id }, signal)).agent,
  });
}

// Mutation: createAgent -------------------------------------------------------------------------------

export const CreateAgentMutation = gql(`
  mutation CreateAgent($input: CreateAgentInput!) {
    createAgent(input: $input) {
      __typename
      ... on CreateAgentSuccess { servicePrincipalId agent { ...AgentSummaryFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
    }
  }
`, [AgentSummaryFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields]);

export type CreateAgentInput = VariablesOf<typeof CreateAgentMutation>['input'];
export type CreateAgentResult = ResultOf<typeof CreateAgentMutation>['createAgent'];

export async function createAgent(input: CreateAgentInput): Promise<CreateAgentResult> {
  return (await graphql(CreateAgentMutation, { input })).createAgent;
}

// Mutation: deleteAgent ------------------------------------------------------------------------------

export const DeleteAgentMutation = gql(`
  mutation DeleteAgent($input: DeleteAgentInput!) {
    deleteAgent(input: $input) {
      __typename
      ... on DeleteAgentSuccess { deletedAgentId removedObjects { kind name } }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...OutcomeUnknownErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, OutcomeUnknownErrorFields]);

export type DeleteAgentResult = ResultOf<typeof DeleteAgentMutation>['deleteAgent'];

/** W6: only a stopped agent (ConflictError AGENT_NOT_STOPPED otherwise); its revisions stay for audit. */
export async function deleteAgent(id: string): Promise<DeleteAgentResult> {
  return (await graphql(DeleteAgentMutation, { input: { id } })).deleteAgent;
}
