import { ACTIONS, BUILT_IN_ROLES, RESOURCE_KINDS, type Permission } from '@occ/domain/access';
import { ConflictError, ValidationError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { transaction } from '../db/client.ts';
import { newId } from '../ids.ts';
import { authorize, decider } from './access.ts';
import { isAction, isResourceKind, ROLE_SELECT, toRoleRow, type RoleRow } from './access-scope.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { kinds } from './resource-kinds.ts';

// Custom roles: named permission sets owned by one namespace, bindable only inside it.

const ROLE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

export function validatePermissions(permissions: ReadonlyArray<{ action: string; resourceKind: string }>): Permission[] {
  if (permissions.length === 0) throw new ValidationError('EMPTY_PERMISSIONS', 'A role needs at least one permission.', 'permissions');
  const seen = new Map<string, Permission>();
  for (const p of permissions) {
    if (!isAction(p.action)) throw new ValidationError('UNKNOWN_ACTION', `Unknown action; use one of ${ACTIONS.join(', ')}.`, 'permissions');
    if (!isResourceKind(p.resourceKind)) throw new ValidationError('UNKNOWN_RESOURCE_KIND', `Unknown resource kind; use one of ${RESOURCE_KINDS.join(', ')}.`, 'permissions');
    seen.set(`${p.action}:${p.resourceKind}`, { action: p.action, resourceKind: p.resourceKind });
  }
  return [...seen.values()];
}

/** Needs `administer` on `role` in the namespace. Names are unique per namespace and never shadow a built-in role. */
export async function createRole(
  deps: Deps,
  actor: Actor,
  input: { namespaceId: string; name: string; permissions: ReadonlyArray<{ action: string; resourceKind: string }> },
): Promise<RoleRow> {
  if (!ROLE_NAME.test(input.name)) {
    throw new ValidationError('INVALID_NAME', 'A role name is 1-63 lowercase letters, digits or dashes, starting with a letter.', 'name');
  }
  const permissions = validatePermissions(input.permissions);
  const ns = await kinds.require(deps, actor, 'namespace', input.namespaceId);
  await authorize(deps, actor, { action: 'administer', resourceKind: 'role', namespaceId: ns.id, resourceId: null });
  if (BUILT_IN_ROLES.some((r) => r.name === input.name)) throw new ConflictError(`${input.name} is a built-in role.`, 'NAME_TAKEN');
  const id = newId('role');
  try {
    return await transaction(deps.db, async (tx) => {
      const row = await tx.role.create({ data: { id, name: input.name, namespaceId: ns.id, builtIn: false, permissions: permissions as object[] }, select: ROLE_SELECT });
      await audit(tx, {
        actorId: actor.principalId,
        action: 'role.create',
        resourceKind: 'role',
        resourceId: id,
        namespaceId: ns.id,
        outcome: 'SUCCESS',
        details: { name: input.name, permissions },
      });
      return toRoleRow(row);
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw new ConflictError(`A role named ${input.name} exists in this namespace.`, 'NAME_TAKEN');
    throw error;
  }
}

/** Built-in roles, plus a namespace's custom roles when the caller may read roles there. */
export async function listRoles(deps: Deps, actor: Actor, namespaceId: string | null): Promise<RoleRow[]> {
  const builtIn = await deps.db.role.findMany({ where: { builtIn: true }, select: ROLE_SELECT, orderBy: { name: 'asc' } });
  if (!namespaceId || !isId('namespace', namespaceId)) return builtIn.map(toRoleRow);
  const may = await decider(deps.db, actor);
  const request = (action: 'read' | 'administer') => ({ action, resourceKind: 'role', namespaceId, resourceId: null }) as const;
  if (!may(request('read')).allowed && !may(request('administer')).allowed) return builtIn.map(toRoleRow);
  const custom = await deps.db.role.findMany({ where: { namespaceId }, select: ROLE_SELECT, orderBy: { name: 'asc' } });
  return [...builtIn, ...custom].map(toRoleRow);
}
