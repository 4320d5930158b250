import { ConfigurationInUseError, ConflictError, ForbiddenError, NotFoundError, ValidationError, type ConfigurationConsumers } from '@occ/domain/errors';
import type { SecretBinding } from '@occ/domain/configuration';
import { createConfiguration, listConfigurations, updateConfiguration, type BindingView, type ConfigurationView } from '../../services/configurations.ts';
import { deleteConfiguration } from '../../services/delete-configuration.ts';
import { listGenerations, type ConfigurationGenerationView } from '../../services/configuration-generations.ts';
import { actorOf, builder, kindNode } from '../builder.ts';
import { decodeNumberCursor, encodeNumberCursor, pageRequest, textFilter, toConnection, totalCount } from '../connections.ts';
import { selects } from '../lookahead.ts';
import { ErrorInterface } from './errors.ts';
import { NamespaceRef } from './namespace.ts';
import { PrincipalRef } from './principal.ts';
import { SecretRef, SecretReferenceRef } from './secret.ts';
import { kinds } from '../../services/resource-kinds.ts';
import { ORDER_ARG } from './list-order.ts';

export const ConfigurationRef = builder.objectRef<ConfigurationView>('Configuration');

const BindingDeliveryRef = builder.objectRef<SecretBinding['delivery']>('BindingDelivery').implement({
  fields: (t) => ({ type: t.exposeString('type') }),
});

const SecretBindingRef = builder.objectRef<BindingView>('SecretBinding').implement({
  description: 'envName → secret, delivered to the gateway as env through secretKeyRef (never as a value).',
  fields: (t) => ({
    envName: t.exposeString('envName'),
    source: t.field({ type: SecretReferenceRef, resolve: (b) => b.source }),
    delivery: t.field({ type: BindingDeliveryRef, resolve: (b) => b.delivery }),
    secret: t.field({
      type: SecretRef,
      nullable: true,
      description: 'The bound secret, when the caller may read it.',
      resolve: (b, _args, ctx) => (b.joined ? b.joined.secret : ctx.loaders.secret.load(b.source.id)),
    }),
  }),
});

builder.node(ConfigurationRef, {
  ...kindNode('configuration'),
  fields: (t) => ({
    name: t.exposeString('name'),
    generation: t.exposeInt('generation'),
    values: t.field({ type: 'JSON', description: 'The native OpenClaw document: references only.', resolve: (c) => c.values }),
    secretBindings: t.field({ type: [SecretBindingRef], resolve: (c) => c.secretBindings }),
    namespace: t.field({ type: NamespaceRef, nullable: true, resolve: (c, _a, ctx) => ctx.loaders.namespace.load(c.namespaceId) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ConfigurationGenerationRef = builder.objectRef<ConfigurationGenerationView>('ConfigurationGeneration').implement({
  description: 'One accepted generation of a configuration (C5), as it was written: values (references only) and bindings as references.',
  fields: (t) => ({
    generation: t.exposeInt('generation'),
    values: t.field({ type: 'JSON', description: 'The native OpenClaw document at this generation: references only.', resolve: (g) => g.values }),
    secretBindings: t.field({ type: [SecretBindingRef], description: "Each binding's secret is null when the caller may not read it.", resolve: (g) => g.secretBindings }),
    createdBy: t.field({
      type: PrincipalRef,
      nullable: true,
      description: 'Who made this generation.',
      resolve: (g, _a, ctx) => ctx.loaders.principal.load(g.createdById),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.objectField(ConfigurationRef, 'generations', (t) =>
  t.connection(
    {
      type: ConfigurationGenerationRef,
      description: 'The accepted generations, newest first (same access as the configuration).',
      resolve: async (cfg, args, ctx) => {
        const page = pageRequest(args, decodeNumberCursor);
        // The first page, as a list of configurations asks for it, is batched across them (loaders.ts).
        if (page.direction === 'forward' && !page.after && !page.before) {
          return toConnection(await ctx.loaders.generationPages.load({ configurationId: cfg.id, namespaceId: cfg.namespaceId, generation: cfg.generation, size: page.size }), encodeNumberCursor);
        }
        return toConnection(await listGenerations(ctx.deps.db, cfg, page), encodeNumberCursor);
      },
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
);

builder.objectField(NamespaceRef, 'configurations', (t) =>
  t.connection(
    {
      type: ConfigurationRef,
      args: { namePrefix: t.arg.string(), order: t.arg(ORDER_ARG) },
      resolve: async (ns, args, ctx, info) =>
        toConnection(
          await listConfigurations(ctx.deps, actorOf(ctx), ns.id, pageRequest(args), { namePrefix: textFilter(args.namePrefix, 'namePrefix') }, {
            values: selects(info, ['edges', 'node', 'values']),
            secretBindings: selects(info, ['edges', 'node', 'secretBindings']),
          }),
        ),
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
);

builder.queryField('configuration', (t) =>
  t.field({
    type: ConfigurationRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => kinds.get(ctx.deps, actorOf(ctx), 'configuration', id),
  }),
);

export const SecretRefInput = builder.inputType('SecretRefInput', {
  fields: (t) => ({
    kind: t.string({ description: 'Only "secret" (the default).' }),
    namespaceId: t.id({ description: "Defaults to the owner's namespace; another namespace's secret is NOT_FOUND." }),
    id: t.id({ required: true }),
  }),
});

const SecretBindingInput = builder.inputType('SecretBindingInput', {
  fields: (t) => ({
    envName: t.string({ required: true }),
    source: t.field({ type: SecretRefInput, required: true }),
    delivery: t.field({ type: builder.inputType('BindingDeliveryInput', { fields: (d) => ({ type: d.string() }) }) }),
  }),
});

const CreateConfigurationInput = builder.inputType('CreateConfigurationInput', {
  fields: (t) => ({
    namespaceId: t.id({ required: true }),
    name: t.string({ required: true }),
    values: t.field({ type: 'JSON', required: true }),
    secretBindings: t.field({ type: [SecretBindingInput] }),
  }),
});

const UpdateConfigurationInput = builder.inputType('UpdateConfigurationInput', {
  fields: (t) => ({
    id: t.id({ required: true }),
    expectedGeneration: t.int({ required: true, description: 'The generation you read; a stale one is a CONFLICT.' }),
    values: t.field({ type: 'JSON', description: 'Omitted: unchanged.' }),
    secretBindings: t.field({ type: [SecretBindingInput], description: 'Omitted: retained (and re-checked). An empty list clears them.' }),
  }),
});

const ConfigurationSuccess = (name: string) =>
  builder.objectRef<{ configuration: ConfigurationView }>(name).implement({
    fields: (t) => ({ configuration: t.field({ type: ConfigurationRef, resolve: (r) => r.configuration }) }),
  });
const CreateConfigurationSuccess = ConfigurationSuccess('CreateConfigurationSuccess');
const UpdateConfigurationSuccess = ConfigurationSuccess('UpdateConfigurationSuccess');

const CONFIGURATION_ERRORS = [ValidationError, NotFoundError, ForbiddenError, ConflictError];

builder.mutationFields((t) => ({
  createConfiguration: t.field({
    type: CreateConfigurationSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateConfigurationInput, required: true }) },
    errors: { types: CONFIGURATION_ERRORS, union: { name: 'CreateConfigurationResult' } },
    resolve: async (_root, { input }, ctx) => ({ configuration: await createConfiguration(ctx.deps, actorOf(ctx), input) }),
  }),
  updateConfiguration: t.field({
    type: UpdateConfigurationSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: UpdateConfigurationInput, required: true }) },
    errors: { types: CONFIGURATION_ERRORS, union: { name: 'UpdateConfigurationResult' } },
    resolve: async (_root, { input }, ctx) => ({ configuration: await updateConfiguration(ctx.deps, actorOf(ctx), input) }),
  }),
}));

const ConfigurationAgentRef = builder.objectRef<ConfigurationConsumers['items'][number]>('ConfigurationAgent').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

const ConfigurationConsumersRef = builder.objectRef<ConfigurationConsumers>('ConfigurationConsumers').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    hiddenCount: t.exposeInt('hiddenCount', { description: 'Agents the caller may not read: counted, not named.' }),
    items: t.field({ type: [ConfigurationAgentRef], resolve: (c) => c.items }),
  }),
});

builder.objectType(ConfigurationInUseError, {
  name: 'ConfigurationInUseError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ agents: t.field({ type: ConfigurationConsumersRef, resolve: (e) => e.agents }) }),
});

const DeleteConfigurationInput = builder.inputType('DeleteConfigurationInput', { fields: (t) => ({ id: t.id({ required: true }) }) });

const DeleteConfigurationSuccess = builder.objectRef<{ deletedConfigurationId: string }>('DeleteConfigurationSuccess').implement({
  fields: (t) => ({ deletedConfigurationId: t.exposeID('deletedConfigurationId') }),
});

builder.mutationField('deleteConfiguration', (t) =>
  t.field({
    type: DeleteConfigurationSuccess,
    description: 'Refused with CONFIGURATION_IN_USE, naming the agents, while any agent selects it.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: DeleteConfigurationInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError, ConfigurationInUseError], union: { name: 'DeleteConfigurationResult' } },
    resolve: (_root, { input }, ctx) => deleteConfiguration(ctx.deps, actorOf(ctx), input),
  }),
);
