import { ConflictError, ForbiddenError, NamespaceNotReadyError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { revisionDiff, type BindingChange, type BindingEnd, type RevisionDiff, type ValueChange, type VersionChange } from '../../services/revision-diff.ts';
import { rollbackAgent, type RollbackDelivery, type RollbackResult } from '../../services/rollback-agent.ts';
import { actorOf, builder } from '../builder.ts';
import { AgentRevisionRef } from './deploy.ts';
import { SelfConfigRequestRef } from './selfconfig.ts';

// V7: rollbackAgent and AgentRevision.diff. References, names and version numbers only: a
// revision's frozen document holds references, never a secret value.

const RollbackDeliveryRef = builder.objectRef<RollbackDelivery>('RollbackDelivery').implement({
  description: 'Per binding (and harnessAuth): the version the earlier revision delivered, and the one the new revision delivers.',
  fields: (t) => ({
    purpose: t.exposeString('purpose'),
    envName: t.exposeString('envName'),
    secretId: t.exposeID('secretId'),
    requestedVersion: t.exposeInt('requestedVersion', { description: 'The version the revision rolled back to delivered.' }),
    versionUsed: t.exposeInt('versionUsed', { description: 'The version the new revision delivers.' }),
    requestedVersionRetained: t.exposeBoolean('requestedVersionRetained', { description: 'False when the requested version is no longer kept, so the current one is delivered instead.' }),
  }),
});

const RollbackAgentSuccess = builder.objectRef<RollbackResult>('RollbackAgentSuccess').implement({
  fields: (t) => ({
    revision: t.field({ type: AgentRevisionRef, description: 'The new revision, queued for the worker.', resolve: (r) => r.revision }),
    rolledBackTo: t.field({ type: AgentRevisionRef, description: 'The earlier revision whose frozen configuration and bindings it carries.', resolve: (r) => r.from }),
    deliveries: t.field({ type: [RollbackDeliveryRef], resolve: (r) => r.deliveries }),
  }),
});

const RollbackAgentInput = builder.inputType('RollbackAgentInput', {
  fields: (t) => ({ agentId: t.id({ required: true }), toRevision: t.id({ required: true, description: 'An earlier revision of this agent that became active.' }) }),
});

builder.mutationField('rollbackAgent', (t) =>
  t.field({
    type: RollbackAgentSuccess,
    description: 'V7: deploys a new revision from an earlier revision’s frozen configuration and bindings, through every deploy check (D1–D4).',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RollbackAgentInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError, ConflictError, NamespaceNotReadyError], union: { name: 'RollbackAgentResult' } },
    resolve: (_root, { input }, ctx) => rollbackAgent(ctx.deps, actorOf(ctx), { agentId: String(input.agentId), toRevision: String(input.toRevision) }),
  }),
);

const DiffChangeEnum = builder.enumType('RevisionDiffChange', {
  values: { ADDED: { value: 'added' }, REMOVED: { value: 'removed' }, CHANGED: { value: 'changed' }, RETARGETED: { value: 'retargeted' } } as const,
});

const ValueChangeRef = builder.objectRef<ValueChange>('RevisionValueChange').implement({
  description: 'A key of the frozen document that differs: values as the document holds them (references, never a secret value).',
  fields: (t) => ({
    path: t.exposeStringList('path'),
    change: t.field({ type: DiffChangeEnum, resolve: (c) => c.change }),
    before: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.before ?? null }),
    after: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.after ?? null }),
  }),
});

const BindingEndRef = builder.objectRef<BindingEnd>('RevisionBindingEnd').implement({
  fields: (t) => ({ secretId: t.exposeID('secretId'), version: t.exposeInt('version') }),
});

const BindingChangeRef = builder.objectRef<BindingChange>('RevisionBindingChange').implement({
  fields: (t) => ({
    purpose: t.exposeString('purpose'),
    envName: t.exposeString('envName'),
    change: t.field({ type: DiffChangeEnum, resolve: (c) => c.change }),
    before: t.field({ type: BindingEndRef, nullable: true, resolve: (c) => c.before }),
    after: t.field({ type: BindingEndRef, nullable: true, resolve: (c) => c.after }),
  }),
});

const VersionChangeRef = builder.objectRef<VersionChange>('RevisionVersionChange').implement({
  description: 'A binding to the same secret delivering another version.',
  fields: (t) => ({
    purpose: t.exposeString('purpose'),
    envName: t.exposeString('envName'),
    secretId: t.exposeID('secretId'),
    fromVersion: t.exposeInt('fromVersion'),
    toVersion: t.exposeInt('toVersion'),
  }),
});

const RevisionDiffRef = builder.objectRef<RevisionDiff>('RevisionDiff').implement({
  description: 'V7: from the revision given as `against` (before) to this one (after).',
  fields: (t) => ({
    from: t.field({ type: AgentRevisionRef, resolve: (d) => d.from }),
    to: t.field({ type: AgentRevisionRef, resolve: (d) => d.to }),
    configurationChanged: t.exposeBoolean('configurationChanged', { description: 'Another configuration or generation was frozen.' }),
    values: t.field({ type: [ValueChangeRef], resolve: (d) => d.values }),
    bindings: t.field({ type: [BindingChangeRef], description: 'Added, removed or retargeted (another secret under the same env name).', resolve: (d) => d.bindings }),
    versions: t.field({ type: [VersionChangeRef], resolve: (d) => d.versions }),
    selfConfigRequests: t.field({
      type: [SelfConfigRequestRef],
      description: 'SelfConfig requests applied to the agent between the two deploys (empty unless you may read the agent).',
      resolve: (d) => d.selfConfigRequests,
    }),
  }),
});

builder.objectField(AgentRevisionRef, 'diff', (t) =>
  t.field({
    type: RevisionDiffRef,
    description: 'V7: what changed from `against` to this revision: configuration keys, bindings, secret versions and the SelfConfig changes in between.',
    args: { against: t.arg.id({ required: true }) },
    errors: { types: [NotFoundError, ValidationError], union: { name: 'RevisionDiffResult' } },
    resolve: (r, { against }, ctx) => revisionDiff(ctx.deps, actorOf(ctx), r, String(against)),
  }),
);
