import type { AccessRequest } from '@occ/domain/access';
import type { RevisionState } from '@occ/domain/revision';
import type { Db, Tx } from '../db/client.ts';
import { raw, sql, type Sql } from '../db/sql.ts';
import { revisionState } from './revisions.ts';

// W7, S6: which running revisions hold an older version of a secret than the one stored. A
// revision records the version of each secret it was admitted at; an updateSecret after that
// leaves its running gateway (or its model workload's copy, D5) with the bytes it started with.
// "Running" is state ACTIVE: stopped, superseded and failed revisions run nothing, and a revision
// still on its way reads what is current when it starts. Computed from the rows on every read
// (nothing to keep in step): a redeploy that activates supersedes the stale revision, which then
// drops out, and that is the progress a client polls.

export interface StaleConsumer {
  secretId: string;
  revisionId: string;
  revisionNumber: number;
  agentId: string;
  agentName: string | null;
  namespaceId: string;
  envName: string;
  purpose: string;
  deliveredVersion: number;
  currentVersion: number;
  /** The agent's newest revision after the stale one (a redeploy), if any: its progress. */
  redeploy: { revisionId: string; number: number; state: RevisionState; failureCode: string | null } | null;
}

export interface StaleConsumers {
  total: number;
  /** Stale revisions the caller may not read: counted, not named. */
  hiddenCount: number;
  items: StaleConsumer[];
}

type Row = {
  secretId: string;
  revisionId: string;
  revisionNumber: number;
  agentId: string;
  agentName: string | null;
  namespaceId: string;
  envName: string;
  purpose: string;
  deliveredVersion: number;
  currentVersion: number;
  redeployId: string | null;
  redeployNumber: number | null;
  redeployState: string | null;
  redeployFailureCode: string | null;
};

/** The stale revisions of many secrets in one statement, whatever their number (request loaders). */
export async function staleRevisionsOf(db: Db | Tx, secretIds: readonly string[]): Promise<Map<string, StaleConsumer[]>> {
  const ids = [...new Set(secretIds)];
  const result = new Map<string, StaleConsumer[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return result;
  const rows = await db.$queryRaw<Row[]>`
    SELECT rs."secretId", r.id AS "revisionId", r.number AS "revisionNumber", r."agentId", a.name AS "agentName", r."namespaceId",
           rs."envName", rs.purpose, rs.version AS "deliveredVersion", s.version AS "currentVersion",
           n.id AS "redeployId", n.number AS "redeployNumber", n.state::text AS "redeployState", n."failureCode" AS "redeployFailureCode"
    FROM "AgentRevisionSecret" rs
    JOIN "AgentRevision" r ON r.id = rs."revisionId"
    JOIN "Secret" s ON s.id = rs."secretId"
    LEFT JOIN "Agent" a ON a.id = r."agentId"
    LEFT JOIN LATERAL (
      SELECT id, number, state, "failureCode" FROM "AgentRevision" n
      WHERE n."agentId" = r."agentId" AND n.number > r.number ORDER BY n.number DESC LIMIT 1
    ) n ON true
    WHERE rs."secretId" = ANY(${ids}::text[]) AND r.state = 'ACTIVE' AND rs.version < s.version
    ORDER BY rs."secretId", r."agentId", r.number, rs."envName"`;
  for (const row of rows) {
    result.get(row.secretId)!.push({
      secretId: row.secretId,
      revisionId: row.revisionId,
      revisionNumber: row.revisionNumber,
      agentId: row.agentId,
      agentName: row.agentName,
      namespaceId: row.namespaceId,
      envName: row.envName,
      purpose: row.purpose,
      deliveredVersion: row.deliveredVersion,
      currentVersion: row.currentVersion,
      redeploy:
        row.redeployId && row.redeployNumber !== null && row.redeployState
          ? { revisionId: row.redeployId, number: row.redeployNumber, state: revisionState(row.redeployState as never), failureCode: row.redeployFailureCode }
          : null,
    });
  }
  return result;
}

/** Only what the caller may read is named; the rest is counted. */
export function visibleStaleConsumers(all: StaleConsumer[], mayRead: (request: Omit<AccessRequest, 'subjectId'>) => boolean): StaleConsumers {
  const items = all.filter((c) => mayRead({ action: 'read', resourceKind: 'agentRevision', namespaceId: c.namespaceId, resourceId: c.revisionId }));
  return { total: all.length, hiddenCount: all.length - items.length, items };
}

/**
 * W7: a secret is stale when some running revision holds it at an older version. One condition on
 * a "Secret" row (`alias` names it, a constant of the caller's), for the list's `stale` filter and
 * the namespace's health alike.
 */
export function staleSecretSql(alias: string): Sql {
  const s = raw(alias);
  return sql`EXISTS (SELECT 1 FROM "public"."AgentRevisionSecret" rs JOIN "public"."AgentRevision" r ON r.id = rs."revisionId"
                     WHERE rs."secretId" = ${s}.id AND r.state = 'ACTIVE' AND rs.version < ${s}.version)`;
}

/** The ids of a namespace's secrets that some running revision holds at an older version (the `stale` list filter). */
export async function staleSecretIds(db: Db | Tx, namespaceId: string): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ id: string }>>(sql`SELECT s.id FROM "public"."Secret" s WHERE s."namespaceId" = ${namespaceId} AND ${staleSecretSql('s')}`);
  return rows.map((r) => r.id);
}
