// Deploy (D1–D6), stop (W6), revisions and their frozen references (D4), and a secret's stale
// consumers with "redeploy consumers" (W7). Revisions hold references only: no document here
// selects a value (there is no such field) or a backend locator.
import { queryOptions } from '@tanstack/react-query';
import { MissingGrantFields } from './agents';
import { gql, graphql, type ResultOf } from './graphql';
import {
  ConflictErrorFields,
  ForbiddenErrorFields,
  NamespaceNotReadyErrorFields,
  NotFoundErrorFields,
  OutcomeUnknownErrorFields,
  ValidationErrorFields,
} from './errors';
import { toPage } from './paging';

/** The revision a deploy created or a stop touched, as the mutations and the redeploy list show it. */
export const RevisionStepFields = gql(`fragment RevisionStepFields on AgentRevision { id number state }`);

export type RevisionState = ResultOf<typeof RevisionStepFields>['state'];

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

export const ExplainDeployQuery = gql(`
  query ExplainDeploy($agentId: ID!) {
    explainDeploy(agentId: $agentId) {
      __typename
      ... on DeployExplanation {
        agentId allowed
        checks {
          id rule passed message fix secretId
          missingGrant { ...MissingGrantFields }
        }
        takeovers { kind name path action setAt setBy { manager operation } description }
      }
      ...NotFoundErrorFields
    }
  }
`, [MissingGrantFields, NotFoundErrorFields]);

export type ExplainDeployResult = ResultOf<typeof ExplainDeployQuery>['explainDeploy'];
type DeployExplanation = Extract<ExplainDeployResult, { __typename: 'DeployExplanation' }>;
export type DeployCheck = DeployExplanation['checks'][number];
/** RC3: an item the agent set itself (SelfConfig) that the next deploy would take. */
export type DeployTakeover = NonNullable<DeployExplanation['takeovers']>[number];

export function explainDeployQueryOptions(agentId: string) {
  return queryOptions({
    queryKey: deployKeys.explain(agentId),
    queryFn: async ({ signal }) => (await graphql(ExplainDeployQuery, { agentId }, signal)).explainDeploy,
  });
}

// Query: an agent's revisions, newest first ---------------------------------------------------------

/** `values` is the native document as frozen: references only. */
export const AgentRevisionFields = gql(`
  fragment AgentRevisionFields on AgentRevision {
    id number state failure { code message } createdAt updatedAt createdById
    configurationId configurationGeneration secretDriverId servicePrincipalId values instanceGeneration
    secrets { envName purpose version source { kind namespaceId id } secret { id name version } }
    takeovers { kind name action setAt requestId }
  }
`);

export type AgentRevision = ResultOf<typeof AgentRevisionFields>;
export type RevisionSecret = AgentRevision['secrets'][number];
export type RevisionTakeover = AgentRevision['takeovers'][number];

/** How a taken item reads, as the API's own descriptions name it: `config.tools.x`, `env LOG_LEVEL`, `workspace file AGENTS.md`. */
export function takeoverItem(item: { kind: string; name: string }): string {
  switch (item.kind) {
    case 'config':
      return `config.${item.name}`;
    case 'envVar':
      return `env ${item.name}`;
    case 'workspaceFile':
      return `workspace file ${item.name}`;
    default:
      return `${item.kind} ${item.name}`;
  }
}

export const REVISIONS_PAGE_SIZE = 10;

export const AgentRevisionsQuery = gql(`
  query AgentRevisions($id: ID!, $first: Int, $after: String) {
    agent(id: $id) {
      id status desiredState activeRevisionId
      revisions(first: $first, after: $after) {
        edges { node { ...AgentRevisionFields } } pageInfo { hasNextPage endCursor } totalCount
      }
    }
  }
`, [AgentRevisionFields]);

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

export const DeployAgentMutation = gql(`
  mutation DeployAgent($input: DeployAgentInput!) {
    deployAgent(input: $input) {
      __typename
      ... on DeployAgentSuccess { revision { ...RevisionStepFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...NamespaceNotReadyErrorFields
    }
  }
`, [RevisionStepFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, NamespaceNotReadyErrorFields]);

export type DeployAgentResult = ResultOf<typeof DeployAgentMutation>['deployAgent'];

export async function deployAgent(agentId: string): Promise<DeployAgentResult> {
  return (await graphql(DeployAgentMutation, { input: { agentId } })).deployAgent;
}

// Mutation: stopAgent (W6) ----------------------------------------------------------------------------

export const StopAgentMutation = gql(`
  mutation StopAgent($input: StopAgentInput!) {
    stopAgent(input: $input) {
      __typename
      ... on StopAgentSuccess { gatewayScaledToZero stoppedRevisionIds agent { id desiredState status } }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...OutcomeUnknownErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields, OutcomeUnknownErrorFields]);

export type StopAgentResult = ResultOf<typeof StopAgentMutation>['stopAgent'];

export async function stopAgent(agentId: string): Promise<StopAgentResult> {
  return (await graphql(StopAgentMutation, { input: { agentId } })).stopAgent;
}

// Query: a revision's diff against another (V7) ----------------------------------------------------

export const RevisionDiffQuery = gql(`
  query RevisionDiff($id: ID!, $against: ID!) {
    node(id: $id) {
      ... on AgentRevision {
        id number
        diff(against: $against) {
          __typename
          ... on RevisionDiff {
            configurationChanged
            from { id number configurationGeneration }
            to { id number configurationGeneration }
            values { path change before after }
            bindings { envName purpose change before { secretId version } after { secretId version } }
            versions { envName purpose secretId fromVersion toVersion }
            selfConfigRequests { id }
          }
          ...ValidationErrorFields
          ...NotFoundErrorFields
        }
      }
    }
  }
`, [ValidationErrorFields, NotFoundErrorFields]);

type RevisionDiffNode = Extract<NonNullable<ResultOf<typeof RevisionDiffQuery>['node']>, { diff: unknown }>;
export type RevisionDiffResult = RevisionDiffNode['diff'];
export type RevisionDiff = Extract<RevisionDiffResult, { __typename: 'RevisionDiff' }>;

/** What changed from revision `against` to revision `id` (V7): read once, on request. */
export function revisionDiffQueryOptions(id: string, against: string) {
  return queryOptions({
    queryKey: [...deployKeys.all, 'diff', id, against] as const,
    queryFn: async ({ signal }) => {
      const data = await graphql(RevisionDiffQuery, { id, against }, signal);
      const node = data.node;
      return node && 'diff' in node ? node.diff : null;
    },
    staleTime: Infinity,
  });
}

// Mutation: rollbackAgent (V7) ---------------------------------------------------------------------------

export const RollbackAgentMutation = gql(`
  mutation RollbackAgent($input: RollbackAgentInput!) {
    rollbackAgent(input: $input) {
      __typename
      ... on RollbackAgentSuccess {
        revision { ...RevisionStepFields }
        rolledBackTo { id number }
        deliveries { envName purpose secretId requestedVersion requestedVersionRetained versionUsed }
      }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...NamespaceNotReadyErrorFields
    }
  }
`, [RevisionStepFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, NamespaceNotReadyErrorFields]);

export type RollbackAgentResult = ResultOf<typeof RollbackAgentMutation>['rollbackAgent'];
export type RollbackDelivery = Extract<RollbackAgentResult, { __typename: 'RollbackAgentSuccess' }>['deliveries'][number];

export async function rollbackAgent(agentId: string, toRevision: string): Promise<RollbackAgentResult> {
  return (await graphql(RollbackAgentMutation, { input: { agentId, toRevision } })).rollbackAgent;
}

// Query: a secret's stale consumers (W7) ---------------------------------------------------------------

export const StaleConsumersFields = gql(`
  fragment StaleConsumersFields on StaleConsumers {
    total hiddenCount
    items {
      agentId agentName envName purpose currentVersion deliveredVersion revisionId revisionNumber
      redeploy { revisionId number state failureCode }
    }
  }
`);

export type StaleConsumers = ResultOf<typeof StaleConsumersFields>;
export type StaleConsumer = StaleConsumers['items'][number];

export const SecretStaleConsumersQuery = gql(`
  query SecretStaleConsumers($id: ID!) {
    secret(id: $id) { id name version staleConsumers { ...StaleConsumersFields } }
  }
`, [StaleConsumersFields]);

export type SecretWithStaleConsumers = NonNullable<ResultOf<typeof SecretStaleConsumersQuery>['secret']>;

/** Polled while `polling`: a redeploy's progress is each item's redeploy, and the list empties. */
export function secretStaleConsumersQueryOptions(secretId: string, polling: boolean) {
  return queryOptions({
    queryKey: deployKeys.stale(secretId),
    queryFn: async ({ signal }) => (await graphql(SecretStaleConsumersQuery, { id: secretId }, signal)).secret,
    refetchInterval: polling ? POLL_MS : false,
  });
}

// Mutation: redeployConsumers (W7) ---------------------------------------------------------------------

export const RedeployConsumersMutation = gql(`
  mutation RedeployConsumers($input: RedeployConsumersInput!) {
    redeployConsumers(input: $input) {
      __typename
      ... on RedeployConsumersSuccess {
        redeploys { agentId agentName outcome errorCode errorMessage inProgressRevisionId revision { ...RevisionStepFields } }
        secret { id staleConsumers { ...StaleConsumersFields } }
      }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`, [RevisionStepFields, StaleConsumersFields, NotFoundErrorFields, ForbiddenErrorFields]);

export type RedeployConsumersResult = ResultOf<typeof RedeployConsumersMutation>['redeployConsumers'];
export type ConsumerRedeploy = Extract<RedeployConsumersResult, { __typename: 'RedeployConsumersSuccess' }>['redeploys'][number];

export async function redeployConsumers(secretId: string): Promise<RedeployConsumersResult> {
  return (await graphql(RedeployConsumersMutation, { input: { secretId } })).redeployConsumers;
}

// A failed revision: what to do about each failure code the worker records (W1, W2, W4, W5) ------------

const FAILURE_ADVICE: Record<string, string> = {
  AGENT_NOT_AUTHORIZED:
    "The agent's service principal lost a grant after the deploy was admitted. Grant it again (the deploy checks above offer it), then deploy again.",
  ACTOR_NOT_AUTHORIZED: 'Whoever deployed lost a permission it needs. Deploy again as someone who may deploy the agent and operate its secrets.',
  SECRET_MISSING: 'A secret it delivers was deleted. Bind another secret in its configuration, then deploy again.',
  SECRET_DRIVER_CHANGED: 'A secret it delivers is now stored by another driver. Deploy again so the revision admits the secret as it is now.',
  BACKEND_IDENTITY_CHANGED:
    'A Kubernetes object it needs is not the one the control plane recorded or created, and it never adopts another. Remove or restore that object (or store the value again as a new secret and bind it), then deploy again.',
  NAMESPACE_NOT_READY: 'Its namespace is not ready. Wait until the namespace is ready, then deploy again.',
  AGENT_GONE: 'The agent was deleted; nothing is left to do.',
  SUPERSEDED_BEFORE_ACTIVATION: 'A newer revision became active first; nothing to do.',
  GATEWAY_NOT_READY: 'The gateway cannot start with this revision. Fix what the message names (usually a secret or its key), then deploy again.',
  ATTEMPTS_EXHAUSTED: 'The worker gave up after repeated errors. Deploy again; if it fails the same way, the server log has the details.',
};

/** What an administrator can do about a failed revision, by its failure code. */
export function failureAdvice(code: string): string {
  return FAILURE_ADVICE[code] ?? 'Deploy again once the cause in the message is fixed.';
}
