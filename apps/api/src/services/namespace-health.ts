import type { ReadableSet } from '@occ/domain/access';
import { and, raw, sql, sqlRows, type Sql } from '../db/sql.ts';
import type { Db, Tx } from '../db/client.ts';
import { derivedStatusSql } from './agents.ts';
import { readableScopes, visibleSql, type Visible } from './pagination.ts';
import { staleSecretSql } from './secret-drift.ts';

// A namespace at a glance (the console's namespaces list and overview): its agents by status, its
// secrets and how many are stale, the rotation rollouts and SelfConfig requests waiting for an
// approval, the failures of the last day, and one health word from those. Counted over what the
// reader may read only: all of a namespace they read, or just the rows granted to them there (a
// count of rows they may not read would tell them those exist). Five statements for a page of
// namespaces, whatever its size.

/** How far back `recentFailures` looks. */
export const RECENT_FAILURES_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface NamespaceHealth {
  agents: { total: number; running: number; failing: number; failed: number; degraded: number; deploying: number };
  secrets: { total: number; stale: number };
  rolloutsAwaitingApproval: number;
  /** SG3: SelfConfig requests of readable agents waiting for an administrator's decision (the SelfConfig list's AwaitingApproval filter, less those already decided). */
  selfConfigAwaitingApproval: number;
  /**
   * Audit events with outcome FAILURE at or after `recentFailuresSince` (the audit log filtered by
   * namespace, outcome and time, as the reader reads it); null when the reader may read none of
   * the namespace's audit log, so that no reader is told "0" about a log they cannot see.
   */
  recentFailures: number | null;
  recentFailuresSince: Date;
  /** FAILING: an agent failed or degraded, or the namespace itself failed or was lost; ATTENTION: a stale secret, or a rollout or SelfConfig request waiting for an approval; else OK. Past failures are history, not state: they do not change the word. */
  status: 'OK' | 'ATTENTION' | 'FAILING';
}

/** Rows of `alias` (a constant of this file) in `namespaceIds` that `set` covers, as a list reads them (pagination.ts). */
function readableIn(alias: string, set: ReadableSet, namespaceIds: readonly string[], visible: Visible | null = readableScopes(set)): Sql {
  return and([sql`${raw(alias)}."namespaceId" = ANY(${[...namespaceIds]}::text[])`, visibleSql(visible, alias)]);
}

/** A SelfConfig request is read with its agent (the SelfConfig list's rule): a namespace's agents, a granted agent, or the caller's own. */
function readableRequests(agent: ReadableSet, ownAgentId: string | null): Visible | null {
  if (agent.everywhere) return null;
  const agentIds = [...new Set([...agent.resourceIds, ...(ownAgentId ? [ownAgentId] : [])])];
  return {
    any: [
      { column: '"namespaceId"', values: agent.namespaceIds, ranges: true },
      { column: '"agentId"', values: agentIds, ranges: false },
    ].filter((f) => f.values.length > 0),
  };
}

/** Whether any of a namespace's audit log is readable with `set`. */
function readsAuditOf(set: ReadableSet, namespaceId: string): boolean {
  return set.everywhere || set.namespaceIds.includes(namespaceId) || set.resourceIds.length > 0;
}

/**
 * The health of each namespace, from what the reader may read of its agents and secrets.
 * `namespaces` carries each namespace's own status (FAILED and LOST count as failing).
 */
export async function namespaceHealths(
  db: Db | Tx,
  namespaces: ReadonlyArray<{ id: string; status: string }>,
  readable: { agent: ReadableSet; secret: ReadableSet; auditEvent: ReadableSet; ownAgentId: string | null },
  now: Date = new Date(),
): Promise<NamespaceHealth[]> {
  const ids = namespaces.map((n) => n.id);
  const since = new Date(now.getTime() - RECENT_FAILURES_WINDOW_MS);
  const [agents, secrets, rollouts, requests, failures] = await Promise.all([
    sqlRows<{ namespaceId: string; status: string; n: number }>(
      db,
      sql`SELECT a."namespaceId", ${derivedStatusSql('a')} AS status, count(*)::int AS n FROM "public"."Agent" a WHERE ${readableIn('a', readable.agent, ids)} GROUP BY 1, 2`,
    ),
    sqlRows<{ namespaceId: string; total: number; stale: number }>(
      db,
      sql`SELECT s."namespaceId", count(*)::int AS total, count(*) FILTER (WHERE ${staleSecretSql('s')})::int AS stale
          FROM "public"."Secret" s WHERE ${readableIn('s', readable.secret, ids)} GROUP BY 1`,
    ),
    sqlRows<{ namespaceId: string; n: number }>(
      db,
      sql`SELECT s."namespaceId", count(*)::int AS n FROM "public"."SecretRollout" o JOIN "public"."Secret" s ON s.id = o."secretId"
          WHERE o.state = 'AWAITING_APPROVAL' AND ${readableIn('s', readable.secret, ids)} GROUP BY 1`,
    ),
    sqlRows<{ namespaceId: string; n: number }>(
      db,
      sql`SELECT r."namespaceId", count(*)::int AS n FROM "public"."SelfConfigRequest" r
          WHERE r.phase = 'AwaitingApproval' AND r."approvalDecision" IS NULL AND r."agentId" IS NOT NULL
            AND ${readableIn('r', readable.agent, ids, readableRequests(readable.agent, readable.ownAgentId))} GROUP BY 1`,
    ),
    sqlRows<{ namespaceId: string; n: number }>(
      db,
      sql`SELECT e."namespaceId", count(*)::int AS n FROM "public"."AuditEvent" e
          WHERE e.outcome = 'FAILURE' AND e.at >= ${since} AND ${readableIn('e', readable.auditEvent, ids)} GROUP BY 1`,
    ),
  ]);
  return namespaces.map((ns) => {
    const byStatus = agents.filter((r) => r.namespaceId === ns.id);
    const count = (...statuses: string[]) => byStatus.filter((r) => statuses.includes(r.status)).reduce((n, r) => n + r.n, 0);
    const s = secrets.find((r) => r.namespaceId === ns.id);
    const health = {
      agents: { total: count(...new Set(byStatus.map((r) => r.status))), running: count('running'), failing: count('failed', 'degraded'), failed: count('failed'), degraded: count('degraded'), deploying: count('deploying') },
      secrets: { total: s?.total ?? 0, stale: s?.stale ?? 0 },
      rolloutsAwaitingApproval: rollouts.find((r) => r.namespaceId === ns.id)?.n ?? 0,
      selfConfigAwaitingApproval: requests.find((r) => r.namespaceId === ns.id)?.n ?? 0,
      recentFailures: readsAuditOf(readable.auditEvent, ns.id) ? (failures.find((r) => r.namespaceId === ns.id)?.n ?? 0) : null,
      recentFailuresSince: since,
    };
    const failing = health.agents.failing > 0 || ns.status === 'FAILED' || ns.status === 'LOST';
    const attention = health.secrets.stale > 0 || health.rolloutsAwaitingApproval > 0 || health.selfConfigAwaitingApproval > 0;
    return { ...health, status: failing ? 'FAILING' : attention ? 'ATTENTION' : 'OK' };
  });
}
