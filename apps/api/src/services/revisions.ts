import { isId } from '@occ/domain/ids';
import type { SecretRef } from '@occ/domain/configuration';
import type { RevisionSecretPurpose, RevisionState } from '@occ/domain/revision';
import type { Db, Tx } from '../db/client.ts';
import { and, empty, sql, sqlRows, type Sql } from '../db/sql.ts';
import { readableBy } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { readableScopes, readableWhere, sqlKeysetPage, visibleWithin, type PageOf, type PageRequest } from './pagination.ts';

// Reading AgentRevisions. A revision is readable by whoever may read revisions where it lives
// (`read` on agentRevision: namespace roles carry it) or holds a grant on it.

export interface RevisionSecretView {
  purpose: RevisionSecretPurpose;
  envName: string;
  source: SecretRef;
  version: number;
}

export interface RevisionTakeover {
  kind: string;
  name: string;
  action: string;
  setAt: string | null;
  requestId: string | null;
}

export interface RevisionView {
  id: string;
  agentId: string;
  namespaceId: string;
  number: number;
  configurationId: string | null;
  configurationGeneration: number | null;
  values: Record<string, unknown>;
  secrets: RevisionSecretView[];
  secretDriverId: string;
  harnessAuth: { provider: string; source: SecretRef } | null;
  servicePrincipalId: string;
  selfConfigure: { enabled: boolean; allowedActions: string[]; approval: string[] };
  createdById: string;
  state: RevisionState;
  failure: { code: string; message: string } | null;
  /** W5: the OpenClawInstance generation the revision's apply produced; null before it. */
  instanceGeneration: number | null;
  /** RC3: what the revision's apply took from the agent (names and times). */
  takeovers: RevisionTakeover[];
  createdAt: Date;
  updatedAt: Date;
}

export type DbState = 'QUEUED' | 'PREPARING' | 'PREPARED' | 'ACTIVATING' | 'ACTIVE' | 'FAILED' | 'SUPERSEDED' | 'STOPPED';

export function dbState(state: RevisionState): DbState {
  return state.toUpperCase() as DbState;
}

export function revisionState(state: DbState): RevisionState {
  return state.toLowerCase() as RevisionState;
}

export const withRevisionSecrets = { secrets: { select: { purpose: true, envName: true, secretId: true, version: true } } } as const;

type Row = {
  id: string;
  agentId: string;
  namespaceId: string;
  number: number;
  configurationId: string | null;
  configurationGeneration: number | null;
  values: unknown;
  secretDriverId: string;
  harnessProvider: string | null;
  harnessSecretId: string | null;
  servicePrincipalId: string;
  selfConfigureEnabled: boolean;
  selfConfigureActions: string[];
  selfConfigureApproval: string[];
  createdById: string;
  state: DbState;
  failureCode: string | null;
  failureMessage: string | null;
  instanceGeneration: number | null;
  takeovers: unknown;
  createdAt: Date;
  updatedAt: Date;
  secrets: Array<{ purpose: string; envName: string; secretId: string; version: number }>;
};

export function toRevisionView(row: Row): RevisionView {
  const ref = (id: string): SecretRef => ({ kind: 'secret', namespaceId: row.namespaceId, id });
  const order = (s: { purpose: string; envName: string }) => `${s.purpose === 'binding' ? 0 : 1}${s.envName}`;
  return {
    id: row.id,
    agentId: row.agentId,
    namespaceId: row.namespaceId,
    number: row.number,
    configurationId: row.configurationId,
    configurationGeneration: row.configurationGeneration,
    values: row.values as Record<string, unknown>,
    secrets: [...row.secrets]
      .sort((a, b) => (order(a) < order(b) ? -1 : 1))
      .map((s) => ({ purpose: s.purpose as RevisionSecretPurpose, envName: s.envName, source: ref(s.secretId), version: s.version })),
    secretDriverId: row.secretDriverId,
    harnessAuth: row.harnessProvider && row.harnessSecretId ? { provider: row.harnessProvider, source: ref(row.harnessSecretId) } : null,
    servicePrincipalId: row.servicePrincipalId,
    selfConfigure: { enabled: row.selfConfigureEnabled, allowedActions: row.selfConfigureActions, approval: row.selfConfigureApproval },
    createdById: row.createdById,
    state: revisionState(row.state),
    failure: row.failureCode ? { code: row.failureCode, message: row.failureMessage ?? '' } : null,
    instanceGeneration: row.instanceGeneration,
    takeovers: Array.isArray(row.takeovers) ? (row.takeovers as RevisionTakeover[]) : [],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function findRevision(db: Db | Tx, id: string): Promise<RevisionView | null> {
  if (!isId('revision', id)) return null;
  const row = await db.agentRevision.findUnique({ where: { id }, include: withRevisionSecrets });
  return row ? toRevisionView(row) : null;
}


/** A revision's delivered references, read with each row of a page (at most a page of small subqueries). */
const REVISION_SECRETS = sql`coalesce((SELECT json_agg(json_build_object('purpose', s."purpose", 'envName', s."envName", 'secretId', s."secretId", 'version', s."version"))
  FROM "public"."AgentRevisionSecret" s WHERE s."revisionId" = r."id"), '[]'::json) AS "secrets"`;

/**
 * An agent's revisions the actor may read, newest first, paged in SQL: the agent's index range
 * (agentId, createdAt, id) from the cursor on, all of it where the caller reads the agent's
 * namespace, else the granted revisions looked up by id.
 */
export async function listRevisions(
  deps: Deps,
  actor: Actor,
  agent: { id: string; namespaceId: string },
  page: PageRequest,
  filter: { state?: RevisionState | null } = {},
): Promise<PageOf<RevisionView>> {
  const readable = await readableBy(deps.db, actor, 'agentRevision');
  const where = and([sql`r."agentId" = ${agent.id}`, filter.state ? sql`r."state"::text = ${dbState(filter.state)}` : null]);
  const visible = visibleWithin(readableScopes(readable), '"namespaceId"', agent.namespaceId);
  return sqlKeysetPage(deps.db, page, { columns: sql`r.*, ${REVISION_SECRETS}`, table: sql`"public"."AgentRevision" r`, where, visible }, toRevisionView, {
    field: 'createdAt',
    newestFirst: true,
    table: 'r',
  });
}

export interface FirstRevisionPageRequest {
  agentId: string;
  size: number;
  state: RevisionState | null;
}

/**
 * The first page (no cursor) of many agents' revisions at once, for a list of agents asking each
 * for its latest revisions: one statement picks each agent's newest `size + 1` readable rows (a
 * LATERAL limit per agent, on the (agentId, createdAt, id) index), one reads them, and totalCount, when
 * asked, is one grouped count for all. A page with a cursor goes through listRevisions.
 */
export async function firstRevisionPages(deps: Deps, actor: Actor, requests: readonly FirstRevisionPageRequest[]): Promise<Array<PageOf<RevisionView>>> {
  const readable = await readableBy(deps.db, actor, 'agentRevision');
  const size = Math.max(...requests.map((r) => r.size));
  const groups = new Map<RevisionState | null, string[]>();
  for (const r of requests) groups.set(r.state, [...(groups.get(r.state) ?? []), r.agentId]);
  const picked = new Map<string, string[]>();
  const counts = new Map<RevisionState | null, Promise<Map<string, number>>>();
  for (const [state, agentIds] of groups) {
    const stateFilter = state === null ? null : dbState(state);
    // Per agent, its newest rows straight off the (agentId, createdAt, id) index: a page reads
    // `size + 1` rows however many revisions the agent has (a window over all of them read them all).
    // An agent's revisions lie in its namespace: where the caller reads that namespace, all of
    // them; elsewhere only the granted ones, looked up by id. The agent's row decides which, once
    // per agent; written as one OR on each revision, it walked every revision of an agent whose
    // namespace the caller does not read.
    const inState = sql`(${stateFilter}::text IS NULL OR state::text = ${stateFilter})`;
    const inNamespace = sql`(${readable.everywhere} OR ag."namespaceId" = ANY(${readable.namespaceIds}::text[]))`;
    const page = (where: Sql) => sql`(SELECT id, "agentId", "createdAt" FROM "public"."AgentRevision" WHERE "agentId" = a.id AND ${inState} AND ${where} ORDER BY "createdAt" DESC, id DESC LIMIT ${size + 1})`;
    const granted = readable.resourceIds.length > 0 ? sql` UNION ALL ${page(sql`NOT ${inNamespace} AND id = ANY(${readable.resourceIds}::text[])`)}` : empty;
    const rows = await sqlRows<{ id: string; agentId: string; createdAt: Date }>(
      deps.db,
      sql`SELECT r.id, r."agentId", r."createdAt" FROM unnest(${agentIds}::text[]) AS a(id) JOIN "public"."Agent" ag ON ag.id = a.id
      CROSS JOIN LATERAL (${page(inNamespace)}${granted}) r`,
    );
    rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    for (const row of rows) picked.set(`${state}|${row.agentId}`, [...(picked.get(`${state}|${row.agentId}`) ?? []), row.id]);
  }
  const ids = [...picked.values()].flat();
  const byId = new Map((ids.length ? await deps.db.agentRevision.findMany({ where: { id: { in: ids } }, include: withRevisionSecrets }) : []).map((row) => [row.id, toRevisionView(row)]));
  const countFor = (state: RevisionState | null): Promise<Map<string, number>> => {
    let pending = counts.get(state);
    if (!pending) {
      const where = { AND: [{ agentId: { in: groups.get(state) ?? [] } }, readableWhere(readable), state ? { state: dbState(state) } : {}] };
      pending = deps.db.agentRevision.groupBy({ by: ['agentId'], where, _count: { _all: true } }).then((rows) => new Map(rows.map((r) => [r.agentId, r._count._all])));
      counts.set(state, pending);
    }
    return pending;
  };
  return requests.map((r) => {
    const all = (picked.get(`${r.state}|${r.agentId}`) ?? []).map((id) => byId.get(id)!).filter(Boolean);
    const kept = all.slice(0, r.size);
    return {
      edges: kept.map((node) => ({ key: { createdAt: node.createdAt, id: node.id }, node })),
      hasNextPage: all.length > r.size,
      hasPreviousPage: false,
      totalCount: async () => (await countFor(r.state)).get(r.agentId) ?? 0,
    };
  });
}
