import { ConflictError, ForbiddenError, NamespaceNotReadyError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { describeTakeover, type Takeover } from '@occ/domain/composition';
import { REVISION_STATES, type RevisionState } from '@occ/domain/revision';
import { deployAgent } from '../../services/deploy-agent.ts';
import type { DeployCheck } from '../../services/deploy-checks.ts';
import { explainDeploy, type DeployExplanation } from '../../services/deploy-explain.ts';
import { listRevisions, type RevisionSecretView, type RevisionView } from '../../services/revisions.ts';
import { actorOf, builder, kindNode } from '../builder.ts';
import { pageRequest, toConnection, totalCount } from '../connections.ts';
import { AgentRef } from './agent.ts';
import { MissingGrantRef } from './errors.ts';
import { FieldOwnerRef } from './selfconfig.ts';
import { SecretRef, SecretReferenceRef } from './secret.ts';

// Deploys (D1–D6) and the AgentRevisions they freeze. A revision shows references and versions,
// never a locator or a value.

export const RevisionStateEnum = builder.enumType('RevisionState', {
  values: Object.fromEntries(REVISION_STATES.map((s) => [s.toUpperCase(), { value: s }])) as Record<Uppercase<RevisionState>, { value: RevisionState }>,
});

const RevisionSecretRef = builder.objectRef<RevisionSecretView>('RevisionSecret').implement({
  description: 'A reference the revision delivers, with the Secret version it was admitted at.',
  fields: (t) => ({
    purpose: t.exposeString('purpose', { description: 'binding (gateway env) or harnessAuth (the model workload).' }),
    envName: t.exposeString('envName'),
    source: t.field({ type: SecretReferenceRef, resolve: (s) => s.source }),
    version: t.exposeInt('version'),
    secret: t.field({ type: SecretRef, nullable: true, resolve: (s, _a, ctx) => ctx.loaders.secret.load(s.source.id) }),
  }),
});

const RevisionFailureRef = builder.objectRef<NonNullable<RevisionView['failure']>>('RevisionFailure').implement({
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const RevisionTakeoverRef = builder.objectRef<RevisionView['takeovers'][number]>('RevisionTakeover').implement({
  description: "RC3: an item the agent had set on its instance (openclaw-selfconfig) that this revision's apply took.",
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'envVar, workspaceFile or config' }),
    name: t.exposeString('name'),
    action: t.exposeString('action', { description: 'replace: set to the revision’s value; bind: the agent’s literal replaced by the bound secret.' }),
    setAt: t.exposeString('setAt', { nullable: true, description: 'When the agent last wrote its fields (the manager’s time in managedFields).' }),
    requestId: t.exposeID('requestId', { nullable: true, description: 'The SelfConfig request that set it, when history knows it.' }),
  }),
});

export const AgentRevisionRef = builder.objectRef<RevisionView>('AgentRevision');

builder.node(AgentRevisionRef, {
  ...kindNode('agentRevision'),
  fields: (t) => ({
    number: t.exposeInt('number'),
    agentId: t.exposeID('agentId'),
    state: t.field({ type: RevisionStateEnum, resolve: (r) => r.state }),
    failure: t.field({ type: RevisionFailureRef, nullable: true, resolve: (r) => r.failure }),
    configurationId: t.exposeID('configurationId', { nullable: true }),
    configurationGeneration: t.exposeInt('configurationGeneration', { nullable: true }),
    values: t.field({ type: 'JSON', description: 'The native document as frozen (references only).', resolve: (r) => r.values }),
    secrets: t.field({ type: [RevisionSecretRef], resolve: (r) => r.secrets }),
    secretDriverId: t.exposeString('secretDriverId'),
    instanceGeneration: t.exposeInt('instanceGeneration', { nullable: true, description: 'W5: the OpenClawInstance generation this revision’s apply produced.' }),
    takeovers: t.field({ type: [RevisionTakeoverRef], description: 'RC3: what the apply took from the agent’s own changes.', resolve: (r) => r.takeovers }),
    servicePrincipalId: t.exposeID('servicePrincipalId'),
    createdById: t.exposeID('createdById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.objectFields(AgentRef, (t) => ({
  revisions: t.connection(
    {
      type: AgentRevisionRef,
      description: 'Newest first.',
      args: { state: t.arg({ type: RevisionStateEnum }) },
      resolve: async (agent, args, ctx) => {
        const page = pageRequest(args);
        const state = args.state ?? null;
        // The first page, as a list of agents asks for it, is batched across the agents (loaders.ts).
        if (page.direction === 'forward' && !page.after && !page.before) return toConnection(await ctx.loaders.revisionPages.load({ agentId: agent.id, size: page.size, state }));
        return toConnection(await listRevisions(ctx.deps, actorOf(ctx), agent, page, { state }));
      },
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
  activeRevision: t.field({
    type: AgentRevisionRef,
    nullable: true,
    resolve: (agent, _a, ctx) => (agent.activeRevisionId ? ctx.loaders.agentRevision.load(agent.activeRevisionId) : null),
  }),
}));

const DeployCheckRef = builder.objectRef<DeployCheck>('DeployCheck').implement({
  fields: (t) => ({
    id: t.exposeString('id', { description: 'CALLER_MAY_DEPLOY, NAMESPACE_READY, AGENT_ACTIVE, CHANNEL_BINDINGS, CALLER_MAY_OPERATE_SECRET, AGENT_MAY_OPERATE_SECRET, BACKEND_IDENTITY' }),
    rule: t.exposeString('rule'),
    passed: t.exposeBoolean('passed'),
    message: t.exposeString('message'),
    fix: t.exposeString('fix', { nullable: true }),
    secretId: t.exposeID('secretId', { nullable: true }),
    missingGrant: t.field({ type: MissingGrantRef, nullable: true, resolve: (c) => c.missingGrant }),
  }),
});

const DeployTakeoverRef = builder.objectRef<Takeover>('DeployTakeover').implement({
  description: 'RC3: an item the agent set on its instance that this deploy would replace.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'envVar, workspaceFile or config' }),
    name: t.exposeString('name'),
    path: t.stringList({ nullable: true, resolve: (x) => x.path ?? null }),
    action: t.exposeString('action', { description: 'replace, or bind (the agent’s literal becomes the bound secret)' }),
    setAt: t.exposeString('setAt', { nullable: true }),
    setBy: t.field({ type: [FieldOwnerRef], resolve: (x) => x.owners }),
    description: t.string({ resolve: (x) => describeTakeover(x) }),
  }),
});

const DeployExplanationRef = builder.objectRef<DeployExplanation>('DeployExplanation').implement({
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    allowed: t.exposeBoolean('allowed', { description: 'Whether deployAgent would admit the agent now.' }),
    checks: t.field({ type: [DeployCheckRef], resolve: (e) => e.checks }),
    takeovers: t.field({
      type: [DeployTakeoverRef],
      nullable: true,
      description: 'RC3: what this deploy would take from the agent’s own changes (SelfConfig), taken with force and recorded; null when the instance could not be read.',
      resolve: (e) => e.takeovers,
    }),
  }),
});

builder.queryField('explainDeploy', (t) =>
  t.field({
    type: DeployExplanationRef,
    description: 'D6: every check deployAgent applies, with pass or fail and a fix; writes nothing.',
    authScopes: { authenticated: true },
    errors: { types: [NotFoundError], union: { name: 'ExplainDeployResult' } },
    args: { agentId: t.arg.id({ required: true }) },
    resolve: (_root, { agentId }, ctx) => explainDeploy(ctx.deps, actorOf(ctx), { agentId: String(agentId) }),
  }),
);

const DeployAgentInput = builder.inputType('DeployAgentInput', {
  fields: (t) => ({ agentId: t.id({ required: true }) }),
});

const DeployAgentSuccess = builder.objectRef<{ revision: RevisionView }>('DeployAgentSuccess').implement({
  fields: (t) => ({ revision: t.field({ type: AgentRevisionRef, resolve: (r) => r.revision }) }),
});

builder.mutationField('deployAgent', (t) =>
  t.field({
    type: DeployAgentSuccess,
    description: 'D1–D4: admits the agent and queues a new immutable revision for the worker.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: DeployAgentInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError, ConflictError, NamespaceNotReadyError], union: { name: 'DeployAgentResult' } },
    resolve: async (_root, { input }, ctx) => ({ revision: await deployAgent(ctx.deps, actorOf(ctx), { agentId: String(input.agentId) }) }),
  }),
);
