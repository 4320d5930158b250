import { requiredCategories, type ApprovalPolicy } from '@occ/domain/selfconfig-approval';
import { isId } from '@occ/domain/ids';
import { builtInRole, decide } from '@occ/domain/access';
import { ConflictError, NotFoundError, ValidationError, type MissingGrant } from '@occ/domain/errors';
import { modelCredentialEnv, validateSelfConfigure, type SecretRef, type SelfConfigureAction } from '@occ/domain/configuration';
import { validateResourceName } from '@occ/domain/validation';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { and, raw, sql, sqlRows, type Sql } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { authorize, loadBindingsOf, readableBy } from './access.ts';
import { requestedOrder, sqlKeysetPage, namePrefixSql, readableScopes, visibleWithin, type PageOf, type PageRequest } from './pagination.ts';
import { audit } from './audit.ts';
import { configurationJoin, requireOperableSecrets, type ConfigurationView, type JoinedConfigurationReads } from './configurations.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

/** What create and update take as selfConfigure; approval (SG3) absent is none for every category. */
export interface SelfConfigureInput {
  enabled: boolean;
  allowedActions: string[];
  approval?: ApprovalPolicy | null;
}

export interface HarnessAuthInput {
  provider: string;
  source: { kind?: string | null; namespaceId?: string | null; id: string };
}

export interface AgentView {
  id: string;
  namespaceId: string;
  name: string;
  servicePrincipalId: string;
  configurationId: string | null;
  harnessAuth: { provider: string; envName: string; source: SecretRef } | null;
  /** approval (SG3): the categories whose requests wait for an administrator's approval. */
  selfConfigure: { enabled: boolean; allowedActions: SelfConfigureAction[]; approval: SelfConfigureAction[] };
  desiredState: string;
  activeRevisionId: string | null;
  status: string;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Read in the same statement as the agent (a page of agents whose fields ask for it): its
   * configuration, null when it has none or the caller may not read it. Without it, the request's
   * loader reads the configuration.
   */
  joined?: { configuration: ConfigurationView | null };
}

export type AgentRow = Row;
type Row = {
  /** RC6: the status derived on this read (derivedStatusSql); absent on rows a write returned. */
  derivedStatus?: string;
  id: string;
  namespaceId: string;
  name: string;
  servicePrincipalId: string;
  configurationId: string | null;
  harnessProvider: string | null;
  harnessSecretId: string | null;
  selfConfigureEnabled: boolean;
  selfConfigureActions: string[];
  selfConfigureApproval?: string[];
  desiredState: string;
  activeRevisionId: string | null;
  status: string;
  createdAt: Date;
  updatedAt: Date;
};

export function toAgentView(row: Row): AgentView {
  return {
    id: row.id,
    namespaceId: row.namespaceId,
    name: row.name,
    servicePrincipalId: row.servicePrincipalId,
    configurationId: row.configurationId,
    harnessAuth:
      row.harnessProvider && row.harnessSecretId
        ? { provider: row.harnessProvider, envName: modelCredentialEnv(row.harnessProvider) ?? '', source: { kind: 'secret', namespaceId: row.namespaceId, id: row.harnessSecretId } }
        : null,
    selfConfigure: { enabled: row.selfConfigureEnabled, allowedActions: row.selfConfigureActions as SelfConfigureAction[], approval: (row.selfConfigureApproval ?? []) as SelfConfigureAction[] },
    desiredState: row.desiredState,
    activeRevisionId: row.activeRevisionId,
    status: row.derivedStatus ?? row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * RC6: an agent's status, derived on every read from its lifecycle, its desired state, the deploy
 * work still pending for it, its revisions and what the instance reconciler last observed of its
 * gateway (AgentRuntime), never kept: deleting and deleted (the row's lifecycle); deploying while
 * deploy work for it is pending or running; stopped; created (nothing deployed yet); failed (its
 * active revision failed, or its last deploy failed with none active); running (the gateway runs
 * the active revision and is ready); degraded (the active revision's gateway is not ready, is
 * gone, or runs something else). `a` is the Agent table's alias.
 */
export function derivedStatusSql(a: string): Sql {
  const t = raw(a);
  return sql`(CASE
    WHEN ${t}."status" IN ('deleting', 'deleted') THEN ${t}."status"
    WHEN EXISTS (SELECT 1 FROM "public"."WorkItem" w WHERE w."concurrencyKey" IN (${t}."id", 'await:' || ${t}."id") AND w."state" IN ('PENDING', 'RUNNING')) THEN 'deploying'
    WHEN ${t}."activeRevisionId" IS NULL THEN COALESCE((SELECT CASE WHEN ${t}."desiredState" = 'stopped' THEN 'stopped' WHEN r."state" = 'FAILED' THEN 'failed' END
      FROM "public"."AgentRevision" r WHERE r."agentId" = ${t}."id" ORDER BY r."number" DESC LIMIT 1), 'created')
    WHEN ${t}."desiredState" = 'stopped' THEN 'stopped'
    ELSE COALESCE((SELECT CASE
        WHEN r."state" = 'FAILED' THEN 'failed'
        WHEN rt."agentId" IS NULL AND r."state" = 'ACTIVE' THEN 'running'
        WHEN rt."ready" AND rt."runningRevisionId" = r."id" AND r."state" = 'ACTIVE' THEN 'running'
        ELSE 'degraded' END
      FROM "public"."AgentRevision" r LEFT JOIN "public"."AgentRuntime" rt ON rt."agentId" = ${t}."id" WHERE r."id" = ${t}."activeRevisionId"), 'degraded')
  END)`;
}

/** Every column of an agent and its derived status: the one shape every read of agents selects. */
export function agentColumns(a: string): Sql {
  return sql`${raw(a)}.*, ${derivedStatusSql(a)} AS "derivedStatus"`;
}

/** Agents by id, with their derived status (one statement). */
export async function agentRowsByIds(db: Db | Tx, ids: readonly string[]): Promise<Row[]> {
  return sqlRows<Row>(db, sql`SELECT ${agentColumns('a')} FROM "public"."Agent" a WHERE a."id" = ANY(${[...ids]}::text[])`);
}

function checkHarnessAuth(namespaceId: string, input: HarnessAuthInput | null | undefined): { provider: string; secretId: string } | null {
  if (!input) return null;
  if (!modelCredentialEnv(input.provider)) {
    throw new ValidationError('UNKNOWN_PROVIDER', 'Unknown harnessAuth provider; use openai, anthropic, google, mistral, groq, openrouter, xai or deepseek.', 'harnessAuth.provider');
  }
  if ((input.source.kind ?? 'secret') !== 'secret') {
    throw new ValidationError('UNSUPPORTED_SOURCE', 'harnessAuth.source must be a secret reference.', 'harnessAuth.source.kind');
  }
  // A foreign or malformed id names no secret here (P4, P6): refused before it can reach a row.
  if ((input.source.namespaceId ?? namespaceId) !== namespaceId || !isId('secret', input.source.id)) throw new NotFoundError('No such secret in this namespace.');
  return { provider: input.provider, secretId: input.source.id };
}

/** A1: the secrets an agent's selection makes it consume: its configuration's bindings and its harnessAuth source. */
async function selectionSecretIds(tx: Db | Tx, namespaceId: string, configurationId: string | null, harnessSecretId: string | null): Promise<string[]> {
  const ids: string[] = [];
  if (configurationId !== null) {
    if (!isId('configuration', configurationId)) throw new NotFoundError('No such configuration in this namespace.');
    const cfg = await tx.configuration.findFirst({ where: { id: configurationId, namespaceId }, select: { bindings: { select: { secretId: true } } } });
    if (!cfg) throw new NotFoundError(`No configuration ${configurationId} in this namespace.`);
    ids.push(...cfg.bindings.map((b) => b.secretId));
  }
  if (harnessSecretId !== null) ids.push(harnessSecretId);
  return ids;
}

/** A1: creates the Agent and its own service principal, immutable for the agent's life. */
export async function createAgent(
  deps: Deps,
  actor: Actor,
  input: {
    namespaceId: string;
    name: string;
    configurationId?: string | null;
    harnessAuth?: HarnessAuthInput | null;
    selfConfigure?: SelfConfigureInput | null;
  },
): Promise<AgentView> {
  const invalid = validateResourceName(input.name, 'agent') ?? (input.selfConfigure ? validateSelfConfigure(input.selfConfigure) : null);
  if (invalid) throw invalid;
  const harness = checkHarnessAuth(input.namespaceId, input.harnessAuth);
  await kinds.require(deps, actor, 'namespace', input.namespaceId);
  const request = capabilityRequest('namespace', 'createAgent', { id: input.namespaceId });
  await authorize(deps, actor, request);
  const id = newId('agent');
  const servicePrincipalId = newId('servicePrincipal');
  return transaction(deps.db, async (tx) => {
    if (!(await lockNamespace(tx, input.namespaceId))) throw new NotFoundError('No such namespace.');
    await authorize(deps, actor, request, tx);
    const secrets = await selectionSecretIds(tx, input.namespaceId, input.configurationId ?? null, harness?.secretId ?? null);
    await requireOperableSecrets(deps, tx, actor, input.namespaceId, secrets);
    if (await tx.agent.findUnique({ where: { namespaceId_name: { namespaceId: input.namespaceId, name: input.name } } })) {
      throw new ConflictError(`An agent named ${input.name} exists in this namespace.`, 'NAME_TAKEN');
    }
    await tx.principal.create({ data: { id: servicePrincipalId, kind: 'SERVICE', name: `agent:${input.name}` } });
    const row = await tx.agent.create({
      data: {
        id,
        namespaceId: input.namespaceId,
        name: input.name,
        servicePrincipalId,
        configurationId: input.configurationId ?? null,
        harnessProvider: harness?.provider ?? null,
        harnessSecretId: harness?.secretId ?? null,
        selfConfigureEnabled: input.selfConfigure?.enabled ?? false,
        selfConfigureActions: input.selfConfigure?.allowedActions ?? [],
        selfConfigureApproval: requiredCategories(input.selfConfigure?.approval),
        createdById: actor.principalId,
      },
    });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'agent.create',
      resourceKind: 'agent',
      resourceId: id,
      namespaceId: input.namespaceId,
      outcome: 'SUCCESS',
      details: { name: input.name, servicePrincipalId, configurationId: row.configurationId, harnessSecretId: row.harnessSecretId },
    });
    return toAgentView(row);
  });
}

/** A1 on the resulting selection: what the update leaves selected must be operable by the caller. */
export async function updateAgent(
  deps: Deps,
  actor: Actor,
  input: {
    id: string;
    configurationId?: string | null;
    clearConfiguration?: boolean | null;
    harnessAuth?: HarnessAuthInput | null;
    clearHarnessAuth?: boolean | null;
    selfConfigure?: SelfConfigureInput | null;
  },
): Promise<AgentView> {
  const existing = await kinds.require(deps, actor, 'agent', input.id);
  if (input.selfConfigure) {
    const invalid = validateSelfConfigure(input.selfConfigure);
    if (invalid) throw invalid;
  }
  const harness = checkHarnessAuth(existing.namespaceId, input.harnessAuth);
  const request = capabilityRequest('agent', 'update', existing);
  await authorize(deps, actor, request);
  return transaction(deps.db, async (tx) => {
    await lockNamespace(tx, existing.namespaceId);
    await authorize(deps, actor, request, tx);
    const current = await tx.agent.findUnique({ where: { id: existing.id } });
    if (!current) throw new NotFoundError('No such agent.');
    const configurationId = input.clearConfiguration ? null : (input.configurationId ?? current.configurationId);
    const harnessProvider = input.clearHarnessAuth ? null : (harness?.provider ?? current.harnessProvider);
    const harnessSecretId = input.clearHarnessAuth ? null : (harness?.secretId ?? current.harnessSecretId);
    const secrets = await selectionSecretIds(tx, current.namespaceId, configurationId, harnessSecretId);
    await requireOperableSecrets(deps, tx, actor, current.namespaceId, secrets);
    const row = await tx.agent.update({
      where: { id: current.id },
      data: {
        configurationId,
        harnessProvider,
        harnessSecretId,
        ...(input.selfConfigure
          ? { selfConfigureEnabled: input.selfConfigure.enabled, selfConfigureActions: input.selfConfigure.allowedActions, selfConfigureApproval: requiredCategories(input.selfConfigure.approval) }
          : {}),
      },
    });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'agent.update',
      resourceKind: 'agent',
      resourceId: row.id,
      namespaceId: row.namespaceId,
      outcome: 'SUCCESS',
      details: { configurationId, harnessSecretId, selfConfigure: input.selfConfigure ?? undefined },
    });
    return toAgentView(row);
  });
}

/** What a page of agents reads with them in its one statement: each agent's configuration (and what of it), or nothing else. */
export interface AgentReads {
  configuration: JoinedConfigurationReads | null;
  /**
   * Whether the page's agents are asked for their status. RC6 derives it per row from its work,
   * revisions and runtime (three subqueries, a fifth of a page's time for a reader of 50 agents);
   * a page not asked for it reads the stored columns only, and its views carry the stored status,
   * which nothing then serves.
   */
  status: boolean;
}

/**
 * A page of the namespace's agents the actor may read, filtered and ordered in SQL. With
 * `reads.configuration`, each agent's configuration (and its bindings' secrets) comes in the same
 * statement, on `joined`, filtered by what the actor may read: a page that shows them costs one
 * statement, not three in a row.
 */
export async function listAgents(
  deps: Deps,
  actor: Actor,
  namespaceId: string,
  page: PageRequest,
  filter: { namePrefix?: string | null; status?: string | null } = {},
  reads: AgentReads = { configuration: null, status: true },
): Promise<PageOf<AgentView>> {
  const readable = await readableBy(deps.db, actor, 'agent');
  const where = and([sql`a."namespaceId" = ${namespaceId}`, namePrefixSql(filter.namePrefix), filter.status ? sql`${derivedStatusSql('a')} = ${filter.status}` : null]);
  const visible = visibleWithin(readableScopes(readable), '"namespaceId"', namespaceId);
  const list = { columns: reads.status ? agentColumns('a') : sql`a.*`, table: sql`"public"."Agent" a`, where, visible };
  const cfg = reads.configuration;
  if (!cfg) return sqlKeysetPage(deps.db, page, list, toAgentView);
  const readableParts = { configuration: await readableBy(deps.db, actor, 'configuration'), secret: await readableBy(deps.db, actor, 'secret') };
  const { columns, from, view } = configurationJoin(sql`a."configurationId"`, cfg, readableParts);
  const group = (rows: Array<Record<string, unknown>>): AgentView[] => {
    const agents: AgentView[] = [];
    // An agent's rows (one per binding) lie side by side: the statement orders by the agent.
    for (let i = 0; i < rows.length; ) {
      let j = i + 1;
      while (j < rows.length && rows[j]!.id === rows[i]!.id) j++;
      const own = rows.slice(i, j);
      const agent = toAgentView(own[0] as Row);
      agent.joined = { configuration: view(own) };
      agents.push(agent);
      i = j;
    }
    return agents;
  };
  return sqlKeysetPage(deps.db, page, { ...list, joined: { columns, from, group } }, (agent) => agent, requestedOrder(page, 'a'));
}

/**
 * A3: what the Agent's own service principal lacks to consume its selection — `operate` on each
 * bound secret and on the harnessAuth secret — as the exact grants to add. Deploy (D2) refuses
 * with the first of these; the console shows them all.
 */
/**
 * Computed for many agents in two statements, whatever their number (the request loader reads a
 * page of agents through this): their configurations' bindings, and their principals' bindings.
 */
export async function agentsMissingGrants(db: Db | Tx, agents: readonly AgentView[]): Promise<MissingGrant[][]> {
  const configurationIds = [...new Set(agents.flatMap((a) => (a.configurationId ? [a.configurationId] : [])))];
  const [bindings, principalBindings] = await Promise.all([
    configurationIds.length ? db.configurationSecretBinding.findMany({ where: { configurationId: { in: configurationIds } }, select: { configurationId: true, secretId: true } }) : [],
    loadBindingsOf(db, agents.map((a) => a.servicePrincipalId)),
  ]);
  return agents.map((agent) => {
    const secretIds = new Set(bindings.filter((b) => b.configurationId === agent.configurationId).map((b) => b.secretId));
    if (agent.harnessAuth) secretIds.add(agent.harnessAuth.source.id);
    const own = principalBindings.get(agent.servicePrincipalId) ?? [];
    return [...secretIds]
      .filter((id) => !decide(own, { subjectId: agent.servicePrincipalId, action: 'operate', resourceKind: 'secret', namespaceId: agent.namespaceId, resourceId: id }).allowed)
      .map((id) => ({
        subjectId: agent.servicePrincipalId,
        action: 'operate' as const,
        resourceKind: 'secret' as const,
        resourceId: id,
        namespaceId: agent.namespaceId,
        roleId: builtInRole('secret-operator').id,
      }));
  });
}
