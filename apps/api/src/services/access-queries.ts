import { ACTIONS, RESOURCE_KINDS, decide, type AccessRequest, type BindingView, type Decision, type ReadableSet, type ResourceKind, type Scope } from '@occ/domain/access';
import { isId } from '@occ/domain/ids';
import { isIdShaped } from '@occ/domain/text';
import { NotFoundError, ValidationError } from '@occ/domain/errors';
import { join, sql, type Sql } from '../db/sql.ts';
import { auditHiddenDenial, decider, loadBindings, permissionSets } from './access.ts';
import { authorizeAny, bindingsPage, findBindings, isAction, isResourceKind, readBindingsRequests, type AccessBindingView, type Request } from './access-scope.ts';
import type { Actor, Deps } from './deps.ts';
import type { PageOf, PageRequest } from './pagination.ts';
import { resourceExists } from './resource-kinds.ts';

// Reading bindings: a caller sees the bindings at scopes where it may read or administer them
// (readBindingsRequests), and always its own.

/** Whether `actorId`, deciding with `may`, sees a binding: its own, or one at a scope where it may read or administer bindings. */
export function canSeeBinding(actorId: string, may: (request: Omit<AccessRequest, 'subjectId'>) => Decision): (binding: Pick<AccessBindingView, 'subjectId' | 'scope'>) => boolean {
  return (binding) => binding.subjectId === actorId || readBindingsRequests(binding.scope).some((request) => may(request).allowed);
}

async function readableBy(deps: Deps, actor: Actor): Promise<(binding: AccessBindingView) => boolean> {
  return canSeeBinding(actor.principalId, await decider(deps.db, actor));
}

/**
 * canSeeBinding as a SQL condition, so a page of bindings holds `first` visible rows: the actor's
 * own; those where it may read bindings (`read` on `accessBinding` at the binding's namespace, or
 * everywhere; an installation-scope binding needs it everywhere); and those it may administer
 * (administerRequest: `administer` on the installation, on `accessBinding` in the namespace, or
 * on the bound resource's kind covering that resource). access.test.ts checks it row for row
 * against canSeeBinding on generated grants.
 */
export async function visibleBindingsWhere(deps: Deps, actor: Actor): Promise<Sql> {
  // Over the bindings `b` (access-scope.ts, bindingsPage).
  const setWhere = (set: ReadableSet, resource: boolean): Sql | null =>
    set.everywhere
      ? sql`TRUE`
      : set.namespaceIds.length > 0 || (resource && set.resourceIds.length > 0)
        ? resource
          ? sql`(b."namespaceId" = ANY(${set.namespaceIds}::text[]) OR b."resourceId" = ANY(${set.resourceIds}::text[]))`
          : sql`b."namespaceId" = ANY(${set.namespaceIds}::text[])`
        : null;
  const permitted = await permissionSets(deps.db, actor);
  const readAll = permitted('read', 'accessBinding');
  // Who reads bindings everywhere sees every binding: no clause for the planner to fold away.
  if (readAll.everywhere) return sql`TRUE`;
  const any: Sql[] = [sql`b."subjectId" = ${actor.principalId}`];
  const readBindings = setWhere(readAll, false);
  if (readBindings) any.push(readBindings);
  if (permitted('administer', 'installation').everywhere) any.push(sql`b."scopeKind" = 'INSTALLATION'`);
  const administerNamespaces = setWhere(permitted('administer', 'accessBinding'), false);
  if (administerNamespaces) any.push(sql`(b."scopeKind" = 'NAMESPACE' AND ${administerNamespaces})`);
  for (const kind of RESOURCE_KINDS) {
    const administerKind = setWhere(permitted('administer', kind), true);
    if (administerKind) any.push(sql`(b."scopeKind" = 'RESOURCE' AND b."resourceKind" = ${kind} AND ${administerKind})`);
  }
  return sql`(${join(any, ' OR ')})`;
}

/** A subject's bindings the actor may see, a keyset page in SQL (oldest first). */
export async function bindingsOfSubjectPage(deps: Deps, actor: Actor, subjectId: string, page: PageRequest): Promise<PageOf<AccessBindingView>> {
  // An id no row can have matches nothing; the query still runs, so the answer's shape is one.
  const subject = isIdShaped(subjectId) ? subjectId : '';
  return bindingsPage(deps.db, sql`b."subjectId" = ${subject} AND ${await visibleBindingsWhere(deps, actor)}`, page);
}


/**
 * The bindings that target one resource. For a namespace these are the bindings on the namespace
 * resource and those at its namespace scope; broader bindings that also cover the resource are
 * explainAccess's business.
 */
export async function listBindingsForResource(deps: Deps, actor: Actor, resourceKind: string, resourceId: string): Promise<AccessBindingView[]> {
  if (!isResourceKind(resourceKind) || !isIdShaped(resourceId)) return [];
  const exact = { scopeKind: 'RESOURCE' as const, resourceKind, resourceId };
  const where = resourceKind === 'namespace' ? { OR: [exact, { scopeKind: 'NAMESPACE' as const, namespaceId: resourceId }] } : exact;
  const readable = await readableBy(deps, actor);
  return (await findBindings(deps.db, where)).filter(readable);
}

/**
 * The bindings on single resources of one namespace (optionally of one kind), in one query: the
 * console's Access tab shows the grants on every secret without one request per secret.
 */
export async function listResourceBindingsInNamespace(deps: Deps, actor: Actor, namespaceId: string, resourceKind?: string | null): Promise<AccessBindingView[]> {
  if (!isIdShaped(namespaceId)) return [];
  if (resourceKind != null && !isResourceKind(resourceKind)) return [];
  const readable = await readableBy(deps, actor);
  const where = { scopeKind: 'RESOURCE' as const, namespaceId, ...(resourceKind != null ? { resourceKind } : {}) };
  return (await findBindings(deps.db, where)).filter(readable);
}

export interface AccessExplanation {
  allowed: boolean;
  evidence: Array<{ binding: AccessBindingView; roleName: string }>;
  /** Bindings that allowed it but that the caller may not read: counted, not shown. */
  hiddenEvidenceCount: number;
  summary: string;
}

export interface ExplainInput {
  subjectId: string;
  action: string;
  resourceKind: string;
  namespaceId?: string | null;
  resourceId?: string | null;
}

function describeScope(scope: Scope): string {
  switch (scope.kind) {
    case 'installation':
      return 'installation scope';
    case 'namespace':
      return `namespace ${scope.namespaceId}`;
    case 'resource':
      return `${scope.resourceKind} ${scope.resourceId}`;
  }
}

/**
 * Why a subject may or may not do something: the decision with the bindings that allowed it. The
 * caller is the subject, or may read (or administer) access bindings where the resource lives;
 * anyone else gets a bare, audited FORBIDDEN. A known resource's namespace comes from its row.
 */
export async function explainAccess(deps: Deps, actor: Actor, input: ExplainInput): Promise<AccessExplanation> {
  const { action, resourceKind } = input;
  if (!isAction(action)) throw new ValidationError('UNKNOWN_ACTION', `Unknown action; use one of ${ACTIONS.join(', ')}.`, 'action');
  if (!isResourceKind(resourceKind)) throw new ValidationError('UNKNOWN_RESOURCE_KIND', `Unknown resource kind; use one of ${RESOURCE_KINDS.join(', ')}.`, 'resourceKind');
  let namespaceId = input.namespaceId ?? null;
  const resourceId = input.resourceId ?? null;
  let target: { kind: ResourceKind; id: string; namespaceId: string | null } | null = null;
  if (resourceId) {
    const found = isIdShaped(resourceId) ? await resourceExists(deps.db, resourceKind, resourceId) : null;
    if (found === null || (found !== 'unsupported' && input.namespaceId && input.namespaceId !== found.namespaceId)) {
      throw new NotFoundError(`No such ${resourceKind}.`);
    }
    if (found !== 'unsupported') {
      namespaceId = found.namespaceId;
      target = found;
    }
  } else if (namespaceId) {
    const found = isId('namespace', namespaceId) ? await resourceExists(deps.db, 'namespace', namespaceId) : null;
    if (!found || found === 'unsupported') throw new NotFoundError('No such namespace.');
    target = found;
  }
  const may = await decider(deps.db, actor);
  const bindingRequests: Request[] = [
    { action: 'read', resourceKind: 'accessBinding', namespaceId, resourceId: null },
    { action: 'administer', resourceKind: 'accessBinding', namespaceId, resourceId: null },
  ];
  // P6: a namespace or resource the caller cannot see is NOT_FOUND, exactly as a made-up one,
  // whoever the subject is. It sees it by reading it, by reading the bindings where it lives, or
  // through a binding of its own that targets it (its own bindings are always shown to it).
  if (target) {
    const readTarget: Request = { action: 'read', resourceKind: target.kind, namespaceId: target.namespaceId, resourceId: target.id };
    const own = await loadBindings(deps.db, actor.principalId);
    const named = own.some(({ scope }) => (scope.kind === 'resource' && scope.resourceId === target.id) || (scope.kind !== 'installation' && scope.namespaceId === target.id));
    if (!named && ![readTarget, ...bindingRequests].some((r) => may(r).allowed)) {
      await auditHiddenDenial(deps, actor, target);
      throw new NotFoundError(target.kind === 'namespace' && !resourceId ? 'No such namespace.' : `No such ${resourceKind}.`);
    }
  }
  const isSubject = input.subjectId === actor.principalId;
  if (!isSubject) await authorizeAny(deps, actor, bindingRequests);
  if (!isIdShaped(input.subjectId) || !(await deps.db.principal.findUnique({ where: { id: input.subjectId }, select: { id: true } }))) {
    throw new NotFoundError('No such principal.');
  }
  const bindings = await findBindings(deps.db, { subjectId: input.subjectId });
  const request: AccessRequest = { subjectId: input.subjectId, action, resourceKind, namespaceId, resourceId };
  const decision = decide(bindings as BindingView[], request);
  const byId = new Map(bindings.map((b) => [b.id, b]));
  const readable = await readableBy(deps, actor);
  const evidence = decision.evidence.map((e) => ({ binding: byId.get(e.bindingId)!, roleName: e.roleName })).filter((e) => readable(e.binding));
  const hiddenEvidenceCount = decision.evidence.length - evidence.length;
  const what = `${action} on ${resourceKind}${resourceId ? ` ${resourceId}` : namespaceId ? ` in namespace ${namespaceId}` : ''}`;
  const summary = decision.allowed
    ? `Allowed: ${[...evidence.map((e) => `role ${e.roleName} at ${describeScope(e.binding.scope)}`), ...(hiddenEvidenceCount ? [`${hiddenEvidenceCount} binding(s) you may not read`] : [])].join('; ')} grant(s) ${what}.`
    : `Denied: no access binding of ${input.subjectId} grants ${what}. No action implies another.`;
  return { allowed: decision.allowed, evidence, hiddenEvidenceCount, summary };
}
