import { ForbiddenError, NotFoundError } from '@occ/domain/errors';
import { redeployConsumers, type ConsumerRedeploy, type RedeployConsumersResult } from '../../services/redeploy-consumers.ts';
import type { StaleConsumer, StaleConsumers } from '../../services/secret-drift.ts';
import { actorOf, builder } from '../builder.ts';
import { AgentRevisionRef, RevisionStateEnum } from './deploy.ts';
import { SecretRef } from './secret.ts';

// W7, S6: which running revisions hold an older version of a secret, and redeploying them.

const StaleRedeployRef = builder.objectRef<NonNullable<StaleConsumer['redeploy']>>('StaleConsumerRedeploy').implement({
  description: "The agent's newest revision after the stale one: the redeploy's progress.",
  fields: (t) => ({
    revisionId: t.exposeID('revisionId'),
    number: t.exposeInt('number'),
    state: t.field({ type: RevisionStateEnum, resolve: (r) => r.state }),
    failureCode: t.exposeString('failureCode', { nullable: true }),
  }),
});

const StaleConsumerRef = builder.objectRef<StaleConsumer>('StaleConsumer').implement({
  description: 'A running revision that holds an older version of the secret than the one stored.',
  fields: (t) => ({
    revisionId: t.exposeID('revisionId'),
    revisionNumber: t.exposeInt('revisionNumber'),
    agentId: t.exposeID('agentId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    envName: t.exposeString('envName'),
    purpose: t.exposeString('purpose', { description: 'binding (gateway env) or harnessAuth (the model workload).' }),
    deliveredVersion: t.exposeInt('deliveredVersion'),
    currentVersion: t.exposeInt('currentVersion'),
    redeploy: t.field({ type: StaleRedeployRef, nullable: true, resolve: (c) => c.redeploy }),
  }),
});

const StaleConsumersRef = builder.objectRef<StaleConsumers>('StaleConsumers').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    hiddenCount: t.exposeInt('hiddenCount', { description: 'Stale revisions the caller may not read: counted, not named.' }),
    items: t.field({ type: [StaleConsumerRef], resolve: (c) => c.items }),
  }),
});

builder.objectField(SecretRef, 'staleConsumers', (t) =>
  t.field({
    type: StaleConsumersRef,
    description: 'W7: running revisions that hold an older version than this one. Poll it during redeployConsumers: each item shows its redeploy, and leaves once that is active.',
    resolve: (s, _args, ctx) => ctx.loaders.staleConsumers.load(s.id),
  }),
);

const RedeployOutcomeEnum = builder.enumType('ConsumerRedeployOutcome', { values: ['STARTED', 'IN_PROGRESS', 'REFUSED'] as const });

const ConsumerRedeployRef = builder.objectRef<ConsumerRedeploy>('ConsumerRedeploy').implement({
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    outcome: t.field({ type: RedeployOutcomeEnum, resolve: (r) => r.outcome }),
    revision: t.field({ type: AgentRevisionRef, nullable: true, description: 'STARTED: the revision queued.', resolve: (r) => (r.outcome === 'STARTED' ? r.revision : null) }),
    inProgressRevisionId: t.id({ nullable: true, description: 'IN_PROGRESS: the revision already on its way.', resolve: (r) => (r.outcome === 'IN_PROGRESS' ? r.revisionId : null) }),
    errorCode: t.string({ nullable: true, description: "REFUSED: deployAgent's error code for this agent.", resolve: (r) => r.error?.code ?? null }),
    errorMessage: t.string({ nullable: true, resolve: (r) => r.error?.message ?? null }),
  }),
});

const RedeployConsumersInput = builder.inputType('RedeployConsumersInput', { fields: (t) => ({ secretId: t.id({ required: true }) }) });

const RedeployConsumersSuccess = builder.objectRef<RedeployConsumersResult>('RedeployConsumersSuccess').implement({
  fields: (t) => ({
    secret: t.field({ type: SecretRef, resolve: (r) => r.secret }),
    redeploys: t.field({ type: [ConsumerRedeployRef], description: 'One per agent with a stale running revision.', resolve: (r) => r.redeploys }),
  }),
});

builder.mutationField('redeployConsumers', (t) =>
  t.field({
    type: RedeployConsumersSuccess,
    description: 'W7: deploys each agent whose running revision holds an older version of the secret. Each is an ordinary deployAgent with its own checks.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RedeployConsumersInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError], union: { name: 'RedeployConsumersResult' } },
    resolve: (_root, { input }, ctx) => redeployConsumers(ctx.deps, actorOf(ctx), { secretId: String(input.secretId) }),
  }),
);
