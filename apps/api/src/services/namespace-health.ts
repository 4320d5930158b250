import type { ReadableSet } from '@occ/domain/access';
import { and, raw, sql, sqlRows, type Sql } from '../db/sql.ts';
import type { Db, Tx } from '../db/client.ts';
import { derivedStatusSql } from './agents.ts';
import { readableScopes, visibleSql } from './pagination.ts';
import { staleSecretSql } from './secret-drift.ts';

// A namespace at a glance (the console's namespaces list and overview): its agents by status, its
// secrets and how many are stale, the rotation rollouts waiting for an approval, and one health
// word from those. Counted over what the reader may read only: all of a namespace they read, or
// just the rows granted to them there (a count of rows they may not read would tell them those
// exist). Three statements for a page of namespaces, whatever its size.

export interface NamespaceHealth {
  agents: { total: number; running: number; failing: number; failed: number; degraded: number; deploying: number };
  secrets: { total: number; stale: number };
  rolloutsAwaitingApproval: number;
  /** FAILING: an agent failed or degraded, or the namespace itself failed or was lost; ATTENTION: a stale secret or a rollout waiting; else OK. */
  status: 'OK' | 'ATTENTION' | 'FAILING';
}

/** Rows of `alias` (a constant of this file) in `namespaceIds` that `set` covers, as a list reads them (pagination.ts). */
function readableIn(alias: string, set: ReadableSet, namespaceIds: readonly string[]): Sql {
  return and([sql`${raw(alias)}."namespaceId" = ANY(${[...namespaceIds]}::text[])`, visibleSql(readableScopes(set), alias)]);
}

/**
 * The health of each namespace, from what the reader may read of its agents and secrets.
 * `namespaces` carries each namespace's own status (FAILED and LOST count as failing).
 */
export async function namespaceHealths(
  db: Db | Tx,
  namespaces: ReadonlyArray<{ id: string; status: string }>,
  readable: { agent: ReadableSet; secret: ReadableSet },
): Promise<NamespaceHealth[]> {
  const ids = namespaces.map((n) => n.id);
  const [agents, secrets, rollouts] = await Promise.all([
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
  ]);
  return namespaces.map((ns) => {
    const byStatus = agents.filter((r) => r.namespaceId === ns.id);
    const count = (...statuses: string[]) => byStatus.filter((r) => statuses.includes(r.status)).reduce((n, r) => n + r.n, 0);
    const s = secrets.find((r) => r.namespaceId === ns.id);
    const health = {
      agents: { total: count(...new Set(byStatus.map((r) => r.status))), running: count('running'), failing: count('failed', 'degraded'), failed: count('failed'), degraded: count('degraded'), deploying: count('deploying') },
      secrets: { total: s?.total ?? 0, stale: s?.stale ?? 0 },
      rolloutsAwaitingApproval: rollouts.find((r) => r.namespaceId === ns.id)?.n ?? 0,
    };
    const failing = health.agents.failing > 0 || ns.status === 'FAILED' || ns.status === 'LOST';
    const attention = health.secrets.stale > 0 || health.rolloutsAwaitingApproval > 0;
    return { ...health, status: failing ? 'FAILING' : attention ? 'ATTENTION' : 'OK' };
  });
}
