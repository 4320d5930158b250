// Agents: each has its own service principal, which needs `operate` on the secrets the agent
// consumes (its configuration's bindings and its harnessAuth secret).
import { queryOptions } from '@tanstack/react-query';
import { accessBindingFields, type AccessBinding } from './access';
import { gql, graphql } from './graphql';
import { selectErrors, type ConflictError, type ForbiddenError, type NotFoundError, type ValidationError } from './errors';
import type { Namespace } from './namespaces';
import { connectionFields, toPage, type Connection, type PageArgs } from './paging';

/** The harness providers and the env name each delivers the model credential under. */
export const HARNESS_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'openrouter', 'xai', 'deepseek'] as const;
export const SELF_CONFIGURE_ACTIONS = ['skills', 'config', 'workspaceFiles', 'envVars'] as const;

export type AgentSummary = {
  id: string;
  name: string;
  servicePrincipalId: string;
  status: string;
  desiredState: string;
  createdAt: string;
  configuration: { id: string; name: string; generation: number } | null;
  harnessAuth: { provider: string; envName: string; source: { id: string }; secret: { id: string; name: string } | null } | null;
  selfConfigure: { enabled: boolean; allowedActions: string[] };
};

/** A3: a grant the agent's service principal still needs, with the built-in role that carries it. */
export type MissingGrant = {
  subjectId: string;
  action: string;
  resourceKind: string;
  resourceId: string;
  namespaceId: string | null;
  roleId: string;
};

export type Agent = AgentSummary & {
  namespace: Pick<Namespace, 'id' | 'name' | 'status'> | null;
  accessBindings: AccessBinding[];
  missingGrants: MissingGrant[];
};

const summaryFields = `id name servicePrincipalId status desiredState createdAt
  configuration { id name generation }
  harnessAuth { provider envName source { id } secret { id name } }
  selfConfigure { enabled allowedActions }`;

export const agentKeys = {
  all: ['agents'] as const,
  byNamespace: (namespaceId: string) => [...agentKeys.all, 'namespace', namespaceId] as const,
  detail: (id: string) => [...agentKeys.all, 'detail', id] as const,
};

// Query: a page of a namespace's agents -------------------------------------------------------------

export const AGENTS_PAGE_SIZE = 100;
const ALL: PageArgs = { first: AGENTS_PAGE_SIZE, after: null, namePrefix: null };

type NamespaceAgentsResult = {
  namespace: (Namespace & { agents: Connection<AgentSummary> }) | null;
};

export const NamespaceAgentsQuery = gql<NamespaceAgentsResult, PageArgs & { id: string }>(`
  query NamespaceAgents($id: ID!, $first: Int, $after: String, $namePrefix: String) {
    namespace(id: $id) {
      id name status statusMessage createdAt
      agents(first: $first, after: $after, namePrefix: $namePrefix) { ${connectionFields(summaryFields)} }
    }
  }
`);

export function namespaceAgentsQueryOptions(namespaceId: string, args: PageArgs = ALL) {
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

export const AgentQuery = gql<{ agent: Agent | null }, { id: string }>(`
  query Agent($id: ID!) {
    agent(id: $id) {
      ${summaryFields}
      namespace { id name status }
      accessBindings { ${accessBindingFields} }
      missingGrants { subjectId action resourceKind resourceId namespaceId roleId }
    }
  }
`);

export function agentQueryOptions(id: string) {
  return queryOptions({
    queryKey: agentKeys.detail(id),
    queryFn: async ({ signal }) => (await graphql(AgentQuery, { id }, signal)).agent,
  });
}

// Mutation: createAgent -------------------------------------------------------------------------------

export type CreateAgentInput = {
  namespaceId: string;
  name: string;
  configurationId?: string;
  harnessAuth?: { provider: string; source: { id: string } };
  selfConfigure?: { enabled: boolean; allowedActions: string[] };
};

export type CreateAgentResult =
  | { __typename: 'CreateAgentSuccess'; servicePrincipalId: string; agent: AgentSummary }
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError;

export const CreateAgentMutation = gql<{ createAgent: CreateAgentResult }, { input: CreateAgentInput }>(`
  mutation CreateAgent($input: CreateAgentInput!) {
    createAgent(input: $input) {
      __typename
      ... on CreateAgentSuccess { servicePrincipalId agent { ${summaryFields} } }
      ${selectErrors('ValidationError', 'NotFoundError', 'ForbiddenError', 'ConflictError')}
    }
  }
`);

export async function createAgent(input: CreateAgentInput): Promise<CreateAgentResult> {
  return (await graphql(CreateAgentMutation, { input })).createAgent;
}
