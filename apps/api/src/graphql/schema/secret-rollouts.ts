import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { effectiveRotationPolicy, type RotationPolicy, type RotationPolicySource } from '@occ/domain/secret-rotation';
import { DECISIONS, decideRollout, decisionCheck, setNamespaceRotationPolicy, setSecretRotationPolicy, type DecisionCheck, type RolloutBatchView, type RolloutMemberView, type RolloutView } from '../../services/secret-rollouts.ts';
import { actorOf, builder, kindNode } from '../builder.ts';
import { liveObject } from '../live.ts';
import { AgentRef } from './agent.ts';
import { AgentRevisionRef } from './deploy.ts';
import { NamespaceRef } from './namespace.ts';
import { SecretDeliveryRef, SecretRef } from './secret.ts';
import { capabilityRequest } from '../../services/capabilities.ts';
import { kinds } from '../../services/resource-kinds.ts';

// V4: rotation policies and rollouts. Names, versions, states and reasons only: a rollout never
// holds a value, and its members are named by the ids the caller could read anyway (agents it may
// not read resolve to null).

const ModeEnum = builder.enumType('SecretRotationMode', {
  values: { MANUAL: { description: 'A rotation stores the new version; nothing is redeployed (redeployConsumers does it).' }, AUTOMATIC: { description: 'A rotation opens a rollout that delivers it in batches.' } } as const,
});
const ApprovalEnum = builder.enumType('SecretRolloutApproval', {
  values: {
    NONE: { description: 'The first batch starts once the pause after the last rotation has passed.' },
    ANY_ADMINISTRATOR: { description: 'An administrator of the secret approves before the first batch (again after a new rotation).' },
    OTHER_ADMINISTRATOR: { description: 'As ANY_ADMINISTRATOR, but not the principal who rotated the secret.' },
  } as const,
});
const SourceEnum = builder.enumType('SecretRotationPolicySource', { values: ['SECRET', 'NAMESPACE', 'DEFAULT'] as const });
const StateEnum = builder.enumType('SecretRolloutState', { values: ['AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK', 'SUCCEEDED', 'ROLLED_BACK', 'ABORTED'] as const });
const BatchStateEnum = builder.enumType('SecretRolloutBatchState', { values: ['ROLLING', 'READY', 'FAILED', 'ROLLED_BACK', 'ABORTED'] as const });
const RevisionStateEnum = builder.enumType('SecretRolloutMemberRevisionState', {
  values: ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING', 'ACTIVE', 'FAILED', 'SUPERSEDED', 'STOPPED'] as const,
});

const PolicyRef = builder.objectRef<RotationPolicy & { source?: RotationPolicySource }>('SecretRotationPolicy').implement({
  description: 'V4: what a rotation of a secret does.',
  fields: (t) => ({
    mode: t.field({ type: ModeEnum, resolve: (p) => p.mode }),
    batchSize: t.exposeInt('batchSize', { description: 'Agents redeployed at once.' }),
    pauseSeconds: t.exposeInt('pauseSeconds', { description: 'Wait after the last rotation and after each batch before the next batch starts; rotations within it deliver only the last.' }),
    readySeconds: t.exposeInt('readySeconds', { description: 'How long a batch may take to be Ready before it is rolled back.' }),
    approval: t.field({ type: ApprovalEnum, resolve: (p) => p.approval }),
    source: t.field({ type: SourceEnum, nullable: true, description: 'Where the policy in effect comes from (on Secret.rotationPolicy).', resolve: (p) => p.source ?? null }),
  }),
});

const ReasonRef = builder.objectRef<{ code: string; message: string }>('SecretRolloutReason').implement({
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const MemberRef = builder.objectRef<RolloutMemberView>('SecretRolloutMember').implement({
  description: "V4: one agent of a batch: the revision it ran before, the batch's revision and, if the batch was rolled back, the rollback's.",
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    agent: t.field({ type: AgentRef, nullable: true, resolve: (m, _a, ctx) => ctx.loaders.agent.load(m.agentId) }),
    fromRevisionId: t.exposeID('fromRevisionId'),
    revision: t.field({ type: AgentRevisionRef, nullable: true, resolve: (m, _a, ctx) => (m.revisionId ? ctx.loaders.agentRevision.load(m.revisionId) : null) }),
    revisionState: t.field({ type: RevisionStateEnum, nullable: true, resolve: (m) => (m.revisionState ? (m.revisionState.toUpperCase() as never) : null) }),
    rollbackRevision: t.field({ type: AgentRevisionRef, nullable: true, resolve: (m, _a, ctx) => (m.rollbackRevisionId ? ctx.loaders.agentRevision.load(m.rollbackRevisionId) : null) }),
    refusal: t.field({ type: ReasonRef, nullable: true, description: 'Why its deploy was refused (the rotator may not deploy it, say).', resolve: (m) => m.refusal }),
  }),
});

const BatchRef = builder.objectRef<RolloutBatchView>('SecretRolloutBatch').implement({
  fields: (t) => ({
    index: t.exposeInt('index'),
    state: t.field({ type: BatchStateEnum, resolve: (b) => b.state }),
    targetVersion: t.exposeInt('targetVersion', { description: "The secret's version when the batch started." }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    reason: t.field({ type: ReasonRef, nullable: true, resolve: (b) => b.reason }),
    members: t.field({ type: [MemberRef], resolve: (b) => b.members }),
  }),
});

export const SecretRolloutRef = builder.objectRef<RolloutView>('SecretRollout');

// A registered kind (services/resource-kinds.ts): node(id:) answers it, read with its secret.
builder.node(SecretRolloutRef, {
  ...kindNode('secretRollout'),
  description: "V4: a rotation's rollout: the secret's current version delivered to its consumers batch by batch.",
  fields: (t) => ({
    secretId: t.exposeID('secretId'),
    secret: t.field({ type: SecretRef, nullable: true, resolve: (r, _a, ctx) => ctx.loaders.secret.load(r.secretId) }),
    state: t.field({ type: StateEnum, resolve: (r) => r.state }),
    policy: t.field({ type: PolicyRef, description: 'The policy when the rollout opened.', resolve: (r) => r.policy }),
    targetVersion: t.exposeInt('targetVersion', { description: 'The version it delivers; a rotation while it is open moves it.' }),
    rotations: t.exposeInt('rotations', { description: 'Rotations it took in (more than one: the earlier versions were skipped).' }),
    lastRotatedAt: t.expose('lastRotatedAt', { type: 'DateTime' }),
    rotatedById: t.exposeID('rotatedById', { description: 'The last rotator; batches deploy as this principal.' }),
    approvedById: t.exposeID('approvedById', { nullable: true }),
    approvedAt: t.expose('approvedAt', { type: 'DateTime', nullable: true }),
    reason: t.field({ type: ReasonRef, nullable: true, description: 'Why it rolled back or was aborted.', resolve: (r) => r.reason }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    batches: t.field({ type: [BatchRef], resolve: (r) => r.batches }),
  }),
});

const DecisionCheckRef = builder.objectRef<DecisionCheck>('RolloutDecisionCheck').implement({
  description: 'Whether you may take a decision on the rollout now: what the decision would answer.',
  fields: (t) => ({
    allowed: t.exposeBoolean('allowed'),
    code: t.exposeString('code', { nullable: true, description: 'Why not: ROLLOUT_STATE_CONFLICT (its state does not take it: nobody may), FORBIDDEN (it needs administer on the secret), ROLLOUT_APPROVER_IS_ROTATOR (the policy wants an administrator other than the rotator).' }),
    message: t.exposeString('message', { nullable: true }),
  }),
});

const RolloutViewerCanRef = builder.objectRef<RolloutView>('SecretRolloutViewerCan').implement({
  description: 'What you may decide on this rollout now: each field is the answer its mutation would give.',
  fields: (t) =>
    Object.fromEntries(
      DECISIONS.map((decision) => [
        decision,
        t.field({
          type: DecisionCheckRef,
          resolve: async (rollout, _a, ctx) => {
            const may = await ctx.loaders.may(capabilityRequest('secret', 'administer', { id: rollout.secretId, namespaceId: rollout.namespaceId }));
            return decisionCheck(rollout, decision, actorOf(ctx).principalId, may.allowed);
          },
        }),
      ]),
    ),
});

builder.objectField(SecretRolloutRef, 'viewerCan', (t) =>
  t.field({ type: RolloutViewerCanRef, description: 'What you may decide on it now (the same decisions its mutations make).', resolve: (rollout) => rollout }),
);

builder.objectField(SecretRef, 'rotationPolicy', (t) =>
  t.field({
    type: PolicyRef,
    description: "V4: the policy a rotation follows: the secret's own, else its namespace's default, else manual.",
    resolve: async (s, _a, ctx) => {
      const { policy, source } = await ctx.loaders.secretRotationPolicy.load(s.id);
      return { ...policy, source };
    },
  }),
);

builder.objectField(SecretRef, 'rollouts', (t) =>
  t.field({
    type: [SecretRolloutRef],
    description: 'V4: its newest rollouts (at most 10), newest first; poll it, or Query.secretRollout, for progress.',
    resolve: (s, _a, ctx) => ctx.loaders.secretRollouts.load(s.id),
  }),
);

builder.objectField(NamespaceRef, 'secretRotationPolicy', (t) =>
  t.field({
    type: PolicyRef,
    nullable: true,
    description: 'V4: the default policy of its secrets that set none (null: manual).',
    resolve: async (n, _a, ctx) => {
      const { policy, source } = effectiveRotationPolicy(null, await ctx.loaders.namespaceRotationPolicy.load(n.id));
      return source === 'NAMESPACE' ? policy : null;
    },
  }),
);

builder.objectField(SecretDeliveryRef, 'rollout', (t) =>
  t.field({
    type: SecretRolloutRef,
    nullable: true,
    description: "V4: the rollout the secret's policy opened (or moved) for this version; null under a manual policy.",
    resolve: (d, _a, ctx) => (d.rolloutId ? kinds.get(ctx.deps, actorOf(ctx), 'secretRollout', d.rolloutId) : null),
  }),
);

builder.queryField('secretRollout', (t) =>
  t.field({
    type: SecretRolloutRef,
    nullable: true,
    description: 'V4: a rollout, for polling its progress; null when it does not exist or you may not read its secret.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => kinds.get(ctx.deps, actorOf(ctx), 'secretRollout', String(id)),
  }),
);

const FINAL_ROLLOUT_STATES: ReadonlySet<RolloutView['state']> = new Set(['SUCCEEDED', 'ROLLED_BACK', 'ABORTED']);

builder.subscriptionField('secretRollout', (t) =>
  t.field({
    type: SecretRolloutRef,
    nullable: true,
    description:
      'V4: a rollout as it progresses (GraphQL over SSE: POST with `Accept: text/event-stream`): its state now, then each change, ending after a final state (SUCCEEDED, ROLLED_BACK, ABORTED). One null, then the end, when it does not exist or you may not read its secret. At most 4 open per principal (SUBSCRIPTION_LIMITED); Query.secretRollout is the same read for clients that poll.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    subscribe: (_root, { id }, ctx) => {
      const actor = actorOf(ctx);
      return liveObject(ctx, actor, {
        read: () => kinds.get(ctx.deps, actor, 'secretRollout', String(id)),
        fingerprint: (view) => JSON.stringify(view),
        final: (view) => FINAL_ROLLOUT_STATES.has(view.state),
      });
    },
    resolve: (view: RolloutView | null) => view,
  }),
);

const PolicyInput = builder.inputType('SecretRotationPolicyInput', {
  description: 'Absent fields take the defaults (MANUAL, batchSize 10, pauseSeconds 30, readySeconds 300, approval NONE).',
  fields: (t) => ({
    mode: t.field({ type: ModeEnum, required: false }),
    batchSize: t.int({ required: false }),
    pauseSeconds: t.int({ required: false }),
    readySeconds: t.int({ required: false }),
    approval: t.field({ type: ApprovalEnum, required: false }),
  }),
});

function policyFrom(input: Record<string, unknown> | null | undefined): unknown {
  if (!input) return null;
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
}

const SecretPolicyInput = builder.inputType('SetSecretRotationPolicyInput', {
  fields: (t) => ({ secretId: t.id({ required: true }), policy: t.field({ type: PolicyInput, required: false, description: "Null: follow the namespace's default." }) }),
});
const NamespacePolicyInput = builder.inputType('SetNamespaceSecretRotationPolicyInput', {
  fields: (t) => ({ namespaceId: t.id({ required: true }), policy: t.field({ type: PolicyInput, required: false, description: 'Null: manual.' }) }),
});
const RolloutInput = builder.inputType('SecretRolloutDecisionInput', { fields: (t) => ({ rolloutId: t.id({ required: true }) }) });

const SetSecretPolicySuccess = builder.objectRef<{ secretId: string; policy: RotationPolicy; source: RotationPolicySource }>('SetSecretRotationPolicySuccess').implement({
  fields: (t) => ({
    secret: t.field({ type: SecretRef, nullable: true, resolve: (r, _a, ctx) => ctx.loaders.secret.load(r.secretId) }),
    policy: t.field({ type: PolicyRef, description: 'The policy now in effect.', resolve: (r) => ({ ...r.policy, source: r.source }) }),
  }),
});
const SetNamespacePolicySuccess = builder.objectRef<{ namespaceId: string; policy: RotationPolicy | null }>('SetNamespaceSecretRotationPolicySuccess').implement({
  fields: (t) => ({
    namespaceId: t.exposeID('namespaceId'),
    policy: t.field({ type: PolicyRef, nullable: true, resolve: (r) => r.policy }),
  }),
});
const RolloutSuccess = builder.objectRef<RolloutView>('SecretRolloutDecisionSuccess').implement({
  fields: (t) => ({ rollout: t.field({ type: SecretRolloutRef, resolve: (r) => r }) }),
});

builder.mutationFields((t) => ({
  setSecretRotationPolicy: t.field({
    type: SetSecretPolicySuccess,
    description: 'V4: a secret’s own rotation policy. Needs administer on the secret; audited.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: SecretPolicyInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'SetSecretRotationPolicyResult' } },
    resolve: (_root, { input }, ctx) => setSecretRotationPolicy(ctx.deps, actorOf(ctx), { secretId: String(input.secretId), policy: policyFrom(input.policy) }),
  }),
  setNamespaceSecretRotationPolicy: t.field({
    type: SetNamespacePolicySuccess,
    description: 'V4: the default rotation policy of a namespace’s secrets. Needs administer on the namespace; audited.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: NamespacePolicyInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'SetNamespaceSecretRotationPolicyResult' } },
    resolve: (_root, { input }, ctx) => setNamespaceRotationPolicy(ctx.deps, actorOf(ctx), { namespaceId: String(input.namespaceId), policy: policyFrom(input.policy) }),
  }),
  ...Object.fromEntries(
    (
      [
        ['approveSecretRollout', 'approve', 'Approves a rollout awaiting approval (by the policy, perhaps not its rotator); its first (or next) batch may start.'],
        ['pauseSecretRollout', 'pause', 'Holds the next batch; the batch in flight finishes.'],
        ['resumeSecretRollout', 'resume', 'Resumes a paused rollout (awaiting approval again if it was never approved).'],
        ['abortSecretRollout', 'abort', 'Ends the rollout: no further batch starts; what was delivered stays.'],
      ] as const
    ).map(([name, decision, description]) => [
      name,
      t.field({
        type: RolloutSuccess,
        description: `V4: ${description} Needs administer on the secret; audited.`,
        authScopes: { authenticated: true },
        args: { input: t.arg({ type: RolloutInput, required: true }) },
        errors: { types: [NotFoundError, ForbiddenError, ConflictError], union: { name: `${name[0]!.toUpperCase()}${name.slice(1)}Result` } },
        resolve: (_root, { input }, ctx) => decideRollout(ctx.deps, actorOf(ctx), { rolloutId: String(input.rolloutId), decision }),
      }),
    ]),
  ),
}));
