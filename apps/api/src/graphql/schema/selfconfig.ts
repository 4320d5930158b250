import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import type { OwnedItem } from '@occ/domain/field-ownership';
import { SELF_CONFIG_PHASES } from '@occ/domain/selfconfig';
import type { SpecChange } from '@occ/domain/selfconfig-preview';
import type { InstanceFieldOwnership } from '../../services/instance-field-ownership.ts';
import { previewSelfConfig, type SelfConfigPreview } from '../../services/preview-selfconfig.ts';
import { requestSelfConfig } from '../../services/request-selfconfig.ts';
import { resumeSelfConfig, type ResumeSelfConfigResult } from '../../services/resume-selfconfig.ts';
import type { SelfConfigBudgetView } from '../../services/selfconfig-budget-view.ts';
import { approveSelfConfig, rejectSelfConfig } from '../../services/decide-selfconfig-approval.ts';
import { listSelfConfigApprovals, listSelfConfigRequests, type SelfConfigRequestView } from '../../services/selfconfig-requests.ts';
import { actorOf, builder } from '../builder.ts';
import { pageRequest, textFilter, toConnection, totalCount } from '../connections.ts';
import { AgentRef } from './agent.ts';
import { PrincipalRef } from './principal.ts';

// SelfConfig over GraphQL: the history of requests (SC9), an agent's own request (SC5), and who
// owns each item of an agent's instance (SC6, SC7).

const SELF_CONFIG_REQUEST_PHASES = ['Submitted', ...SELF_CONFIG_PHASES] as const;

export const FieldOwnerRef = builder.objectRef<{ manager: string; operation: string }>('FieldOwner').implement({
  description: 'A field manager and the operation by which it owns the item: Apply (server-side apply) or Update (create, replace, patch).',
  fields: (t) => ({ manager: t.exposeString('manager'), operation: t.exposeString('operation') }),
});

const SkippedRemovalRef = builder.objectRef<SelfConfigRequestView['skippedRemovals'][number]>('SelfConfigSkippedRemoval').implement({
  description: 'SC7: a removal not made, because openclaw-selfconfig did not own the item alone.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'skill, envVar, workspaceFile or config' }),
    name: t.exposeString('name'),
    why: t.exposeString('why', { description: 'not-owned: another manager owns it; shared: released, still owned by the managers listed; absent: not present.' }),
    managers: t.field({ type: [FieldOwnerRef], resolve: (s) => s.managers }),
  }),
});

const SelfConfigEventRef = builder.objectRef<SelfConfigRequestView['events'][number]>('SelfConfigEvent').implement({
  description: 'A Kubernetes Event the controller emitted for the request, as history keeps it.',
  fields: (t) => ({
    type: t.exposeString('type'),
    reason: t.exposeString('reason'),
    message: t.exposeString('message'),
    on: t.exposeString('on', { description: 'Kind/name of the object the event is about.' }),
    at: t.exposeString('at'),
  }),
});

const SelfConfigOverrideRef = builder.objectRef<SelfConfigRequestView['overriddenBy'][number]>('SelfConfigOverride').implement({
  description: 'RC3: a deploy that took items this request had set (overridden by revision N).',
  fields: (t) => ({
    revisionId: t.exposeID('revisionId'),
    number: t.exposeInt('number'),
    items: t.exposeStringList('items', { description: 'One line per item taken: what, set when, replaced or bound.' }),
    at: t.exposeString('at'),
  }),
});

export const SpecChangeRef = builder.objectRef<SpecChange>('SelfConfigChange').implement({
  description: 'SG2: one item a SelfConfig request adds, changes or removes in its instance. Never a value.',
  fields: (t) => ({
    op: t.exposeString('op', { description: 'add, change or remove' }),
    kind: t.exposeString('kind', { description: 'skill, envVar, workspaceFile, config (a dotted key path) or field (another spec field)' }),
    name: t.exposeString('name'),
  }),
});

const SelfConfigApprovalDecisionRef = builder.objectRef<SelfConfigRequestView>('SelfConfigApprovalDecision').implement({
  description: 'SG3: who decided a waiting request, and how.',
  fields: (t) => ({
    decision: t.string({ description: 'approved, rejected, or expired (no administrator decided in time).', resolve: (r) => r.approvalDecision ?? '' }),
    decidedBy: t.field({ type: PrincipalRef, nullable: true, resolve: (r, _a, ctx) => (r.approvalById ? ctx.loaders.principal.load(r.approvalById) : null) }),
    at: t.expose('approvalAt', { type: 'DateTime', nullable: true }),
    reason: t.exposeString('approvalReason', { nullable: true, description: "A rejection's reason, as the administrator gave it." }),
  }),
});

export const SelfConfigRequestRef = builder.objectRef<SelfConfigRequestView>('SelfConfigRequest').implement({
  description: 'One OpenClawSelfConfig, kept in history after Kubernetes deletes it (SC9). Literal values (env values, file contents) are not kept.',
  fields: (t) => ({
    id: t.exposeID('id'),
    uid: t.exposeString('uid', { description: 'The Kubernetes object uid.' }),
    k8sNamespace: t.exposeString('k8sNamespace'),
    name: t.exposeString('name'),
    instanceRef: t.exposeString('instanceRef'),
    agentId: t.exposeID('agentId', { nullable: true }),
    agent: t.field({ type: AgentRef, nullable: true, resolve: (r, _a, ctx) => (r.agentId && ctx.actor ? ctx.loaders.agent.load(r.agentId) : null) }),
    namespaceId: t.exposeID('namespaceId', { nullable: true }),
    requestedBy: t.field({ type: PrincipalRef, nullable: true, resolve: (r, _a, ctx) => (r.requestedById ? ctx.loaders.principal.load(r.requestedById) : null) }),
    request: t.field({ type: 'JSON', description: 'Skills, names and the configPatch; never literal values.', resolve: (r) => r.request }),
    phase: t.exposeString('phase', {
      description:
        'Submitted (not yet seen by the controller), Pending, AwaitingApproval (SG3: waits for an administrator, with its preview in changes), Verifying (SG1: applied, waiting for the gateway of the new generation to be Ready), Applied, Failed, Denied, Rejected (an administrator refused it), Expired (no decision within OCC_SELFCONFIG_APPROVAL_TTL_SECONDS) or RolledBack (SG1: the gateway did not become Ready and what the agent owned before was restored; reason and message say why).',
    }),
    message: t.exposeString('message', { nullable: true }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why the phase, in one word (e.g. ActionNotAllowed, RequestBudgetExceeded, SelfConfigPaused).' }),
    changes: t.field({ type: [SpecChangeRef], description: 'SG2: the field-level change the request made, from a server-side dry run before the apply; names only.', resolve: (r) => r.changes }),
    skippedRemovals: t.field({ type: [SkippedRemovalRef], resolve: (r) => r.skippedRemovals }),
    events: t.field({ type: [SelfConfigEventRef], resolve: (r) => r.events }),
    overriddenBy: t.field({ type: [SelfConfigOverrideRef], description: 'RC3: the revisions that took items this request had set.', resolve: (r) => r.overriddenBy }),
    awaitingApprovalAt: t.expose('awaitingApprovalAt', { type: 'DateTime', nullable: true, description: 'SG3: since when the request waits for approval.' }),
    approval: t.field({
      type: SelfConfigApprovalDecisionRef,
      nullable: true,
      description: 'SG3: the decision on a request that waited for approval; null while undecided or when none was needed.',
      resolve: (r) => (r.approvalDecision ? r : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    pendingAt: t.expose('pendingAt', { type: 'DateTime', nullable: true }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true, description: 'When Kubernetes deleted the object (SC9); history stays.' }),
  }),
});

builder.queryField('selfConfigRequests', (t) =>
  t.connection(
    {
      type: SelfConfigRequestRef,
      description: "Newest first: requests of the agents the caller may read, and an agent's own requests for its service principal.",
      authScopes: { authenticated: true },
      args: {
        agentId: t.arg.id(),
        namespaceId: t.arg.id(),
        phase: t.arg.string({ description: `One of ${SELF_CONFIG_REQUEST_PHASES.join(', ')}.` }),
      },
      resolve: async (_root, args, ctx) =>
        toConnection(
          await listSelfConfigRequests(ctx.deps, actorOf(ctx), pageRequest(args), {
            agentId: textFilter(args.agentId, 'agentId'),
            namespaceId: textFilter(args.namespaceId, 'namespaceId'),
            phase: textFilter(args.phase, 'phase'),
          }),
        ),
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
);

const OwnedItemRef = builder.objectRef<OwnedItem>('InstanceOwnedItem').implement({
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'skill, envVar, workspaceFile or config' }),
    name: t.exposeString('name', { description: 'The skill, env var name, file path, or config key path (keys joined by dots).' }),
    path: t.stringList({ nullable: true, description: 'For config: the key path, one key per element.', resolve: (i) => i.path ?? null }),
    owners: t.field({ type: [FieldOwnerRef], resolve: (i) => i.owners }),
  }),
});

const InstanceFieldOwnershipRef = builder.objectRef<InstanceFieldOwnership>('InstanceFieldOwnership').implement({
  description: "Item × manager for the agent's OpenClawInstance, from its managedFields.",
  fields: (t) => ({
    instanceName: t.exposeString('instanceName'),
    k8sNamespace: t.exposeString('k8sNamespace'),
    resourceVersion: t.exposeString('resourceVersion'),
    items: t.field({ type: [OwnedItemRef], resolve: (o) => o.items }),
  }),
});

builder.objectField(AgentRef, 'fieldOwnership', (t) =>
  t.field({
    type: InstanceFieldOwnershipRef,
    nullable: true,
    description: "Who owns each skill, env var, workspace file and config key of the instance; null while the agent has no instance (an object of the instance's name without the agent's openclaw.rocks/agent-id label, which every deploy writes, is not taken for it).",
    resolve: (agent, _a, ctx) => ctx.loaders.fieldOwnership.load(agent),
  }),
);

const SelfConfigBudgetRefusalRef = builder.objectRef<NonNullable<SelfConfigBudgetView['refusal']>>('SelfConfigBudgetRefusal').implement({
  description: 'SG4: why a request filed now would be Denied.',
  fields: (t) => ({
    reason: t.exposeString('reason', { description: 'SelfConfigPaused, RequestBudgetExceeded or AppliedBudgetExceeded.' }),
    message: t.exposeString('message'),
    refillsAt: t.expose('refillsAt', { type: 'DateTime', nullable: true, description: 'When the budget has room again; null while paused (only resumeSelfConfig ends a pause).' }),
  }),
});

const SelfConfigBudgetRef = builder.objectRef<SelfConfigBudgetView>('SelfConfigBudget').implement({
  description: "SG4: the agent's self-configuration budget and what it has spent, counted as the controller counts it.",
  fields: (t) => ({
    requestsPerHour: t.int({ resolve: (b) => b.limits.requestsPerHour }),
    appliedPerDay: t.int({ resolve: (b) => b.limits.appliedPerDay }),
    pauseAfterRollbacks: t.int({ resolve: (b) => b.limits.pauseAfterRollbacks }),
    fromInstance: t.exposeBoolean('fromInstance', { description: "Whether the instance's spec.selfConfigure.budget sets the limits (else the installation's OCC_SELFCONFIG_* defaults)." }),
    requestsInLastHour: t.exposeInt('requestsInLastHour', { description: 'Requests that reached Pending in the last hour (those the budget refused do not count).' }),
    appliedInLastDay: t.exposeInt('appliedInLastDay'),
    rollbacksSinceResume: t.exposeInt('rollbacksSinceResume', { description: 'SG1 rollbacks since an administrator last resumed the agent.' }),
    paused: t.exposeBoolean('paused'),
    refusal: t.field({ type: SelfConfigBudgetRefusalRef, nullable: true, resolve: (b) => b.refusal }),
  }),
});

builder.objectField(AgentRef, 'selfConfigBudget', (t) =>
  t.field({
    type: SelfConfigBudgetRef,
    nullable: true,
    description: "SG4: the limits on the agent's own changes (from its instance, else the installation's defaults) and what it has spent now.",
    resolve: (agent, _a, ctx) => ctx.loaders.selfConfigBudget.load(agent),
  }),
);

const WorkspaceFileInput = builder.inputType('WorkspaceFileInput', {
  fields: (t) => ({ path: t.string({ required: true, description: 'Relative to the workspace; no .. segments.' }), content: t.string({ required: true }) }),
});

const EnvVarInput = builder.inputType('SelfConfigEnvVarInput', {
  fields: (t) => ({ name: t.string({ required: true }), value: t.string({ required: true, description: 'A literal; references are never accepted here.' }) }),
});

const RequestSelfConfigInput = builder.inputType('RequestSelfConfigInput', {
  fields: (t) => ({
    agentId: t.id({ required: true, description: 'The calling agent: the request always targets its own instance (SC5).' }),
    addSkills: t.stringList(),
    removeSkills: t.stringList(),
    configPatch: t.field({ type: 'JSON', description: 'A JSON merge patch of config.raw; the gateway key is protected (SC4).' }),
    addWorkspaceFiles: t.field({ type: [WorkspaceFileInput] }),
    removeWorkspaceFiles: t.stringList(),
    addEnvVars: t.field({ type: [EnvVarInput] }),
    removeEnvVars: t.stringList(),
  }),
});

const RequestSelfConfigSuccess = builder.objectRef<{ request: SelfConfigRequestView }>('RequestSelfConfigSuccess').implement({
  fields: (t) => ({ request: t.field({ type: SelfConfigRequestRef, resolve: (r) => r.request }) }),
});

builder.mutationField('requestSelfConfig', (t) =>
  t.field({
    type: RequestSelfConfigSuccess,
    description: "An agent's request to change its own instance (OpenClawSelfConfig). Only the Agent's service principal may call it; the controller decides the outcome.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RequestSelfConfigInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'RequestSelfConfigResult' } },
    resolve: async (_root, { input }, ctx) => ({ request: await requestSelfConfig(ctx.deps, actorOf(ctx), input) }),
  }),
);

const ResumeSelfConfigInput = builder.inputType('ResumeSelfConfigInput', { fields: (t) => ({ agentId: t.id({ required: true }) }) });

const ResumeSelfConfigSuccess = builder.objectRef<ResumeSelfConfigResult>('ResumeSelfConfigSuccess').implement({
  fields: (t) => ({
    agent: t.field({ type: AgentRef, resolve: (r) => r.agent }),
    rollbacksResumed: t.exposeInt('rollbacksResumed', { description: 'The rollbacks not yet resumed before this call: those that paused the agent, if it was paused.' }),
  }),
});

builder.mutationField('resumeSelfConfig', (t) =>
  t.field({
    type: ResumeSelfConfigSuccess,
    description: "SG4: resumes an agent's self-configuration after its rollbacks paused it; the next pause comes after as many rollbacks again. Needs administer on the agent; audited.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: ResumeSelfConfigInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError], union: { name: 'ResumeSelfConfigResult' } },
    resolve: (_root, { input }, ctx) => resumeSelfConfig(ctx.deps, actorOf(ctx), { agentId: String(input.agentId) }),
  }),
);

const SelfConfigPreviewRef = builder.objectRef<SelfConfigPreview>('SelfConfigPreview').implement({
  description: 'SG2: what a SelfConfig request would do to the agent\'s instance now, from a server-side dry run; nothing is filed or stored.',
  fields: (t) => ({
    outcome: t.exposeString('outcome', { description: 'Applied, or the Failed or Denied the controller would answer (SC3, SC4, a limit of the instance).' }),
    reason: t.exposeString('reason'),
    message: t.exposeString('message'),
    changes: t.field({ type: [SpecChangeRef], resolve: (p) => p.changes }),
    skippedRemovals: t.field({ type: [SkippedRemovalRef], description: 'SC7: removals it could not make, and why.', resolve: (p) => p.skippedRemovals }),
  }),
});

const PreviewSelfConfigSuccess = builder.objectRef<{ preview: SelfConfigPreview }>('PreviewSelfConfigSuccess').implement({
  fields: (t) => ({ preview: t.field({ type: SelfConfigPreviewRef, resolve: (r) => r.preview }) }),
});

builder.queryField('previewSelfConfig', (t) =>
  t.field({
    type: PreviewSelfConfigSuccess,
    description: "SG2: the change requestSelfConfig would make now, without filing it. The agent's own service principal, or whoever may administer the agent; the budget (SG4) is not spent.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RequestSelfConfigInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'PreviewSelfConfigResult' } },
    resolve: async (_root, { input }, ctx) => ({ preview: await previewSelfConfig(ctx.deps, actorOf(ctx), input) }),
  }),
);

const ApproveSelfConfigInput = builder.inputType('ApproveSelfConfigInput', { fields: (t) => ({ requestId: t.id({ required: true, description: 'The SelfConfigRequest id (scr_).' }) }) });
const RejectSelfConfigInput = builder.inputType('RejectSelfConfigInput', {
  fields: (t) => ({
    requestId: t.id({ required: true, description: 'The SelfConfigRequest id (scr_).' }),
    reason: t.string({ description: 'Why; kept on the request, its status message and the audit entry (at most 1000 characters).' }),
  }),
});

const ApproveSelfConfigSuccess = builder.objectRef<{ request: SelfConfigRequestView }>('ApproveSelfConfigSuccess').implement({
  fields: (t) => ({ request: t.field({ type: SelfConfigRequestRef, resolve: (r) => r.request }) }),
});
const RejectSelfConfigSuccess = builder.objectRef<{ request: SelfConfigRequestView }>('RejectSelfConfigSuccess').implement({
  fields: (t) => ({ request: t.field({ type: SelfConfigRequestRef, resolve: (r) => r.request }) }),
});

builder.mutationField('approveSelfConfig', (t) =>
  t.field({
    type: ApproveSelfConfigSuccess,
    description:
      "SG3: approves a request waiting in AwaitingApproval. The controller then plans it again against the instance as it is now (a rule it breaks now ends it Failed or Denied; a changed preview is recorded) and applies it as any request. Needs administer on the agent, never the agent's own service principal; audited. CONFLICT when the request no longer waits.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: ApproveSelfConfigInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError, ConflictError], union: { name: 'ApproveSelfConfigResult' } },
    resolve: async (_root, { input }, ctx) => ({ request: await approveSelfConfig(ctx.deps, actorOf(ctx), { requestId: String(input.requestId) }) }),
  }),
);

builder.mutationField('rejectSelfConfig', (t) =>
  t.field({
    type: RejectSelfConfigSuccess,
    description: "SG3: rejects a request waiting in AwaitingApproval; it ends Rejected with the reason and nothing is applied. Needs administer on the agent, never the agent's own service principal; audited.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RejectSelfConfigInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError, ConflictError], union: { name: 'RejectSelfConfigResult' } },
    resolve: async (_root, { input }, ctx) => ({ request: await rejectSelfConfig(ctx.deps, actorOf(ctx), { requestId: String(input.requestId), reason: input.reason ?? null }) }),
  }),
);

builder.queryField('selfConfigApprovals', (t) =>
  t.connection(
    {
      type: SelfConfigRequestRef,
      description: "SG3: requests awaiting an approval decision the caller may make (agents it may administer, never its own), newest first.",
      authScopes: { authenticated: true },
      resolve: async (_root, args, ctx) => toConnection(await listSelfConfigApprovals(ctx.deps, actorOf(ctx), pageRequest(args))),
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
);
