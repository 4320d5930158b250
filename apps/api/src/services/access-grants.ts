import type { Scope } from '@occ/domain/access';
import { NotFoundError, ValidationError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { isIdShaped } from '@occ/domain/text';
import { transaction, type Tx } from '../db/client.ts';
import { newId } from '../ids.ts';
import {
  authorizeAdminister,
  authorizeAny,
  administerRequest,
  findBindings,
  resolveScope,
  scopeColumns,
  type AccessBindingView,
  type ScopeInput,
} from './access-scope.ts';
import { auditHiddenDenial, decider, scopeOf } from './access.ts';
import { canSeeBinding } from './access-queries.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';

// Rule A2: grant and revoke need `administer` (see administerRequest for each scope kind), the
// target must exist, both are idempotent, and the audit event is written in the transaction that
// makes the change, so an audit row exists exactly when a binding was created or deleted.

export interface GrantInput {
  subjectId: string;
  roleId: string;
  scope: ScopeInput;
}

/**
 * Row lock on the subject: serializes grants and revokes for one subject across processes, so two
 * identical grants cannot both insert (the table has no unique key over the scope's nullable columns).
 */
async function lockSubject(tx: Tx, subjectId: string): Promise<boolean> {
  if (!isIdShaped(subjectId)) return false;
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Principal" WHERE id = ${subjectId} FOR UPDATE`;
  return rows.length === 1;
}

/**
 * Keeps the scope's namespace and resource from being deleted until the commit. The namespace goes
 * first, the order deleteSecret takes its locks in (namespace, then secret): the other order
 * deadlocks against it, since the binding's foreign key also share-locks the namespace.
 */
async function lockScopeTarget(tx: Tx, scope: Scope, input: ScopeInput): Promise<void> {
  if (scope.kind === 'installation') return;
  if (scope.namespaceId) await tx.$queryRaw`SELECT id FROM "Namespace" WHERE id = ${scope.namespaceId} FOR KEY SHARE`;
  await resolveScope(tx, input);
}

/** A custom role belongs to one namespace and binds only inside it; built-in roles bind anywhere. */
async function requireRoleFor(tx: Tx, roleId: string, scope: Scope): Promise<{ id: string; name: string }> {
  const role = isIdShaped(roleId) ? await tx.role.findUnique({ where: { id: roleId }, select: { id: true, name: true, namespaceId: true } }) : null;
  const usable = role && (role.namespaceId === null || (scope.kind !== 'installation' && scope.namespaceId === role.namespaceId));
  if (!role || !usable) throw new NotFoundError('No such role for this scope.');
  return role;
}

function auditScope(scope: Scope) {
  return { scope: scope.kind, ...(scope.kind === 'resource' ? { resourceKind: scope.resourceKind, resourceId: scope.resourceId } : {}) };
}

/** Granting a binding that exists returns it unchanged (created: false) and writes nothing. */
export async function grantAccess(deps: Deps, actor: Actor, input: GrantInput): Promise<{ binding: AccessBindingView; created: boolean }> {
  const scope = await resolveScope(deps.db, input.scope);
  await authorizeAdminister(deps, actor, scope);
  const columns = scopeColumns(scope);
  const outcome = await transaction(deps.db, async (tx) => {
    if (!(await lockSubject(tx, input.subjectId))) throw new NotFoundError('No such principal.');
    const role = await requireRoleFor(tx, input.roleId, scope);
    await lockScopeTarget(tx, scope, input.scope);
    await authorizeAny(deps, actor, [administerRequest(scope)], tx);
    const existing = await tx.accessBinding.findFirst({ where: { subjectId: input.subjectId, roleId: role.id, ...columns }, select: { id: true } });
    if (existing) return { id: existing.id, created: false };
    const id = newId('accessBinding');
    await tx.accessBinding.create({ data: { id, subjectId: input.subjectId, roleId: role.id, ...columns, createdById: actor.principalId } });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'accessBinding.create',
      resourceKind: 'accessBinding',
      resourceId: id,
      namespaceId: columns.namespaceId,
      outcome: 'SUCCESS',
      details: { subjectId: input.subjectId, roleId: role.id, role: role.name, ...auditScope(scope) },
    });
    return { id, created: true };
  });
  const [binding] = await findBindings(deps.db, { id: outcome.id });
  // Revoked between the commit and this read: the grant happened, report it as it was.
  if (!binding) throw new NotFoundError('The binding was revoked concurrently.');
  return { binding, created: outcome.created };
}

export type RevokeInput = { bindingId: string } | GrantInput;

export interface RevokeResult {
  /** False when no such binding existed: nothing changed and nothing was audited. */
  changed: boolean;
  revokedBindingIds: string[];
}

export function parseRevokeInput(input: { bindingId?: string | null; subjectId?: string | null; roleId?: string | null; scope?: ScopeInput | null }): RevokeInput {
  const byId = Boolean(input.bindingId);
  const byTriple = Boolean(input.subjectId || input.roleId || input.scope);
  if (byId && !byTriple) return { bindingId: input.bindingId! };
  if (!byId && input.subjectId && input.roleId && input.scope) return { subjectId: input.subjectId, roleId: input.roleId, scope: input.scope };
  throw new ValidationError('INVALID_REVOKE', 'Give either bindingId, or subjectId, roleId and scope.', byId ? 'bindingId' : 'scope');
}

/**
 * By id: a binding that does not exist, or that the caller cannot see, is NOT_FOUND (P6). By (subject, role, scope): the subject, role and
 * scope target must exist, like for a grant; every identical binding goes (duplicates may predate
 * the subject lock), each with its own audit event.
 */
export async function revokeAccess(deps: Deps, actor: Actor, input: RevokeInput): Promise<RevokeResult> {
  let scope: Scope;
  let where: { subjectId: string; roleId: string; scopeKind: 'INSTALLATION' | 'NAMESPACE' | 'RESOURCE'; namespaceId: string | null; resourceKind: string | null; resourceId: string | null };
  if ('bindingId' in input) {
    const row = isId('accessBinding', input.bindingId) ? await deps.db.accessBinding.findUnique({ where: { id: input.bindingId } }) : null;
    if (!row) throw new NotFoundError('No such access binding.');
    scope = scopeOf(row);
    // P6: a binding the caller cannot see answers exactly as one that does not exist.
    if (!canSeeBinding(actor.principalId, await decider(deps.db, actor))({ subjectId: row.subjectId, scope })) {
      await auditHiddenDenial(deps, actor, { kind: 'accessBinding', id: row.id, namespaceId: row.namespaceId });
      throw new NotFoundError('No such access binding.');
    }
    where = { subjectId: row.subjectId, roleId: row.roleId, ...scopeColumns(scope) };
  } else {
    scope = await resolveScope(deps.db, input.scope);
    where = { subjectId: input.subjectId, roleId: input.roleId, ...scopeColumns(scope) };
  }
  await authorizeAdminister(deps, actor, scope);
  return transaction(deps.db, async (tx) => {
    const subjectExists = await lockSubject(tx, where.subjectId);
    if (!('bindingId' in input)) {
      if (!subjectExists) throw new NotFoundError('No such principal.');
      await requireRoleFor(tx, input.roleId, scope);
    }
    await authorizeAny(deps, actor, [administerRequest(scope)], tx);
    const rows = await tx.accessBinding.findMany({
      where: 'bindingId' in input ? { id: input.bindingId } : where,
      select: { id: true, role: { select: { name: true } } },
    });
    if (rows.length === 0) return { changed: false, revokedBindingIds: [] };
    await tx.accessBinding.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
    for (const row of rows) {
      await audit(tx, {
        actorId: actor.principalId,
        action: 'accessBinding.delete',
        resourceKind: 'accessBinding',
        resourceId: row.id,
        namespaceId: where.namespaceId,
        outcome: 'SUCCESS',
        details: { subjectId: where.subjectId, roleId: where.roleId, role: row.role.name, ...auditScope(scope) },
      });
    }
    return { changed: true, revokedBindingIds: rows.map((r) => r.id) };
  });
}
