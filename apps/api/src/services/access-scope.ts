import { ACTIONS, RESOURCE_KINDS, type AccessRequest, type Action, type Permission, type ResourceKind, type Scope } from '@occ/domain/access';
import { NotFoundError, ValidationError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { isIdShaped } from '@occ/domain/text';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Db, Tx } from '../db/client.ts';
import { sql, type Sql } from '../db/sql.ts';
import { auditHiddenDenial, decider, deny, scopeOf } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { resourceExists } from './resource-kinds.ts';
import { toPrincipalView, type PrincipalView } from './users.ts';
import { sqlKeysetPage, type PageOf, type PageRequest } from './pagination.ts';

// Scopes of access bindings as the administration use cases see them: parsing a requested scope,
// and who may administer or read the bindings at one.

export type Request = Omit<AccessRequest, 'subjectId'>;

export interface ScopeInput {
  kind: 'INSTALLATION' | 'NAMESPACE' | 'RESOURCE';
  namespaceId?: string | null;
  resourceKind?: string | null;
  resourceId?: string | null;
}

export const isAction = (value: string): value is Action => (ACTIONS as readonly string[]).includes(value);
export const isResourceKind = (value: string): value is ResourceKind => (RESOURCE_KINDS as readonly string[]).includes(value);

/**
 * The shape must fit the kind, and the namespace or resource must exist. A resource's namespace
 * comes from its row; a namespaceId given with it must match, or the resource is not found.
 */
export async function resolveScope(db: Db | Tx, input: ScopeInput): Promise<Scope> {
  switch (input.kind) {
    case 'INSTALLATION':
      if (input.namespaceId || input.resourceKind || input.resourceId) {
        throw new ValidationError('INVALID_SCOPE', 'An installation scope takes no namespace or resource.', 'scope');
      }
      return { kind: 'installation' };
    case 'NAMESPACE': {
      if (!input.namespaceId || input.resourceKind || input.resourceId) {
        throw new ValidationError('INVALID_SCOPE', 'A namespace scope takes a namespaceId and no resource.', 'scope');
      }
      if (!isId('namespace', input.namespaceId) || !(await resourceExists(db, 'namespace', input.namespaceId))) throw new NotFoundError('No such namespace.');
      return { kind: 'namespace', namespaceId: input.namespaceId };
    }
    case 'RESOURCE': {
      const { resourceKind, resourceId } = input;
      if (!resourceKind || !resourceId) throw new ValidationError('INVALID_SCOPE', 'A resource scope takes a resourceKind and a resourceId.', 'scope');
      if (!isResourceKind(resourceKind)) throw new ValidationError('UNKNOWN_RESOURCE_KIND', `Unknown resource kind; use one of ${RESOURCE_KINDS.join(', ')}.`, 'scope.resourceKind');
      const found = isIdShaped(resourceId) ? await resourceExists(db, resourceKind, resourceId) : null;
      if (found === 'unsupported') {
        throw new ValidationError('UNSUPPORTED_RESOURCE_KIND', `A binding cannot target a single ${resourceKind}.`, 'scope.resourceKind');
      }
      if (!found || (input.namespaceId && input.namespaceId !== found.namespaceId)) throw new NotFoundError(`No such ${resourceKind}.`);
      return { kind: 'resource', resourceKind, resourceId, namespaceId: found.namespaceId };
    }
  }
}

/**
 * Rule A2, who may grant or revoke a binding at a scope:
 * - installation scope: `administer` on `installation`;
 * - namespace N: `administer` on `accessBinding` in N (a binding at N or at installation scope);
 * - one resource R of kind K in N: `administer` on K for R, which a binding at installation scope,
 *   at N, or on R itself can grant.
 * Nothing else implies it: holding every permission a role carries does not let one grant it.
 */
export function administerRequest(scope: Scope): Request {
  switch (scope.kind) {
    case 'installation':
      return { action: 'administer', resourceKind: 'installation', namespaceId: null, resourceId: null };
    case 'namespace':
      return { action: 'administer', resourceKind: 'accessBinding', namespaceId: scope.namespaceId, resourceId: null };
    case 'resource':
      return { action: 'administer', resourceKind: scope.resourceKind, namespaceId: scope.namespaceId, resourceId: scope.resourceId };
  }
}

/** Who may see the bindings at a scope: `read` on `accessBinding` where the scope lives, or whoever may administer them. */
export function readBindingsRequests(scope: Scope): Request[] {
  const namespaceId = scope.kind === 'installation' ? null : scope.namespaceId;
  return [{ action: 'read', resourceKind: 'accessBinding', namespaceId, resourceId: null }, administerRequest(scope)];
}

/** Reading the scope's target itself; a target the caller cannot read answers NOT_FOUND, not FORBIDDEN. */
function readTargetRequest(scope: Scope): Request | null {
  switch (scope.kind) {
    case 'installation':
      return null;
    case 'namespace':
      return { action: 'read', resourceKind: 'namespace', namespaceId: scope.namespaceId, resourceId: scope.namespaceId };
    case 'resource':
      return { action: 'read', resourceKind: scope.resourceKind, namespaceId: scope.namespaceId, resourceId: scope.resourceId };
  }
}

/** Allows when any request is allowed; otherwise audits the denial (first request) and answers a bare FORBIDDEN (A3). */
export async function authorizeAny(deps: Pick<Deps, 'db'>, actor: Actor, requests: Request[], via: Db | Tx = deps.db): Promise<void> {
  const may = await decider(via, actor);
  if (requests.some((request) => may(request).allowed)) return;
  await deny(deps, actor, requests[0]!, via);
}

/** A2 before any write: NOT_FOUND if the caller cannot even see the target, else FORBIDDEN without `administer`; both audited. */
export async function authorizeAdminister(deps: Pick<Deps, 'db'>, actor: Actor, scope: Scope, via: Db | Tx = deps.db): Promise<void> {
  const may = await decider(via, actor);
  if (may(administerRequest(scope)).allowed) return;
  const target = readTargetRequest(scope);
  const seesBindings = readBindingsRequests(scope).some((request) => may(request).allowed);
  if (target && !may(target).allowed && !seesBindings) {
    await auditHiddenDenial(deps, actor, { kind: target.resourceKind, id: target.resourceId!, namespaceId: target.namespaceId });
    throw new NotFoundError(`No such ${target.resourceKind}.`);
  }
  await authorizeAny(deps, actor, [administerRequest(scope)], via);
}

export interface RoleRow {
  id: string;
  name: string;
  builtIn: boolean;
  namespaceId: string | null;
  permissions: Permission[];
  createdAt: Date;
}

export interface AccessBindingView {
  id: string;
  subjectId: string;
  subject: PrincipalView;
  role: RoleRow;
  scope: Scope;
  createdById: string;
  createdAt: Date;
}

export const ROLE_SELECT = { id: true, name: true, builtIn: true, namespaceId: true, permissions: true, createdAt: true } as const;

const BINDING_SELECT = {
  id: true,
  subjectId: true,
  scopeKind: true,
  namespaceId: true,
  resourceKind: true,
  resourceId: true,
  createdById: true,
  createdAt: true,
  role: { select: ROLE_SELECT },
  subject: { select: { id: true, kind: true, name: true, disabledAt: true, createdAt: true } },
} as const;

type BindingRow = Prisma.AccessBindingGetPayload<{ select: typeof BINDING_SELECT }>;

export function toRoleRow(row: { id: string; name: string; builtIn: boolean; namespaceId: string | null; permissions: unknown; createdAt: Date }): RoleRow {
  return { ...row, permissions: row.permissions as Permission[] };
}

function toBindingView(row: BindingRow): AccessBindingView {
  return {
    id: row.id,
    subjectId: row.subjectId,
    subject: toPrincipalView(row.subject),
    role: toRoleRow(row.role),
    scope: scopeOf(row),
    createdById: row.createdById,
    createdAt: row.createdAt,
  };
}

/** The columns of a binding at a scope, for equality lookups and inserts. */
export function scopeColumns(scope: Scope) {
  return {
    scopeKind: scope.kind === 'installation' ? ('INSTALLATION' as const) : scope.kind === 'namespace' ? ('NAMESPACE' as const) : ('RESOURCE' as const),
    namespaceId: scope.kind === 'installation' ? null : scope.namespaceId,
    resourceKind: scope.kind === 'resource' ? scope.resourceKind : null,
    resourceId: scope.kind === 'resource' ? scope.resourceId : null,
  };
}

type FlatBindingRow = Omit<BindingRow, 'role' | 'subject'> & {
  roleId: string;
  roleName: string;
  roleBuiltIn: boolean;
  roleNamespaceId: string | null;
  /** jsonb as text: parsed once per role in a page, not once per row. */
  rolePermissions: string;
  roleCreatedAt: Date;
  subjectKind: 'HUMAN' | 'SERVICE';
  subjectName: string;
  subjectDisabledAt: Date | null;
  subjectCreatedAt: Date;
};

/** BINDING_SELECT in one statement: the binding `b` with its role `r` and subject `p` joined. */
const BINDING_COLUMNS = sql`b."id", b."subjectId", b."roleId", b."scopeKind"::text AS "scopeKind", b."namespaceId", b."resourceKind", b."resourceId", b."createdById", b."createdAt",
    r."name" AS "roleName", r."builtIn" AS "roleBuiltIn", r."namespaceId" AS "roleNamespaceId", r."permissions"::text AS "rolePermissions", r."createdAt" AS "roleCreatedAt",
    p."kind"::text AS "subjectKind", p."name" AS "subjectName", p."disabledAt" AS "subjectDisabledAt", p."createdAt" AS "subjectCreatedAt"`;
const BINDING_JOINS = sql`JOIN "public"."Role" r ON r."id" = b."roleId" JOIN "public"."Principal" p ON p."id" = b."subjectId"`;

/**
 * One keyset page of the bindings `b` matching `where` (oldest first), with their count on demand.
 * A page's bindings share a few roles and subjects (a subject's page has one subject), so each
 * role and subject is built once per page and shared by its rows.
 */
export function bindingsPage(db: Db | Tx, where: Sql, page: PageRequest): Promise<PageOf<AccessBindingView>> {
  const roles = new Map<string, RoleRow>();
  const subjects = new Map<string, PrincipalView>();
  const view = (row: FlatBindingRow): AccessBindingView => {
    let role = roles.get(row.roleId);
    if (!role) {
      role = { id: row.roleId, name: row.roleName, builtIn: row.roleBuiltIn, namespaceId: row.roleNamespaceId, permissions: JSON.parse(row.rolePermissions) as Permission[], createdAt: row.roleCreatedAt };
      roles.set(row.roleId, role);
    }
    let subject = subjects.get(row.subjectId);
    if (!subject) {
      subject = toPrincipalView({ id: row.subjectId, kind: row.subjectKind, name: row.subjectName, disabledAt: row.subjectDisabledAt, createdAt: row.subjectCreatedAt });
      subjects.set(row.subjectId, subject);
    }
    return { id: row.id, subjectId: row.subjectId, subject, role, scope: scopeOf(row), createdById: row.createdById, createdAt: row.createdAt };
  };
  return sqlKeysetPage(
    db,
    page,
    { columns: BINDING_COLUMNS, table: sql`"public"."AccessBinding" b`, joins: BINDING_JOINS, where },
    view,
    { field: 'createdAt', newestFirst: false, table: 'b' },
  );
}

export async function findBindings(db: Db | Tx, where: Prisma.AccessBindingWhereInput): Promise<AccessBindingView[]> {
  const rows = await db.accessBinding.findMany({ where, select: BINDING_SELECT, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(toBindingView);
}
