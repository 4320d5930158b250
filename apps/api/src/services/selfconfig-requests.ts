import { isIdShaped } from '@occ/domain/text';
import type { Db } from '../db/client.ts';
import { readableBy } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { keysetPage, type PageOf, type PageRequest } from './pagination.ts';

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
  skippedRemovals: Array<{ kind: string; name: string; why: string; managers: Array<{ manager: string; operation: string }> }>;
  events: Array<{ type: string; reason: string; message: string; on: string; at: string }>;
  /** RC3: the revisions that took items this request set. */
  overriddenBy: Array<{ revisionId: string; number: number; items: string[]; at: string }>;
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
    skippedRemovals: row.skippedRemovals as SelfConfigRequestView['skippedRemovals'],
    events: row.events as SelfConfigRequestView['events'],
    overriddenBy: Array.isArray(row.overriddenBy) ? (row.overriddenBy as SelfConfigRequestView['overriddenBy']) : [],
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

/** Who may read which rows, as a Prisma condition. */
async function readableRequests(deps: Deps, actor: Actor): Promise<object> {
  const readable = await readableBy(deps.db, actor, 'agent');
  if (readable.everywhere) return {};
  const own = actor.kind === 'SERVICE' ? await deps.db.agent.findUnique({ where: { servicePrincipalId: actor.principalId }, select: { id: true } }) : null;
  return {
    OR: [{ namespaceId: { in: readable.namespaceIds } }, { agentId: { in: [...readable.resourceIds, ...(own ? [own.id] : [])] } }],
  };
}

/** A page of the SelfConfig history the caller may read, newest first. */
export async function listSelfConfigRequests(deps: Deps, actor: Actor, page: PageRequest, filter: SelfConfigRequestFilter = {}): Promise<PageOf<SelfConfigRequestView>> {
  // An id that cannot be one names nothing: an empty page, as for an id the caller cannot read (P6).
  const impossible = [filter.agentId, filter.namespaceId].some((id) => id !== null && id !== undefined && id !== '' && !isIdShaped(id));
  const where = {
    AND: [
      await readableRequests(deps, actor),
      filter.agentId ? { agentId: filter.agentId } : {},
      filter.namespaceId ? { namespaceId: filter.namespaceId } : {},
      filter.phase ? { phase: filter.phase } : {},
      impossible ? { id: { in: [] } } : {},
    ],
  };
  return keysetPage(
    page,
    (q) => deps.db.selfConfigRequest.findMany({ where: { AND: [where, q.where] }, orderBy: q.orderBy, take: q.take }),
    () => deps.db.selfConfigRequest.count({ where }),
    toSelfConfigRequestView,
    { field: 'createdAt', newestFirst: true },
  );
}
