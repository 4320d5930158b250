import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { createAgent, listAgents, updateAgent, type AgentView } from '../../services/agents.ts';
import { actorOf, builder, kindNode } from '../builder.ts';
import { pageRequest, textFilter, toConnection, totalCount } from '../connections.ts';
import { fieldsAt, selects } from '../lookahead.ts';
import { AccessBindingRef } from './access.ts';
import { ConfigurationRef, SecretRefInput } from './configuration.ts';
import { MissingGrantRef } from './errors.ts';
import { NamespaceRef } from './namespace.ts';
import { PrincipalRef } from './principal.ts';
import { SecretRef, SecretReferenceRef, secretColumnsFor } from './secret.ts';
import { kinds } from '../../services/resource-kinds.ts';
import { ORDER_ARG } from './list-order.ts';

export const AgentRef = builder.objectRef<AgentView>('Agent');

const HarnessAuthRef = builder.objectRef<NonNullable<AgentView['harnessAuth']>>('HarnessAuth').implement({
  description: "The model credential: the provider decides the env name it is delivered under to the agent's model workload.",
  fields: (t) => ({
    provider: t.exposeString('provider'),
    envName: t.exposeString('envName'),
    source: t.field({ type: SecretReferenceRef, resolve: (h) => h.source }),
    secret: t.field({ type: SecretRef, nullable: true, resolve: (h, _a, ctx) => ctx.loaders.secret.load(h.source.id) }),
  }),
});

const SelfConfigApprovalMode = builder.enumType('SelfConfigApprovalMode', {
  description: 'SG3: none applies a request as the controller decides it; required makes it wait in AwaitingApproval for an administrator.',
  values: ['none', 'required'] as const,
});

const SelfConfigApprovalRef = builder.objectRef<AgentView['selfConfigure']['approval']>('SelfConfigApproval').implement({
  description: "SG3: whether a SelfConfig request touching each category waits for an administrator's approval (approveSelfConfig, rejectSelfConfig).",
  fields: (t) => ({
    skills: t.field({ type: SelfConfigApprovalMode, resolve: (a) => (a.includes('skills') ? 'required' : 'none') }),
    config: t.field({ type: SelfConfigApprovalMode, resolve: (a) => (a.includes('config') ? 'required' : 'none') }),
    workspaceFiles: t.field({ type: SelfConfigApprovalMode, resolve: (a) => (a.includes('workspaceFiles') ? 'required' : 'none') }),
    envVars: t.field({ type: SelfConfigApprovalMode, resolve: (a) => (a.includes('envVars') ? 'required' : 'none') }),
    required: t.stringList({ description: 'The categories that need approval; empty when none does.', resolve: (a) => a }),
  }),
});

const SelfConfigureRef = builder.objectRef<AgentView['selfConfigure']>('SelfConfigure').implement({
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    allowedActions: t.exposeStringList('allowedActions'),
    approval: t.field({ type: SelfConfigApprovalRef, description: 'SG3: which requests wait for approval; a deploy carries it to the instance.', resolve: (s) => s.approval }),
  }),
});

builder.node(AgentRef, {
  ...kindNode('agent'),
  fields: (t) => ({
    name: t.exposeString('name'),
    namespace: t.field({ type: NamespaceRef, nullable: true, resolve: (a, _x, ctx) => ctx.loaders.namespace.load(a.namespaceId) }),
    servicePrincipalId: t.exposeID('servicePrincipalId', { description: "The Agent's own service principal: grant it operate on the secrets it consumes." }),
    servicePrincipal: t.field({ type: PrincipalRef, nullable: true, resolve: (a, _x, ctx) => ctx.loaders.principal.load(a.servicePrincipalId) }),
    configuration: t.field({
      type: ConfigurationRef,
      nullable: true,
      resolve: (a, _x, ctx) => (a.joined ? a.joined.configuration : a.configurationId ? ctx.loaders.configuration.load(a.configurationId) : null),
    }),
    harnessAuth: t.field({ type: HarnessAuthRef, nullable: true, resolve: (a) => a.harnessAuth }),
    selfConfigure: t.field({ type: SelfConfigureRef, resolve: (a) => a.selfConfigure }),
    desiredState: t.exposeString('desiredState'),
    status: t.exposeString('status'),
    activeRevisionId: t.exposeID('activeRevisionId', { nullable: true }),
    missingGrants: t.field({
      type: [MissingGrantRef],
      description: "A3: the grants the Agent's service principal still needs to consume its selection (operate on each secret).",
      resolve: (a, _x, ctx) => ctx.loaders.missingGrants.load(a),
    }),
    accessBindings: t.field({
      type: [AccessBindingRef],
      description: "The grants held by the Agent's service principal, those the caller may read.",
      resolve: (a, _x, ctx) => ctx.loaders.bindingsBySubject.load(a.servicePrincipalId),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.objectField(NamespaceRef, 'agents', (t) =>
  t.connection(
    {
      type: AgentRef,
      args: { namePrefix: t.arg.string(), status: t.arg.string({ description: 'Only agents in this status.' }), order: t.arg(ORDER_ARG) },
      resolve: async (ns, args, ctx, info) => {
        // A page that shows each agent's configuration reads it, and its bindings' secrets, in the
        // page's own statement (services/agents.ts AgentReads).
        const at = (...path: string[]) => selects(info, ['edges', 'node', 'configuration', ...path]);
        const secrets = secretColumnsFor(fieldsAt(info, ['edges', 'node', 'configuration', 'secretBindings', 'secret']));
        const configuration = at() ? { values: at('values'), secretBindings: at('secretBindings'), secrets } : null;
        const filter = { namePrefix: textFilter(args.namePrefix, 'namePrefix'), status: textFilter(args.status, 'status') };
        const status = selects(info, ['edges', 'node', 'status']);
        return toConnection(await listAgents(ctx.deps, actorOf(ctx), ns.id, pageRequest(args), filter, { configuration, status }));
      },
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
);

builder.queryField('agent', (t) =>
  t.field({
    type: AgentRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => kinds.get(ctx.deps, actorOf(ctx), 'agent', id),
  }),
);

const HarnessAuthInput = builder.inputType('HarnessAuthInput', {
  fields: (t) => ({
    provider: t.string({ required: true, description: 'openai, anthropic, google, mistral, groq, openrouter, xai, deepseek' }),
    source: t.field({ type: SecretRefInput, required: true }),
  }),
});

const SelfConfigApprovalInput = builder.inputType('SelfConfigApprovalInput', {
  description: 'SG3: e.g. {default: none, skills: required}: requests adding or removing skills wait for approval, the rest apply.',
  fields: (t) => ({
    default: t.field({ type: SelfConfigApprovalMode, description: 'For every category not named here; none when absent.' }),
    skills: t.field({ type: SelfConfigApprovalMode }),
    config: t.field({ type: SelfConfigApprovalMode }),
    workspaceFiles: t.field({ type: SelfConfigApprovalMode }),
    envVars: t.field({ type: SelfConfigApprovalMode }),
  }),
});

const SelfConfigureInput = builder.inputType('SelfConfigureInput', {
  fields: (t) => ({
    enabled: t.boolean({ required: true }),
    allowedActions: t.stringList({ required: true, description: 'skills, config, workspaceFiles, envVars' }),
    approval: t.field({
      type: SelfConfigApprovalInput,
      description: 'SG3: which requests wait for an administrator. Absent: none does. Each category left out takes default, and default left out is none.',
    }),
  }),
});

const CreateAgentInput = builder.inputType('CreateAgentInput', {
  fields: (t) => ({
    namespaceId: t.id({ required: true }),
    name: t.string({ required: true }),
    configurationId: t.id(),
    harnessAuth: t.field({ type: HarnessAuthInput }),
    selfConfigure: t.field({ type: SelfConfigureInput }),
  }),
});

const UpdateAgentInput = builder.inputType('UpdateAgentInput', {
  fields: (t) => ({
    id: t.id({ required: true }),
    configurationId: t.id({ description: 'Omitted: unchanged.' }),
    clearConfiguration: t.boolean(),
    harnessAuth: t.field({ type: HarnessAuthInput, description: 'Omitted: unchanged.' }),
    clearHarnessAuth: t.boolean(),
    selfConfigure: t.field({ type: SelfConfigureInput }),
  }),
});

const CreateAgentSuccess = builder.objectRef<{ agent: AgentView }>('CreateAgentSuccess').implement({
  fields: (t) => ({
    agent: t.field({ type: AgentRef, resolve: (r) => r.agent }),
    servicePrincipalId: t.id({ description: "The Agent's new service principal.", resolve: (r) => r.agent.servicePrincipalId }),
  }),
});
const UpdateAgentSuccess = builder.objectRef<{ agent: AgentView }>('UpdateAgentSuccess').implement({
  fields: (t) => ({ agent: t.field({ type: AgentRef, resolve: (r) => r.agent }) }),
});

const AGENT_ERRORS = [ValidationError, NotFoundError, ForbiddenError, ConflictError];

builder.mutationFields((t) => ({
  createAgent: t.field({
    type: CreateAgentSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateAgentInput, required: true }) },
    errors: { types: AGENT_ERRORS, union: { name: 'CreateAgentResult' } },
    resolve: async (_root, { input }, ctx) => ({ agent: await createAgent(ctx.deps, actorOf(ctx), input) }),
  }),
  updateAgent: t.field({
    type: UpdateAgentSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: UpdateAgentInput, required: true }) },
    errors: { types: AGENT_ERRORS, union: { name: 'UpdateAgentResult' } },
    resolve: async (_root, { input }, ctx) => ({ agent: await updateAgent(ctx.deps, actorOf(ctx), input) }),
  }),
}));
