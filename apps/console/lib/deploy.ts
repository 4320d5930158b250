// Deploy (D1–D6), stop (W6), revisions and their frozen references (D4), and a secret's stale
// consumers with "redeploy consumers" (W7). Revisions hold references only: no document here
// selects a value (there is no such field) or a backend locator.
import { queryOptions } from '@tanstack/react-query';
import type { MissingGrant } from './agents';
import { gql, graphql } from './graphql';
import {
  selectErrors,
  type ConflictError,
  type ForbiddenError,
  type NamespaceNotReadyError,
  type NotFoundError,
  type OutcomeUnknownError,
  type ValidationError,
} from './errors';
import { connectionFields, toPage, type Connection } from './paging';

export type RevisionState = 'QUEUED' | 'PREPARING' | 'PREPARED' | 'ACTIVATING' | 'ACTIVE' | 'FAILED' | 'SUPERSEDED' | 'STOPPED';

/** The order a deploy moves through; FAILED can end any step, SUPERSEDED and STOPPED come later. */
export const DEPLOY_STEPS: RevisionState[] = ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING', 'ACTIVE'];

/** Still on its way: the worker has not finished with it. */
export function isInFlight(state: RevisionState): boolean {
  return state === 'QUEUED' || state === 'PREPARING' || state === 'PREPARED' || state === 'ACTIVATING';
}

export const deployKeys = {
  all: ['deploy'] as const,
  explain: (agentId: string) => [...deployKeys.all, 'explain', agentId] as const,
  revisions: (agentId: string) => [...deployKeys.all, 'revisions', agentId] as const,
  stale: (secretId: string) => [...deployKeys.all, 'stale', secretId] as const,
};

const POLL_MS = 1000;

// Query: explainDeploy (D6) -----------------------------------------------------------------------

export type DeployCheck = {
  id: string;
  rule: string;
  passed: boolean;
  message: string;
  fix: string | null;
  secretId: string | null;
  missingGrant: MissingGrant | null;
};

export type ExplainDeployResult =
  | { __typename: 'DeployExplanation'; agentId: string; allowed: boolean; checks: DeployCheck[] }
  | NotFoundError;

export const ExplainDeployQuery = gql<{ explainDeploy: ExplainDeployResult }, { agentId: string }>(`
  query ExplainDeploy($agentId: ID!) {
    explainDeploy(agentId: $agentId) {
      __typename
      ... on DeployExplanation {
        agentId allowed
        checks {
          id rule passed message fix secretId
          missingGrant { subjectId action resourceKind resourceId namespaceId roleId }
        }
      }
      ${selectErrors('NotFoundError')}
    }
  }
`);

export function explainDeployQueryOptions(agentId: string) {
  return queryOptions({
    queryKey: deployKeys.explain(agentId),
    queryFn: async ({ signal }) => (await graphql(ExplainDeployQuery, { agentId }, signal)).explainDeploy,
  });
}

// Query: an agent's revisions, newest first ---------------------------------------------------------

export type RevisionSecret = {
  envName: string;
  purpose: string;
  version: number;
  source: { kind: string; namespaceId: string; id: string };
  secret: { id: string; name: string; version: number } | null;
};

export type AgentRevision = {
  id: string;
  number: number;
  state: RevisionState;
  failure: { code: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
  createdById: string;
  configurationId: string | null;
  configurationGeneration: number | null;
  secretDriverId: string;
  servicePrincipalId: string;
  secrets: RevisionSecret[];
  /** The native document as frozen: references only. */
  values: unknown;
};

const revisionFields = `id number state failure { code message } createdAt updatedAt createdById
  configurationId configurationGeneration secretDriverId servicePrincipalId values
  secrets { envName purpose version source { kind namespaceId id } secret { id name version } }`;

export const REVISIONS_PAGE_SIZE = 10;

type AgentRevisionsResult = {
  agent: {
    id: string;
    status: string;
    desiredState: string;
    activeRevisionId: string | null;
    revisions: Connection<AgentRevision>;
  } | null;
};

export const AgentRevisionsQuery = gql<AgentRevisionsResult, { id: string; first: number; after: string | null }>(`
  query AgentRevisions($id: ID!, $first: Int, $after: String) {
    agent(id: $id) {
      id status desiredState activeRevisionId
      revisions(first: $first, after: $after) { ${connectionFields(revisionFields)} }
    }
  }
`);

/** Polls once a second while a revision on this page is on its way, or while `follow` (a revision
 * just queued) has not reached a terminal state yet: that is the deploy's progress. */
export function agentRevisionsQueryOptions(agentId: string, after: string | null = null, follow: string | null = null) {
  return queryOptions({
    queryKey: [...deployKeys.revisions(agentId), after] as const,
    queryFn: async ({ signal }) => {
      const data = await graphql(AgentRevisionsQuery, { id: agentId, first: REVISIONS_PAGE_SIZE, after }, signal);
      if (!data.agent) return null;
      const { revisions, ...agent } = data.agent;
      return { agent, page: toPage(revisions) };
    },
    refetchInterval: (query) => {
      const items = query.state.data?.page.items;
      if (!items) return false;
      if (items.some((revision) => isInFlight(revision.state))) return POLL_MS;
      if (follow && !items.some((revision) => revision.id === follow)) return POLL_MS;
      return false;
    },
  });
}

// Mutation: deployAgent (D1–D4) -------------------------------------------------------------------

export type DeployAgentResult =
  | { __typename: 'DeployAgentSuccess'; revision: { id: string; number: number; state: RevisionState } }
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError
  | NamespaceNotReadyError;

export const DeployAgentMutation = gql<{ deployAgent: DeployAgentResult }, { input: { agentId: string } }>(`
  mutation DeployAgent($input: DeployAgentInput!) {
    deployAgent(input: $input) {
      __typename
      ... on DeployAgentSuccess { revision { id number state } }
      ${selectErrors('ValidationError', 'NotFoundError', 'ForbiddenError', 'ConflictError', 'NamespaceNotReadyError')}
    }
  }
`);

export async function deployAgent(agentId: string): Promise<DeployAgentResult> {
  return (await graphql(DeployAgentMutation, { input: { agentId } })).deployAgent;
}

// Mutation: stopAgent (W6) ----------------------------------------------------------------------------

export type StopAgentResult =
  | { __typename: 'StopAgentSuccess'; gatewayScaledToZero: boolean; stoppedRevisionIds: string[]; agent: { id: string; desiredState: string; status: string } }
  | NotFoundError
  | ForbiddenError
  | OutcomeUnknownError;

export const StopAgentMutation = gql<{ stopAgent: StopAgentResult }, { input: { agentId: string } }>(`
  mutation StopAgent($input: StopAgentInput!) {
    stopAgent(input: $input) {
      __typename
      ... on StopAgentSuccess { gatewayScaledToZero stoppedRevisionIds agent { id desiredState status } }
      ${selectErrors('NotFoundError', 'ForbiddenError', 'OutcomeUnknownError')}
    }
  }
`);

export async function stopAgent(agentId: string): Promise<StopAgentResult> {
  return (await graphql(StopAgentMutation, { input: { agentId } })).stopAgent;
}

// Query: a secret's stale consumers (W7) ---------------------------------------------------------------

export type StaleConsumer = {
  agentId: string;
  agentName: string | null;
  envName: string;
  purpose: string;
  currentVersion: number;
  deliveredVersion: number;
  revisionId: string;
  revisionNumber: number;
  redeploy: { revisionId: string; number: number; state: RevisionState; failureCode: string | null } | null;
};

export type StaleConsumers = { total: number; hiddenCount: number; items: StaleConsumer[] };

const staleFields = `total hiddenCount items {
  agentId agentName envName purpose currentVersion deliveredVersion revisionId revisionNumber
  redeploy { revisionId number state failureCode }
}`;

export type SecretWithStaleConsumers = { id: string; name: string; version: number; staleConsumers: StaleConsumers };

export const SecretStaleConsumersQuery = gql<{ secret: SecretWithStaleConsumers | null }, { id: string }>(`
  query SecretStaleConsumers($id: ID!) {
    secret(id: $id) { id name version staleConsumers { ${staleFields} } }
  }
`);

/** Polled while `polling`: a redeploy's progress is each item's redeploy, and the list empties. */
export function secretStaleConsumersQueryOptions(secretId: string, polling: boolean) {
  return queryOptions({
    queryKey: deployKeys.stale(secretId),
    queryFn: async ({ signal }) => (await graphql(SecretStaleConsumersQuery, { id: secretId }, signal)).secret,
    refetchInterval: polling ? POLL_MS : false,
  });
}

// Mutation: redeployConsumers (W7) ---------------------------------------------------------------------

export type ConsumerRedeploy = {
  agentId: string;
  agentName: string | null;
  outcome: 'STARTED' | 'IN_PROGRESS' | 'REFUSED';
  errorCode: string | null;
  errorMessage: string | null;
  inProgressRevisionId: string | null;
  revision: { id: string; number: number; state: RevisionState } | null;
};

export type RedeployConsumersResult =
  | { __typename: 'RedeployConsumersSuccess'; redeploys: ConsumerRedeploy[]; secret: { id: string; staleConsumers: StaleConsumers } }
  | NotFoundError
  | ForbiddenError;

export const RedeployConsumersMutation = gql<{ redeployConsumers: RedeployConsumersResult }, { input: { secretId: string } }>(`
  mutation RedeployConsumers($input: RedeployConsumersInput!) {
    redeployConsumers(input: $input) {
      __typename
      ... on RedeployConsumersSuccess {
        redeploys { agentId agentName outcome errorCode errorMessage inProgressRevisionId revision { id number state } }
        secret { id staleConsumers { ${staleFields} } }
      }
      ${selectErrors('NotFoundError', 'ForbiddenError')}
    }
  }
`);

export async function redeployConsumers(secretId: string): Promise<RedeployConsumersResult> {
  return (await graphql(RedeployConsumersMutation, { input: { secretId } })).redeployConsumers;
}
