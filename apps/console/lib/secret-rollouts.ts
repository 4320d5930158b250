// V4 rotation rollouts: a secret's rotation policy (its own, else the namespace default, else
// manual), the rollouts a rotation opens, and the decisions an administrator takes on them.
import { queryOptions } from '@tanstack/react-query';
import { ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields, ValidationErrorFields } from './errors';
import { gql, graphql, type ResultOf, type VariablesOf } from './graphql';
import { secretRolloutKeys } from './secret-rollout-keys';

export const RotationPolicyFields = gql(
  `fragment RotationPolicyFields on SecretRotationPolicy { mode batchSize pauseSeconds readySeconds approval source }`,
);

export const SecretRolloutFields = gql(`
  fragment SecretRolloutFields on SecretRollout {
    id state targetVersion rotations createdAt lastRotatedAt approvedAt endedAt
    reason { code message }
    policy { mode batchSize pauseSeconds readySeconds approval }
    viewerCan {
      approve { allowed code message } pause { allowed code message }
      resume { allowed code message } abort { allowed code message }
    }
    batches {
      index state targetVersion startedAt endedAt
      reason { code message }
      members {
        agentId agent { id name } revisionState
        revision { id number }
        rollbackRevision { id number }
        refusal { code message }
      }
    }
  }
`);

export type RotationPolicy = ResultOf<typeof RotationPolicyFields>;
export type SecretRollout = ResultOf<typeof SecretRolloutFields>;
export type SecretRolloutState = SecretRollout['state'];
export type SecretRolloutBatch = SecretRollout['batches'][number];
export type PolicyInput = NonNullable<VariablesOf<typeof SetSecretRotationPolicyMutation>['input']['policy']>;

/** A rollout still doing or awaiting something: polled while it is in one of these. */
const OPEN: ReadonlySet<SecretRolloutState> = new Set(['AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK']);
export const ROLLOUT_POLL_MS = 2000;

export function isOpen(state: SecretRolloutState): boolean {
  return OPEN.has(state);
}

export const ROLLOUT_DECISIONS = ['approve', 'pause', 'resume', 'abort'] as const;
export type RolloutDecision = (typeof ROLLOUT_DECISIONS)[number];
export type DecisionCheck = SecretRollout['viewerCan'][RolloutDecision];

/**
 * The decisions to show on a rollout, from its viewerCan (the API's lifecycle and access decisions,
 * not a copy of them here): those its state takes, each enabled or with the reason it is not.
 */
export function shownDecisions(rollout: Pick<SecretRollout, 'viewerCan'>): Array<{ decision: RolloutDecision; check: DecisionCheck }> {
  return ROLLOUT_DECISIONS.map((decision) => ({ decision, check: rollout.viewerCan[decision] })).filter(({ check }) => check.code !== 'ROLLOUT_STATE_CONFLICT');
}

// Query: a secret's policy in effect, its own policy, and its newest rollouts -----------------------

export const SecretRotationQuery = gql(
  `
  query SecretRotation($id: ID!) {
    secret(id: $id) {
      id name version
      viewerCan { administer }
      rotationPolicy { ...RotationPolicyFields }
      namespace { id secretRotationPolicy { ...RotationPolicyFields } }
      rollouts { id state targetVersion createdAt endedAt reason { code message } }
    }
  }
`,
  [RotationPolicyFields],
);

export type SecretRotation = NonNullable<ResultOf<typeof SecretRotationQuery>['secret']>;

export function secretRotationQueryOptions(secretId: string) {
  return queryOptions({
    queryKey: secretRolloutKeys.secret(secretId),
    queryFn: async ({ signal }) => (await graphql(SecretRotationQuery, { id: secretId }, signal)).secret,
    // The newest rollout's state changes while it runs; its own query polls faster.
    refetchInterval: (query) => (query.state.data?.rollouts.some((r) => isOpen(r.state)) ? ROLLOUT_POLL_MS * 2 : false),
  });
}

// Query: one rollout, polled while it is open -------------------------------------------------------

export const SecretRolloutQuery = gql(
  `query SecretRollout($id: ID!) { secretRollout(id: $id) { ...SecretRolloutFields } }`,
  [SecretRolloutFields],
);

export function secretRolloutQueryOptions(rolloutId: string) {
  return queryOptions({
    queryKey: secretRolloutKeys.rollout(rolloutId),
    queryFn: async ({ signal }) => (await graphql(SecretRolloutQuery, { id: rolloutId }, signal)).secretRollout,
    refetchInterval: (query) => {
      const state = query.state.data?.state;
      return state && !isOpen(state) ? false : ROLLOUT_POLL_MS;
    },
  });
}

// Mutation: setSecretRotationPolicy (null: follow the namespace default) ----------------------------

export const SetSecretRotationPolicyMutation = gql(
  `
  mutation SetSecretRotationPolicy($input: SetSecretRotationPolicyInput!) {
    setSecretRotationPolicy(input: $input) {
      __typename
      ... on SetSecretRotationPolicySuccess { policy { ...RotationPolicyFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`,
  [RotationPolicyFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields],
);

export async function setSecretRotationPolicy(input: { secretId: string; policy: PolicyInput | null }) {
  return (await graphql(SetSecretRotationPolicyMutation, { input })).setSecretRotationPolicy;
}

// Query and mutation: a namespace's default rotation policy (null: manual) ---------------------------

export const NamespaceRotationPolicyQuery = gql(
  `
  query NamespaceRotationPolicy($id: ID!) {
    namespace(id: $id) { id name secretRotationPolicy { ...RotationPolicyFields } viewerCan { administer } }
  }
`,
  [RotationPolicyFields],
);

export type NamespaceRotationPolicy = NonNullable<ResultOf<typeof NamespaceRotationPolicyQuery>['namespace']>;

export function namespaceRotationPolicyQueryOptions(namespaceId: string) {
  return queryOptions({
    queryKey: [...secretRolloutKeys.all, 'namespace', namespaceId] as const,
    queryFn: async ({ signal }) => (await graphql(NamespaceRotationPolicyQuery, { id: namespaceId }, signal)).namespace,
  });
}

export const SetNamespaceSecretRotationPolicyMutation = gql(
  `
  mutation SetNamespaceSecretRotationPolicy($input: SetNamespaceSecretRotationPolicyInput!) {
    setNamespaceSecretRotationPolicy(input: $input) {
      __typename
      ... on SetNamespaceSecretRotationPolicySuccess { policy { ...RotationPolicyFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`,
  [RotationPolicyFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields],
);

export async function setNamespaceSecretRotationPolicy(input: { namespaceId: string; policy: PolicyInput | null }) {
  return (await graphql(SetNamespaceSecretRotationPolicyMutation, { input })).setNamespaceSecretRotationPolicy;
}

// Mutations: approve, pause, resume, abort ----------------------------------------------------------

export const ApproveSecretRolloutMutation = gql(
  `
  mutation ApproveSecretRollout($input: SecretRolloutDecisionInput!) {
    approveSecretRollout(input: $input) {
      __typename
      ... on SecretRolloutDecisionSuccess { rollout { ...SecretRolloutFields } }
      ...ConflictErrorFields
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`,
  [SecretRolloutFields, ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields],
);

export const PauseSecretRolloutMutation = gql(
  `
  mutation PauseSecretRollout($input: SecretRolloutDecisionInput!) {
    pauseSecretRollout(input: $input) {
      __typename
      ... on SecretRolloutDecisionSuccess { rollout { ...SecretRolloutFields } }
      ...ConflictErrorFields
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`,
  [SecretRolloutFields, ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields],
);

export const ResumeSecretRolloutMutation = gql(
  `
  mutation ResumeSecretRollout($input: SecretRolloutDecisionInput!) {
    resumeSecretRollout(input: $input) {
      __typename
      ... on SecretRolloutDecisionSuccess { rollout { ...SecretRolloutFields } }
      ...ConflictErrorFields
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`,
  [SecretRolloutFields, ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields],
);

export const AbortSecretRolloutMutation = gql(
  `
  mutation AbortSecretRollout($input: SecretRolloutDecisionInput!) {
    abortSecretRollout(input: $input) {
      __typename
      ... on SecretRolloutDecisionSuccess { rollout { ...SecretRolloutFields } }
      ...ConflictErrorFields
      ...ForbiddenErrorFields
      ...NotFoundErrorFields
    }
  }
`,
  [SecretRolloutFields, ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields],
);

export type RolloutDecisionResult = ResultOf<typeof ApproveSecretRolloutMutation>['approveSecretRollout'];

export async function decideRollout({ decision, rolloutId }: { decision: RolloutDecision; rolloutId: string }): Promise<RolloutDecisionResult> {
  const input = { rolloutId };
  switch (decision) {
    case 'approve':
      return (await graphql(ApproveSecretRolloutMutation, { input })).approveSecretRollout;
    case 'pause':
      return (await graphql(PauseSecretRolloutMutation, { input })).pauseSecretRollout;
    case 'resume':
      return (await graphql(ResumeSecretRolloutMutation, { input })).resumeSecretRollout;
    case 'abort':
      return (await graphql(AbortSecretRolloutMutation, { input })).abortSecretRollout;
  }
}
