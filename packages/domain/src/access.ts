// The access model (DESIGN.md §4): roles are named permission sets {action, resourceKind}; an
// access binding gives a subject a role at a scope. No action implies another. Every decision
// carries its evidence.

export const ACTIONS = ['create', 'read', 'update', 'delete', 'deploy', 'operate', 'administer'] as const;
export type Action = (typeof ACTIONS)[number];

export const RESOURCE_KINDS = [
  'installation',
  'namespace',
  'secret',
  'configuration',
  'agent',
  'agentRevision',
  'principal',
  'accessBinding',
  'role',
  'auditEvent',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface Permission {
  action: Action;
  resourceKind: ResourceKind;
}

export type Scope =
  | { kind: 'installation' }
  | { kind: 'namespace'; namespaceId: string }
  | { kind: 'resource'; resourceKind: ResourceKind; resourceId: string; namespaceId: string | null };

export interface RoleView {
  id: string;
  name: string;
  permissions: readonly Permission[];
}

export interface BindingView {
  id: string;
  subjectId: string;
  role: RoleView;
  scope: Scope;
}

/** What is asked: may `subjectId` do `action` on a resource of `resourceKind`? */
export interface AccessRequest {
  subjectId: string;
  action: Action;
  resourceKind: ResourceKind;
  /** The namespace that holds the resource (or the collection), when it lives in one. */
  namespaceId: string | null;
  /** The exact resource; null for a collection (e.g. "create a secret in namespace N"). */
  resourceId: string | null;
}

export interface Evidence {
  bindingId: string;
  roleId: string;
  roleName: string;
  scope: Scope;
}

export interface Decision {
  allowed: boolean;
  request: AccessRequest;
  /** The bindings that allowed it; empty when denied. */
  evidence: Evidence[];
}

function scopeCovers(scope: Scope, request: AccessRequest): boolean {
  switch (scope.kind) {
    case 'installation':
      return true;
    case 'namespace':
      return request.namespaceId !== null && scope.namespaceId === request.namespaceId;
    case 'resource':
      return request.resourceId !== null && scope.resourceKind === request.resourceKind && scope.resourceId === request.resourceId;
  }
}

export function decide(bindings: readonly BindingView[], request: AccessRequest): Decision {
  const evidence: Evidence[] = [];
  for (const binding of bindings) {
    if (binding.subjectId !== request.subjectId) continue;
    if (!scopeCovers(binding.scope, request)) continue;
    const grants = binding.role.permissions.some((p) => p.action === request.action && p.resourceKind === request.resourceKind);
    if (grants) evidence.push({ bindingId: binding.id, roleId: binding.role.id, roleName: binding.role.name, scope: binding.scope });
  }
  return { allowed: evidence.length > 0, request, evidence };
}

const all = (kinds: readonly ResourceKind[], actions: readonly Action[]): Permission[] =>
  kinds.flatMap((resourceKind) => actions.map((action) => ({ action, resourceKind })));

const NAMESPACED_KINDS: ResourceKind[] = ['namespace', 'secret', 'configuration', 'agent', 'agentRevision', 'accessBinding', 'role'];

/** Built-in roles, by name. Their ids are stable so bindings survive restarts. */
export const BUILT_IN_ROLES: readonly RoleView[] = [
  { id: 'rol_installation-admin', name: 'installation-admin', permissions: all(RESOURCE_KINDS, ACTIONS) },
  // A namespace administrator reads its namespace's audit trail (and no other audit action).
  { id: 'rol_namespace-admin', name: 'namespace-admin', permissions: [...all(NAMESPACED_KINDS, ACTIONS), { action: 'read', resourceKind: 'auditEvent' }] },
  {
    id: 'rol_namespace-editor',
    name: 'namespace-editor',
    permissions: [
      ...all(['namespace', 'agentRevision'], ['read']),
      ...all(['secret', 'configuration', 'agent'], ['create', 'read', 'update', 'delete', 'deploy']),
    ].filter((p) => !(p.action === 'deploy' && p.resourceKind !== 'agent')),
  },
  { id: 'rol_namespace-viewer', name: 'namespace-viewer', permissions: all(['namespace', 'secret', 'configuration', 'agent', 'agentRevision'], ['read']) },
  { id: 'rol_secret-operator', name: 'secret-operator', permissions: [{ action: 'operate', resourceKind: 'secret' }] },
];

export function builtInRole(name: string): RoleView {
  const role = BUILT_IN_ROLES.find((r) => r.name === name);
  if (!role) throw new Error(`no built-in role ${name}`);
  return role;
}

/**
 * Where a subject may do `action` on resources of `kind`, as sets a query can filter by: a list
 * then holds readable rows only, and a page holds `first` of them (rather than fetching every row
 * and deciding one by one). `covers` answers exactly as `decide` would for a row.
 */
export interface ReadableSet {
  /** An installation-scope binding grants it: every row. */
  everywhere: boolean;
  /** Namespace-scope bindings: every row in these namespaces. */
  namespaceIds: string[];
  /** Resource-scope bindings on this kind: these rows. */
  resourceIds: string[];
}

export function readableSet(bindings: readonly BindingView[], subjectId: string, action: Action, kind: ResourceKind): ReadableSet {
  const set: ReadableSet = { everywhere: false, namespaceIds: [], resourceIds: [] };
  for (const binding of bindings) {
    if (binding.subjectId !== subjectId) continue;
    if (!binding.role.permissions.some((p) => p.action === action && p.resourceKind === kind)) continue;
    const scope = binding.scope;
    if (scope.kind === 'installation') set.everywhere = true;
    else if (scope.kind === 'namespace') set.namespaceIds.push(scope.namespaceId);
    else if (scope.resourceKind === kind) set.resourceIds.push(scope.resourceId);
  }
  set.namespaceIds = [...new Set(set.namespaceIds)];
  set.resourceIds = [...new Set(set.resourceIds)];
  return set;
}

/** Whether a row (its id, and the namespace that holds it; a namespace holds itself) is in the set. */
export function covers(set: ReadableSet, row: { id: string; namespaceId: string | null }): boolean {
  return set.everywhere || (row.namespaceId !== null && set.namespaceIds.includes(row.namespaceId)) || set.resourceIds.includes(row.id);
}
