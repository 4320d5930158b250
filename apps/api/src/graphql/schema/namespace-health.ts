import type { NamespaceHealth } from '../../services/namespace-health.ts';
import { builder } from '../builder.ts';
import { NamespaceRef } from './namespace.ts';

// Namespace.health: services/namespace-health.ts, batched per page of namespaces (loaders.ts).

const HealthStatusEnum = builder.enumType('NamespaceHealthStatus', {
  values: {
    OK: { description: 'Nothing failing, nothing stale, nothing waiting.' },
    ATTENTION: { description: 'A secret is stale (rotated under a running revision), or a rotation rollout or a SelfConfig request waits for an approval.' },
    FAILING: { description: 'An agent failed or is degraded, or the namespace itself failed or was lost.' },
  } as const,
});

const AgentCountsRef = builder.objectRef<NamespaceHealth['agents']>('NamespaceAgentCounts').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    running: t.exposeInt('running'),
    failing: t.exposeInt('failing', { description: 'Failed or degraded (the agents list’s status filter: failed, degraded).' }),
    failed: t.exposeInt('failed'),
    degraded: t.exposeInt('degraded'),
    deploying: t.exposeInt('deploying'),
  }),
});

const SecretCountsRef = builder.objectRef<NamespaceHealth['secrets']>('NamespaceSecretCounts').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    stale: t.exposeInt('stale', { description: 'Held by a running revision at an older version (the secrets list’s stale filter).' }),
  }),
});

const HealthRef = builder.objectRef<NamespaceHealth>('NamespaceHealth').implement({
  description: 'The namespace at a glance, counted over what the viewer may read of it.',
  fields: (t) => ({
    status: t.field({ type: HealthStatusEnum, resolve: (h) => h.status }),
    agents: t.field({ type: AgentCountsRef, resolve: (h) => h.agents }),
    secrets: t.field({ type: SecretCountsRef, resolve: (h) => h.secrets }),
    rolloutsAwaitingApproval: t.exposeInt('rolloutsAwaitingApproval'),
    selfConfigAwaitingApproval: t.exposeInt('selfConfigAwaitingApproval', {
      description: 'SG3: SelfConfig requests of agents the viewer may read that wait for an administrator’s decision.',
    }),
    recentFailures: t.exposeInt('recentFailures', {
      nullable: true,
      description:
        'Audit events with outcome FAILURE since recentFailuresSince (the audit log filtered by namespace, outcome and time); null when the viewer may read none of the namespace’s audit log. Past failures do not change the status.',
    }),
    recentFailuresSince: t.expose('recentFailuresSince', { type: 'DateTime', description: 'The start of the window recentFailures counts: 24 hours before the answer.' }),
  }),
});

builder.objectField(NamespaceRef, 'health', (t) =>
  t.field({
    type: HealthRef,
    description: 'Agents by status, secrets and stale ones, rollouts and SelfConfig requests waiting, recent failures, and one word for them; only what the viewer may read is counted.',
    resolve: (ns, _a, ctx) => ctx.loaders.namespaceHealth.load({ id: ns.id, status: ns.status }),
  }),
);
