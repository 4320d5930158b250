import type { SystemActor } from '../../services/audit.ts';
import { listAuditEvents, type AuditEventView } from '../../services/audit-log.ts';
import { actorOf, builder } from '../builder.ts';
import { pageRequest, textFilter, toConnection, totalCount } from '../connections.ts';
import { PrincipalRef } from './principal.ts';

// The audit trail for auditors: who did what to which resource, with what outcome.

const AuditOutcomeEnum = builder.enumType('AuditOutcome', { values: ['SUCCESS', 'DENIED', 'FAILURE'] as const });

const SystemActorEnum = builder.enumType('SystemActor', {
  description: 'A part of the control plane that acts on its own, named on the events it writes instead of a principal.',
  values: {
    WORKER: { value: 'worker', description: 'Runs queued work: deploys and their revisions, namespace provisioning, rollout batches.' },
    RECONCILER: { value: 'reconciler', description: 'Repairs drift and records what changed outside the product (a lost namespace, a secret changed in Kubernetes, retired versions).' },
    INSTALLER: { value: 'installer', description: 'Bootstraps the installation.' },
  } satisfies Record<string, { value: SystemActor; description: string }>,
});

const AuditEventRef = builder.objectRef<AuditEventView>('AuditEvent').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    at: t.expose('at', { type: 'DateTime' }),
    actorId: t.exposeID('actorId', { nullable: true, description: 'The principal that acted; null when a part of the control plane did (systemActor) and on anonymous refusals.' }),
    systemActor: t.field({ type: SystemActorEnum, nullable: true, description: 'Which part of the control plane acted, when no principal did; null with a principal and on anonymous refusals.', resolve: (e) => e.systemActor }),
    actor: t.field({ type: PrincipalRef, nullable: true, resolve: (e, _a, ctx) => (e.actorId ? ctx.loaders.principal.load(e.actorId) : null) }),
    action: t.exposeString('action'),
    resourceKind: t.exposeString('resourceKind'),
    resourceId: t.exposeID('resourceId', { nullable: true }),
    namespaceId: t.exposeID('namespaceId', { nullable: true }),
    outcome: t.field({ type: AuditOutcomeEnum, resolve: (e) => e.outcome }),
    reason: t.exposeString('reason', { nullable: true }),
    details: t.field({ type: 'JSON', description: 'Metadata only: names, versions, ids; never a value.', resolve: (e) => e.details }),
    count: t.exposeInt('count', { description: 'How many refusals the row stands for: 1, or more for coalesced anonymous refusals.' }),
  }),
});

export const AuditEventFilterInput = builder.inputType('AuditEventFilter', {
  fields: (t) => ({
    actorId: t.id(),
    systemActor: t.field({ type: SystemActorEnum }),
    action: t.string(),
    resourceKind: t.string(),
    resourceId: t.id(),
    namespaceId: t.id(),
    outcome: t.field({ type: AuditOutcomeEnum }),
    from: t.field({ type: 'DateTime', description: 'Events at or after this instant.' }),
    to: t.field({ type: 'DateTime', description: 'Events before this instant.' }),
  }),
});

builder.queryField('auditEvents', (t) =>
  t.connection(
    {
      type: AuditEventRef,
      description: 'Newest first. Installation administrators read every event; namespace administrators their namespaces’ events.',
      authScopes: { authenticated: true },
      args: { filter: t.arg({ type: AuditEventFilterInput }) },
      resolve: async (_root, args, ctx) => {
        const f = args.filter ?? {};
        const filter = {
          actorId: textFilter(f.actorId, 'filter.actorId'),
          systemActor: f.systemActor ?? null,
          action: textFilter(f.action, 'filter.action'),
          resourceKind: textFilter(f.resourceKind, 'filter.resourceKind'),
          resourceId: textFilter(f.resourceId, 'filter.resourceId'),
          namespaceId: textFilter(f.namespaceId, 'filter.namespaceId'),
          outcome: f.outcome ?? null,
          from: f.from ?? null,
          to: f.to ?? null,
        };
        return toConnection(await listAuditEvents(ctx.deps, actorOf(ctx), pageRequest(args), filter));
      },
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
);
