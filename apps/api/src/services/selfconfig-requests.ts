import { isIdShaped } from '@occ/domain/text';
import type { SpecChange } from '@occ/domain/selfconfig-preview';
import type { Db } from '../db/client.ts';
import { permissionSets, readableBy } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { and, sql } from '../db/sql.ts';
import { sqlKeysetPage, visibleWithin, type PageOf, type PageRequest, type Visible } from './pagination.ts';

// SC9's history as a list: the SelfConfigRequest rows the caller may read, filtered and paged in
// SQL. A row is readable by whoever may read its agent (namespace or the agent itself), and by
// the agent's own service principal; rows of instances that belong to no agent we know only by
// installation-wide readers.

export interface SelfConfigRequestView {
  id: string;
  uid: string;
  k8sNamespace: string;
  name: string;
  instanceRef: string;
  namespaceId: string | null;
  agentId: string | null;
  requestedById: string | null;
  request: unknown;
  phase: string;
  message: string | null;
  /** Why the phase, in one word (SG4's budget reasons among them); null on rows from before it was kept. */
  reason: string | null;
  /** SG2: the field-level change the request made, names only. */
  changes: SpecChange[];
  skippedRemovals: Array<{ kind: string; name: string; why: string; managers: Array<{ manager: string; operation: string }> }>;
  events: Array<{ type: string; reason: string; message: string; on: string; at: string }>;
  /** RC3: the revisions that took items this request set. */
  overriddenBy: Array<{ revisionId: string; number: number; items: string[]; at: string }>;
  /** SG3: since when it waits for approval, and the administrator's decision (approved, rejected) or the controller's (expired). */
  awaitingApprovalAt: Date | null;
  approvalDecision: string | null;
  approvalById: string | null;
  approvalAt: Date | null;
  approvalReason: string | null;
  createdAt: Date;
  pendingAt: Date | null;
  completedAt: Date | null;
  deletedAt: Date | null;
}

type Row = Awaited<ReturnType<Db['selfConfigRequest']['findFirstOrThrow']>>;

export function toSelfConfigRequestView(row: Row): SelfConfigRequestView {
  return {
    id: row.id,
    uid: row.uid,
    k8sNamespace: row.k8sNamespace,
    name: row.name,
    instanceRef: row.instanceRef,
    namespaceId: row.namespaceId,
    agentId: row.agentId,
    requestedById: row.requestedById,
    request: row.request,
    phase: row.phase,
    message: row.message,
    reason: row.reason,
    changes: Array.isArray(row.changes) ? (row.changes as unknown as SpecChange[]) : [],
    skippedRemovals: row.skippedRemovals as SelfConfigRequestView['skippedRemovals'],
    events: row.events as SelfConfigRequestView['events'],
    overriddenBy: Array.isArray(row.overriddenBy) ? (row.overriddenBy as SelfConfigRequestView['overriddenBy']) : [],
    awaitingApprovalAt: row.awaitingApprovalAt,
    approvalDecision: row.approvalDecision,
    approvalById: row.approvalById,
    approvalAt: row.approvalAt,
    approvalReason: row.approvalReason,
    createdAt: row.createdAt,
    pendingAt: row.pendingAt,
    completedAt: row.completedAt,
    deletedAt: row.deletedAt,
  };
}

export interface SelfConfigRequestFilter {
  agentId?: string | null;
  namespaceId?: string | null;
  phase?: string | null;
}

/**
 * Who may read which rows: the rows of the namespaces where the caller reads agents,
 * and of each agent it reads (its own, for an agent's principal), each an index range in the
 * list's order.
 */
async function readableRequests(deps: Deps, actor: Actor): Promise<Visible | null> {
  const readable = await readableBy(deps.db, actor, 'agent');
  if (readable.everywhere) return null;
  const own = actor.kind === 'SERVICE' ? await deps.db.agent.findUnique({ where: { servicePrincipalId: actor.principalId }, select: { id: true } }) : null;
  const agentIds = [...new Set([...readable.resourceIds, ...(own ? [own.id] : [])])];
  return {
    any: [
      { column: '"namespaceId"', values: readable.namespaceIds, ranges: true },
      { column: '"agentId"', values: agentIds, ranges: true },
    ].filter((f) => f.values.length > 0),
  };
}

/** A page of the SelfConfig history the caller may read, newest first. */
export async function listSelfConfigRequests(deps: Deps, actor: Actor, page: PageRequest, filter: SelfConfigRequestFilter = {}): Promise<PageOf<SelfConfigRequestView>> {
  // An id that cannot be one names nothing: an empty page, as for an id the caller cannot read (P6).
  const impossible = [filter.agentId, filter.namespaceId].some((id) => id !== null && id !== undefined && id !== '' && !isIdShaped(id));
  const where = and([
    filter.agentId ? sql`"agentId" = ${filter.agentId}` : null,
    filter.namespaceId ? sql`"namespaceId" = ${filter.namespaceId}` : null,
    filter.phase ? sql`"phase" = ${filter.phase}` : null,
    impossible ? sql`FALSE` : null,
  ]);
  let visible = await readableRequests(deps, actor);
  if (filter.agentId) visible = visibleWithin(visible, '"agentId"', filter.agentId);
  if (filter.namespaceId) visible = visibleWithin(visible, '"namespaceId"', filter.namespaceId);
  return sqlKeysetPage(deps.db, page, { columns: sql`*`, table: sql`"public"."SelfConfigRequest"`, where, visible }, toSelfConfigRequestView, { field: 'createdAt', newestFirst: true });
}

/**
 * SG3: the requests awaiting an approval decision that the caller may make: of agents it may
 * administer (in a namespace, or the agent itself), never its own agent's. Newest first.
 */
export async function listSelfConfigApprovals(deps: Deps, actor: Actor, page: PageRequest): Promise<PageOf<SelfConfigRequestView>> {
  const administer = (await permissionSets(deps.db, actor))('administer', 'agent');
  const own = actor.kind === 'SERVICE' ? await deps.db.agent.findUnique({ where: { servicePrincipalId: actor.principalId }, select: { id: true } }) : null;
  const visible: Visible | null = administer.everywhere
    ? null
    : {
        any: [
          { column: '"namespaceId"', values: administer.namespaceIds, ranges: true },
          { column: '"agentId"', values: administer.resourceIds, ranges: true },
        ].filter((f) => f.values.length > 0),
      };
  const where = and([sql`"phase" = 'AwaitingApproval'`, sql`"approvalDecision" IS NULL`, sql`"agentId" IS NOT NULL`, own ? sql`"agentId" IS DISTINCT FROM ${own.id}` : null]);
  return sqlKeysetPage(deps.db, page, { columns: sql`*`, table: sql`"public"."SelfConfigRequest"`, where, visible }, toSelfConfigRequestView, { field: 'createdAt', newestFirst: true });
}
