import { effectiveRotationPolicy } from '@occ/domain/secret-rotation';
import { rolloutsOfSecrets, type RolloutView } from '../services/secret-rollouts.ts';
import DataLoader from 'dataloader';
import { type AccessRequest, type Action, type Decision, type ReadableSet, type ResourceKind } from '@occ/domain/access';
import type { MissingGrant } from '@occ/domain/errors';
import type { SecretConsumers } from '@occ/domain/errors';
import { sql, sqlRows } from '../db/sql.ts';
import { kinds, RESOURCE_KINDS, type RegisteredKind, type ViewOf } from '../services/resource-kinds.ts';
import { decider, permissionSets } from '../services/access.ts';
import { canSeeBinding } from '../services/access-queries.ts';
import { findBindings, type AccessBindingView } from '../services/access-scope.ts';
import { agentRuntimes, type AgentRuntimeView } from '../services/agent-runtime.ts';
import { agentInstances, instanceFieldOwnership, type InstanceFieldOwnership } from '../services/instance-field-ownership.ts';
import { selfConfigBudgets, type SelfConfigBudgetView } from '../services/selfconfig-budget-view.ts';
import type { InstanceObject } from '../selfconfig/cluster.ts';
import { agentsMissingGrants, type AgentView } from '../services/agents.ts';
import { firstGenerationPages, type ConfigurationGenerationView, type FirstGenerationPageRequest } from '../services/configuration-generations.ts';
import type { Actor, Deps } from '../services/deps.ts';
import { staleRevisionsOf, visibleStaleConsumers, type StaleConsumers } from '../services/secret-drift.ts';
import { exposureOfSecrets, versionsOfSecrets, type SecretExposure, type SecretVersionView } from '../services/secret-versions.ts';
import { secretReferenceGraphs, type SecretReferenceGraph } from '../services/secret-references.ts';
import { configurationBlastRadii, secretBlastRadii, type BlastRadius } from '../services/blast-radius.ts';
import type { PageOf } from '../services/pagination.ts';
import { firstRevisionPages, type FirstRevisionPageRequest, type RevisionView } from '../services/revisions.ts';
import { consumersOfSecrets, type SecretView } from '../services/secrets.ts';
import { namespaceReferenceGraphs } from '../services/namespace-references.ts';
import type { ReferenceGraph } from '@occ/domain/reference-graph';
import { namespaceHealths, type NamespaceHealth } from '../services/namespace-health.ts';

// Per-request batching: fields that point at other records (Agent.configuration, a binding's
// secret, Agent.servicePrincipal …) load through these, so reading N agents costs a constant
// number of SQL statements, not N of each. Reads filter by the caller's access, decided in memory
// from the bindings loaded once per request.

/** One loader per registered kind (services/resource-kinds.ts): by id, those the caller may read. */
export type KindLoaders = { [K in RegisteredKind]: DataLoader<string, ViewOf<K> | null> };

export interface Loaders extends KindLoaders {
  may(request: Omit<AccessRequest, 'subjectId'>): Promise<Decision>;
  principal: DataLoader<string, { principalId: string; kind: 'HUMAN' | 'SERVICE'; name: string; disabledAt: Date | null; createdAt: Date } | null>;
  /** A3: per agent, the grants its service principal still needs (two statements for a page). */
  missingGrants: DataLoader<AgentView, MissingGrant[], string>;
  /** S7's consumers of each secret, those the caller may not read counted only: three statements per page. */
  secretConsumers: DataLoader<string, SecretConsumers>;
  /** W7: per secret, the running revisions holding an older version (one statement per page). */
  staleConsumers: DataLoader<string, StaleConsumers>;
  /** V5: a secret's versions, newest first, and who runs which. */
  secretVersions: DataLoader<string, SecretVersionView[]>;
  secretExposure: DataLoader<string, SecretExposure>;
  /** V4: per secret, its newest rollouts (two statements a page). */
  secretRollouts: DataLoader<string, RolloutView[]>;
  /** Per namespace, what the caller may read of its agents and secrets, counted (three statements a page). */
  namespaceHealth: DataLoader<{ id: string; status: string }, NamespaceHealth, string>;
  /** V4: per namespace, the default rotation policy of its secrets. */
  namespaceRotationPolicy: DataLoader<string, unknown>;
  /** V4: per secret, the policy in effect and where it comes from. */
  secretRotationPolicy: DataLoader<string, ReturnType<typeof effectiveRotationPolicy>>;
  /** Per namespace, its whole reference graph as the caller may see it (five statements per page). */
  namespaceReferences: DataLoader<string, ReferenceGraph>;
  /** Per secret, its reference graph, unreadable nodes counted only (three statements per page). */
  secretReferences: DataLoader<SecretView, SecretReferenceGraph, string>;
  /** V6: per secret and per configuration, what a rotate, update or delete would touch (three statements per page). */
  secretBlastRadius: DataLoader<{ id: string; version: number }, BlastRadius, string>;
  configurationBlastRadius: DataLoader<{ id: string; name: string; generation: number }, BlastRadius, string>;
  /** The first page of each agent's revisions (Agent.revisions without a cursor), for a page of agents at once. */
  revisionPages: DataLoader<FirstRevisionPageRequest, PageOf<RevisionView>, string>;
  /** The first page of each configuration's generations (Configuration.generations without a cursor), for a page of configurations at once. */
  generationPages: DataLoader<FirstGenerationPageRequest, PageOf<ConfigurationGenerationView, number>, string>;
  /** RC6: what the reconciler last observed of each agent's gateway (reached only through an agent the caller reads). */
  agentRuntime: DataLoader<string, AgentRuntimeView | null>;
  /** A page's agents' OpenClawInstances, in one Kubernetes list per namespace (Agent.fieldOwnership, Agent.selfConfigBudget). */
  agentInstance: DataLoader<AgentView, InstanceObject | null, string>;
  /** Agent.fieldOwnership: from agentInstance. */
  fieldOwnership: DataLoader<AgentView, InstanceFieldOwnership | null, string>;
  /** Agent.selfConfigBudget (SG4): from agentInstance and three statements a page. */
  selfConfigBudget: DataLoader<AgentView, SelfConfigBudgetView, string>;
  /** The access bindings of a subject that the caller may read (its own, or at scopes it may read). */
  bindingsBySubject: DataLoader<string, AccessBindingView[]>;
}

function byId<T extends { id: string }>(ids: readonly string[], rows: T[]): Array<T | null> {
  const map = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => map.get(id) ?? null);
}

export function createLoaders(deps: Deps, actor: Actor | null): Loaders {
  let deciding: Promise<(r: Omit<AccessRequest, 'subjectId'>) => Decision> | null = null;
  /** Whether the caller may make each request: the request's one decider, or no to everything for an anonymous caller. */
  const mayRead = async (): Promise<(request: Omit<AccessRequest, 'subjectId'>) => boolean> => {
    if (!actor) return () => false;
    const decide = await (deciding ??= decider(deps.db, actor));
    return (request) => decide(request).allowed;
  };
  const may = async (request: Omit<AccessRequest, 'subjectId'>): Promise<Decision> => {
    if (!actor) return { allowed: false, request: { ...request, subjectId: '' }, evidence: [] };
    deciding ??= decider(deps.db, actor);
    return (await deciding)(request);
  };
  // A batch is filtered with the set of scopes where the caller reads the kind, read once per
  // request: the same answer as a decision per row (covers, property-tested against decide in
  // the domain package), without an awaited decision and its evidence for each of a page's rows.
  let sets: Promise<(action: Action, kind: ResourceKind) => ReadableSet> | null = null;
  const readSet = async (kind: ResourceKind): Promise<ReadableSet | null> => (actor ? (await (sets ??= permissionSets(deps.db, actor)))('read', kind) : null);
  const kindLoader = <K extends RegisteredKind>(kind: K) => new DataLoader<string, ViewOf<K> | null>((ids) => kinds.readableByIds(deps.db, kind, ids, readSet));
  const kindLoaders = Object.fromEntries(Object.keys(RESOURCE_KINDS).map((kind) => [kind, kindLoader(kind as RegisteredKind)])) as KindLoaders;

  const loaders: Loaders = {
    ...kindLoaders,
    may,
    principal: new DataLoader(async (ids) => {
      const rows = await sqlRows<{ id: string; kind: 'HUMAN' | 'SERVICE'; name: string; disabledAt: Date | null; createdAt: Date }>(
        deps.db,
        sql`SELECT "id", "kind"::text AS "kind", "name", "disabledAt", "createdAt" FROM "public"."Principal" WHERE "id" = ANY(${[...ids]}::text[])`,
      );
      return byId(ids, rows).map((p) => (p ? { principalId: p.id, kind: p.kind, name: p.name, disabledAt: p.disabledAt, createdAt: p.createdAt } : null));
    }),
    missingGrants: new DataLoader((agents) => agentsMissingGrants(deps.db, agents), { cacheKeyFn: (agent) => agent.id }),
    secretConsumers: new DataLoader(async (secretIds) => {
      const byId = await consumersOfSecrets(deps.db, await mayRead(), secretIds);
      return secretIds.map((id) => byId.get(id)!);
    }),
    staleConsumers: new DataLoader(async (secretIds) => {
      const may = await mayRead();
      const bySecret = await staleRevisionsOf(deps.db, secretIds);
      return secretIds.map((id) => visibleStaleConsumers(bySecret.get(id) ?? [], may));
    }),
    secretVersions: new DataLoader(async (secretIds) => {
      const bySecret = await versionsOfSecrets(deps.db, secretIds);
      return secretIds.map((id) => bySecret.get(id) ?? []);
    }),
    secretRollouts: new DataLoader(async (secretIds) => {
      const bySecret = await rolloutsOfSecrets(deps.db, secretIds);
      return secretIds.map((id) => bySecret.get(id) ?? []);
    }),
    secretRotationPolicy: new DataLoader(async (secretIds) => {
      const rows = await deps.db.secret.findMany({ where: { id: { in: [...secretIds] } }, select: { id: true, rotationPolicy: true, namespace: { select: { secretRotationPolicy: true } } } });
      const byId = new Map(rows.map((r) => [r.id, effectiveRotationPolicy(r.rotationPolicy, r.namespace.secretRotationPolicy)]));
      return secretIds.map((id) => byId.get(id) ?? effectiveRotationPolicy(null, null));
    }),
    namespaceHealth: namespaceHealthLoader(deps, actor, readSet),
    namespaceRotationPolicy: new DataLoader(async (namespaceIds) => {
      const rows = await deps.db.namespace.findMany({ where: { id: { in: [...namespaceIds] } }, select: { id: true, secretRotationPolicy: true } });
      const byId = new Map(rows.map((r) => [r.id, r.secretRotationPolicy]));
      return namespaceIds.map((id) => byId.get(id) ?? null);
    }),
    secretExposure: new DataLoader(async (secretIds) => {
      const bySecret = await exposureOfSecrets(deps.db, await mayRead(), secretIds);
      return secretIds.map((id) => bySecret.get(id)!);
    }),
    secretBlastRadius: new DataLoader(
      async (secrets) => {
        const bySecret = await secretBlastRadii(deps.db, await mayRead(), secrets);
        return secrets.map((s) => bySecret.get(s.id)!);
      },
      { cacheKeyFn: (s) => s.id },
    ),
    configurationBlastRadius: new DataLoader(
      async (configurations) => {
        const byConfiguration = await configurationBlastRadii(deps.db, await mayRead(), configurations);
        return configurations.map((c) => byConfiguration.get(c.id)!);
      },
      { cacheKeyFn: (c) => c.id },
    ),
    namespaceReferences: new DataLoader(async (namespaceIds) => {
      const byNamespace = await namespaceReferenceGraphs(deps.db, await mayRead(), namespaceIds);
      return namespaceIds.map((id) => byNamespace.get(id)!);
    }),
    secretReferences: new DataLoader(
      async (secrets) => {
        const bySecret = await secretReferenceGraphs(deps.db, await mayRead(), secrets);
        return secrets.map((s) => bySecret.get(s.id)!);
      },
      { cacheKeyFn: (s) => s.id },
    ),
    revisionPages: new DataLoader(async (requests) => (actor ? firstRevisionPages(deps, actor, requests) : requests.map(() => ({ edges: [], hasNextPage: false, hasPreviousPage: false, totalCount: async () => 0 }))), {
      cacheKeyFn: (r) => `${r.agentId}|${r.size}|${r.state ?? ''}`,
    }),
    // Reached only through a Configuration the caller could read (its own read check).
    generationPages: new DataLoader((requests) => firstGenerationPages(deps.db, requests), { cacheKeyFn: (r) => `${r.configurationId}|${r.generation}|${r.size}` }),
    agentRuntime: new DataLoader(async (agentIds) => {
      const byAgent = await agentRuntimes(deps.db, agentIds);
      return agentIds.map((id) => byAgent.get(id) ?? null);
    }),
    agentInstance: new DataLoader((agents) => agentInstances(deps, agents), { cacheKeyFn: (agent) => agent.id }),
    fieldOwnership: new DataLoader(async (agents) => (await loaders.agentInstance.loadMany(agents)).map((i) => (i instanceof Error ? i : instanceFieldOwnership(i))), { cacheKeyFn: (agent) => agent.id }),
    selfConfigBudget: new DataLoader(
      async (agents) => {
        const instances = await loaders.agentInstance.loadMany(agents);
        const failed = instances.find((i) => i instanceof Error);
        if (failed) throw failed;
        return selfConfigBudgets(deps, agents, instances as Array<InstanceObject | null>);
      },
      { cacheKeyFn: (agent) => agent.id },
    ),
    bindingsBySubject: new DataLoader(async (subjectIds) => {
      if (!actor) return subjectIds.map(() => []);
      const visible = (await findBindings(deps.db, { subjectId: { in: [...subjectIds] } })).filter(
        canSeeBinding(actor.principalId, await (deciding ??= decider(deps.db, actor))),
      );
      return subjectIds.map((s) => visible.filter((b) => b.subjectId === s));
    }),
  };
  return loaders;
}

/**
 * Namespace.health for a page of namespaces, over what the caller reads of agents, secrets and
 * the audit log. An agent's own SelfConfig requests are its to read (the SelfConfig list's rule):
 * looked up only for a service principal that does not read every agent anyway.
 */
function namespaceHealthLoader(deps: Deps, actor: Actor | null, readSet: (kind: ResourceKind) => Promise<ReadableSet | null>): Loaders['namespaceHealth'] {
  return new DataLoader(
    async (namespaces) => {
      const [agent, secret, auditEvent] = await Promise.all([readSet('agent'), readSet('secret'), readSet('auditEvent')]);
      const none: ReadableSet = { everywhere: false, namespaceIds: [], resourceIds: [] };
      const own = actor?.kind === 'SERVICE' && !agent?.everywhere ? await deps.db.agent.findUnique({ where: { servicePrincipalId: actor.principalId }, select: { id: true } }) : null;
      return namespaceHealths(deps.db, namespaces, { agent: agent ?? none, secret: secret ?? none, auditEvent: auditEvent ?? none, ownAgentId: own?.id ?? null });
    },
    { cacheKeyFn: (n) => n.id },
  );
}
