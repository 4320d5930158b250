import { decide, readableSet, type Action, type AccessRequest, type BindingView, type Decision, type Permission, type ReadableSet, type ResourceKind, type Scope } from '@occ/domain/access';
import { ForbiddenError, NotFoundError } from '@occ/domain/errors';
import { afterRollback, type Db, type Tx } from '../db/client.ts';
import { sql, sqlRows } from '../db/sql.ts';
import { audit } from './audit.ts';
import { remembered } from './auth-cache.ts';
import type { Actor, Deps } from './deps.ts';

type BindingRow = {
  id: string;
  subjectId: string;
  scopeKind: 'INSTALLATION' | 'NAMESPACE' | 'RESOURCE';
  namespaceId: string | null;
  resourceKind: string | null;
  resourceId: string | null;
  role: { id: string; name: string; permissions: unknown };
};

/** A binding row's scope columns as the domain's Scope. */
export function scopeOf(row: Pick<BindingRow, 'scopeKind' | 'namespaceId' | 'resourceKind' | 'resourceId'>): Scope {
  switch (row.scopeKind) {
    case 'INSTALLATION':
      return { kind: 'installation' };
    case 'NAMESPACE':
      return { kind: 'namespace', namespaceId: row.namespaceId ?? '' };
    case 'RESOURCE':
      return { kind: 'resource', resourceKind: row.resourceKind as ResourceKind, resourceId: row.resourceId ?? '', namespaceId: row.namespaceId };
  }
}

export async function loadBindings(db: Db | Tx, subjectId: string): Promise<BindingView[]> {
  return (await loadBindingsOf(db, [subjectId])).get(subjectId) ?? [];
}

/** The bindings of many subjects, with their roles, in one statement (loaders decide for a page of agents at once). */
export async function loadBindingsOf(db: Db | Tx, subjectIds: readonly string[]): Promise<Map<string, BindingView[]>> {
  const rows = await sqlRows<Omit<BindingRow, 'role'> & { roleId: string; roleName: string; permissions: unknown }>(
    db,
    sql`SELECT b.id, b."subjectId", b."scopeKind"::text AS "scopeKind", b."namespaceId", b."resourceKind", b."resourceId",
               r.id AS "roleId", r.name AS "roleName", r.permissions
        FROM "public"."AccessBinding" b JOIN "public"."Role" r ON r.id = b."roleId"
        WHERE b."subjectId" = ANY(${[...new Set(subjectIds)]}::text[])`,
  );
  const bySubject = new Map<string, BindingView[]>(subjectIds.map((id) => [id, []]));
  for (const row of rows) {
    bySubject.get(row.subjectId)?.push({
      id: row.id,
      subjectId: row.subjectId,
      role: { id: row.roleId, name: row.roleName, permissions: row.permissions as Permission[] },
      scope: scopeOf(row),
    });
  }
  return bySubject;
}

/**
 * The actor's bindings. A request's actor reads them once for all its reads, and a process with an
 * authentication cache (auth-cache.ts) once until any binding or role changes; inside a
 * transaction they are always read afresh, so the re-checks under a lock (S7, C4, A2) see a
 * revocation that committed while the request ran.
 */
function actorBindings(db: Db | Tx, actor: Actor): Promise<BindingView[]> {
  if (!actor.memo || !('$transaction' in db)) return loadBindings(db, actor.principalId);
  return (actor.memo.bindings ??= keptBindings(db, actor.principalId));
}

async function keptBindings(db: Db, principalId: string): Promise<BindingView[]> {
  return (await remembered(db, 'bindings', principalId, () => loadBindings(db, principalId)))!;
}

/**
 * Where the actor may do an action on a kind, as sets a query can filter by (readableSet), from
 * one read of its bindings however many (action, kind) pairs the caller asks about.
 */
export async function permissionSets(db: Db | Tx, actor: Actor): Promise<(action: Action, kind: ResourceKind) => ReadableSet> {
  const bindings = await actorBindings(db, actor);
  return (action, kind) => readableSet(bindings, actor.principalId, action, kind);
}

/** The scopes where the actor may read `kind`, for a list query to filter by (readableWhere). */
export async function readableBy(db: Db | Tx, actor: Actor, kind: ResourceKind): Promise<ReadableSet> {
  return (await permissionSets(db, actor))('read', kind);
}

export async function check(db: Db | Tx, actor: Actor, request: Omit<AccessRequest, 'subjectId'>): Promise<Decision> {
  const full = { ...request, subjectId: actor.principalId };
  return decide(await actorBindings(db, actor), full);
}

/**
 * Allows or throws ForbiddenError. A denial is audited in its own write (there is no change to
 * share a transaction with) and answers without detail.
 */
export async function authorize(
  deps: Pick<Deps, 'db'>,
  actor: Actor,
  request: Omit<AccessRequest, 'subjectId'>,
  via: Db | Tx = deps.db,
): Promise<Decision> {
  const decision = await check(via, actor, request);
  if (!decision.allowed) await deny(deps, actor, request, via);
  return decision;
}

/**
 * Refuses with a bare FORBIDDEN and audits the denial. Inside a transaction (`via` is its client)
 * the audit is written after the rollback, so it survives it and never waits on the open lock.
 */
export async function deny(deps: Pick<Deps, 'db'>, actor: Actor, request: Omit<AccessRequest, 'subjectId'>, via: Db | Tx = deps.db): Promise<never> {
  const error = new ForbiddenError();
  const write = () =>
    audit(deps.db, {
      actorId: actor.principalId,
      action: `${request.resourceKind}.${request.action}`,
      resourceKind: request.resourceKind,
      resourceId: request.resourceId,
      namespaceId: request.namespaceId,
      outcome: 'DENIED',
      reason: 'no access binding grants this',
    });
  if (via === deps.db) await write();
  else afterRollback(error, write);
  throw error;
}

/** Loads the actor's bindings once, for deciding many requests (lists). */
export async function decider(db: Db | Tx, actor: Actor): Promise<(request: Omit<AccessRequest, 'subjectId'>) => Decision> {
  const bindings = await actorBindings(db, actor);
  return (request) => decide(bindings, { ...request, subjectId: actor.principalId });
}

/**
 * A resource that exists but the actor may not read answers NOT_FOUND, so its existence does not
 * leak; it is still a denial, and denials are audited.
 */
export async function auditHiddenDenial(
  deps: Pick<Deps, 'db'>,
  actor: Actor,
  resource: { kind: AccessRequest['resourceKind']; id: string; namespaceId: string | null },
): Promise<void> {
  await audit(deps.db, {
    actorId: actor.principalId,
    action: `${resource.kind}.read`,
    resourceKind: resource.kind,
    resourceId: resource.id,
    namespaceId: resource.namespaceId,
    outcome: 'DENIED',
    reason: 'not readable: answered NOT_FOUND',
  });
}

/**
 * P6 for a request on a target the caller may or may not read: allowed; NOT_FOUND (audited as a
 * hidden denial) when none of `read` lets the caller see the target, exactly as if it did not
 * exist; otherwise a bare, audited FORBIDDEN. Inside a transaction the audit is written after
 * the rollback, as deny() does.
 */
export async function authorizeVisible(
  deps: Pick<Deps, 'db'>,
  actor: Actor,
  request: Omit<AccessRequest, 'subjectId'>,
  read: ReadonlyArray<Omit<AccessRequest, 'subjectId'>>,
  via: Db | Tx = deps.db,
  notFound = `No such ${request.resourceKind}.`,
): Promise<void> {
  const may = await decider(via, actor);
  if (may(request).allowed) return;
  if (!read.some((r) => may(r).allowed)) {
    const error = new NotFoundError(notFound);
    const write = () => auditHiddenDenial(deps, actor, { kind: request.resourceKind, id: request.resourceId ?? '', namespaceId: request.namespaceId });
    if (via === deps.db) await write();
    else afterRollback(error, write);
    throw error;
  }
  await deny(deps, actor, request, via);
}

/**
 * The caller's view of a resource, or NOT_FOUND: a resource that exists but is hidden from the
 * caller does not leak its existence, and the denial is audited.
 */
export async function requireVisible<T>(
  deps: Pick<Deps, 'db'>,
  actor: Actor,
  resource: { kind: AccessRequest['resourceKind']; id: string },
  view: T | null,
  locate: () => Promise<{ namespaceId: string | null } | null>,
): Promise<T> {
  if (view) return view;
  const row = await locate();
  if (row) await auditHiddenDenial(deps, actor, { kind: resource.kind, id: resource.id, namespaceId: row.namespaceId });
  throw new NotFoundError(`No such ${resource.kind}.`);
}
