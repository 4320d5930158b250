import type { ReadableSet } from '@occ/domain/access';
import { readableBy } from './access.ts';
import type { SystemActor } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { and, raw, sql, type Sql } from '../db/sql.ts';
import { sqlKeysetPage, readableScopes, visibleWithin, type PageOf, type PageRequest } from './pagination.ts';

// The audit trail, read back: newest first, as keyset pages in SQL, holding only the
// events of scopes where the caller may read audit (installation administrators: all of them;
// namespace administrators: their namespaces' events). An event of no namespace (sign-ins,
// users, installation grants) is read at installation scope only.

export interface AuditEventView {
  id: string;
  at: Date;
  actorId: string | null;
  /** Which part of the control plane acted, when no principal did (audit.ts SYSTEM_ACTORS). */
  systemActor: SystemActor | null;
  action: string;
  resourceKind: string;
  resourceId: string | null;
  namespaceId: string | null;
  outcome: 'SUCCESS' | 'DENIED' | 'FAILURE';
  reason: string | null;
  /** Metadata only (names, versions, ids), never a value: see audit.ts. */
  details: unknown;
  /** How many refusals the row stands for: 1, or more for coalesced anonymous refusals (P5). */
  count: number;
}

export interface AuditEventFilter {
  actorId?: string | null;
  systemActor?: SystemActor | null;
  action?: string | null;
  resourceKind?: string | null;
  resourceId?: string | null;
  namespaceId?: string | null;
  outcome?: AuditEventView['outcome'] | null;
  /** Events at or after this instant. */
  from?: Date | null;
  /** Events before this instant. */
  to?: Date | null;
}

const EXACT = ['actorId', 'systemActor', 'action', 'resourceKind', 'resourceId', 'namespaceId', 'outcome'] as const;

function filterWhere(filter: AuditEventFilter): Array<Sql | null> {
  return [
    ...EXACT.map((k) => (filter[k] === null || filter[k] === undefined ? null : k === 'outcome' ? sql`"outcome" = ${filter[k]}::"AuditOutcome"` : sql`${raw(`"${k}"`)} = ${filter[k]}`)),
    filter.from ? sql`"at" >= ${filter.from}::timestamp(3)` : null,
    filter.to ? sql`"at" < ${filter.to}::timestamp(3)` : null,
  ];
}

export async function listAuditEvents(deps: Deps, actor: Actor, page: PageRequest, filter: AuditEventFilter = {}): Promise<PageOf<AuditEventView>> {
  return auditEventsPage(deps, await readableBy(deps.db, actor, 'auditEvent'), page, filter);
}

/** One page for a readable set decided once (the NDJSON export reads many pages with one decision). */
export async function auditEventsPage(deps: Deps, readable: ReadableSet, page: PageRequest, filter: AuditEventFilter): Promise<PageOf<AuditEventView>> {
  const where = and(filterWhere(filter));
  // Held to one namespace by the filter, the reader sees all of it or only its grants there.
  const scopes = readableScopes(readable);
  const visible = filter.namespaceId ? visibleWithin(scopes, '"namespaceId"', filter.namespaceId) : scopes;
  return sqlKeysetPage(
    deps.db,
    page,
    { columns: sql`*`, table: sql`"public"."AuditEvent"`, where, visible },
    (row: AuditEventView): AuditEventView => ({
      id: row.id,
      at: row.at,
      actorId: row.actorId,
      systemActor: row.systemActor,
      action: row.action,
      resourceKind: row.resourceKind,
      resourceId: row.resourceId,
      namespaceId: row.namespaceId,
      outcome: row.outcome,
      reason: row.reason,
      details: row.details,
      count: row.count,
    }),
    { field: 'at', newestFirst: true },
  );
}
