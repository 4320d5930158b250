import { ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import type { OwnedItem } from '@occ/domain/field-ownership';
import { SELF_CONFIG_PHASES } from '@occ/domain/selfconfig';
import { instanceFieldOwnership, type InstanceFieldOwnership } from '../../services/instance-field-ownership.ts';
import { requestSelfConfig } from '../../services/request-selfconfig.ts';
import { listSelfConfigRequests, type SelfConfigRequestView } from '../../services/selfconfig-requests.ts';
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
    phase: t.exposeString('phase', { description: 'Submitted (not yet seen by the controller), Pending, Applied, Failed or Denied.' }),
    message: t.exposeString('message', { nullable: true }),
    skippedRemovals: t.field({ type: [SkippedRemovalRef], resolve: (r) => r.skippedRemovals }),
    events: t.field({ type: [SelfConfigEventRef], resolve: (r) => r.events }),
    overriddenBy: t.field({ type: [SelfConfigOverrideRef], description: 'RC3: the revisions that took items this request had set.', resolve: (r) => r.overriddenBy }),
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
    description: 'Who owns each skill, env var, workspace file and config key of the instance; null while the agent has no instance.',
    resolve: async (agent, _a, ctx) => instanceFieldOwnership(ctx.deps, agent, (await ctx.loaders.namespace.load(agent.namespaceId))?.k8sName),
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
