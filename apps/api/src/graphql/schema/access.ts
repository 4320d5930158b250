import type { Permission, Scope } from '@occ/domain/access';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { grantAccess, parseRevokeInput, revokeAccess, type RevokeResult } from '../../services/access-grants.ts';
import { bindingsOfSubjectPage, explainAccess, listBindingsForResource, listResourceBindingsInNamespace, type AccessExplanation } from '../../services/access-queries.ts';
import type { AccessBindingView, RoleRow } from '../../services/access-scope.ts';
import { createRole, listRoles } from '../../services/roles.ts';
import { actorOf, builder } from '../builder.ts';
import { pageRequest, toConnection, totalCount } from '../connections.ts';
import { PrincipalRef } from './principal.ts';

// Roles, access bindings, and why a decision was made (DESIGN.md §4, rules A2, A3). Actions and
// resource kinds travel as strings so that an unknown one is a ValidationError in the result
// union, not a request-level failure.

export const ScopeKindEnum = builder.enumType('ScopeKind', { values: ['INSTALLATION', 'NAMESPACE', 'RESOURCE'] as const });

const PermissionRef = builder.objectRef<Permission>('Permission').implement({
  fields: (t) => ({ action: t.exposeString('action'), resourceKind: t.exposeString('resourceKind') }),
});

export const RoleRef = builder.objectRef<RoleRow>('Role').implement({
  description: 'A named permission set. No action implies another.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    builtIn: t.exposeBoolean('builtIn'),
    namespaceId: t.exposeID('namespaceId', { nullable: true, description: 'The namespace a custom role belongs to; null for built-in roles.' }),
    permissions: t.field({ type: [PermissionRef], resolve: (r) => r.permissions }),
  }),
});

const AccessScopeRef = builder.objectRef<Scope>('AccessScope').implement({
  fields: (t) => ({
    kind: t.field({ type: ScopeKindEnum, resolve: (s) => (s.kind === 'installation' ? 'INSTALLATION' : s.kind === 'namespace' ? 'NAMESPACE' : 'RESOURCE') }),
    namespaceId: t.id({ nullable: true, resolve: (s) => (s.kind === 'installation' ? null : s.namespaceId) }),
    resourceKind: t.string({ nullable: true, resolve: (s) => (s.kind === 'resource' ? s.resourceKind : null) }),
    resourceId: t.id({ nullable: true, resolve: (s) => (s.kind === 'resource' ? s.resourceId : null) }),
  }),
});

export const AccessBindingRef = builder.objectRef<AccessBindingView>('AccessBinding').implement({
  description: 'Gives a subject a role at a scope.',
  fields: (t) => ({
    id: t.exposeID('id'),
    subject: t.field({ type: PrincipalRef, resolve: (b) => b.subject }),
    role: t.field({ type: RoleRef, resolve: (b) => b.role }),
    scope: t.field({ type: AccessScopeRef, resolve: (b) => b.scope }),
    createdById: t.exposeID('createdById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AccessEvidenceRef = builder.objectRef<AccessExplanation['evidence'][number]>('AccessEvidence').implement({
  fields: (t) => ({
    binding: t.field({ type: AccessBindingRef, resolve: (e) => e.binding }),
    roleName: t.exposeString('roleName'),
  }),
});

const AccessDecisionRef = builder.objectRef<AccessExplanation>('AccessDecision').implement({
  fields: (t) => ({
    allowed: t.exposeBoolean('allowed'),
    evidence: t.field({ type: [AccessEvidenceRef], description: 'The bindings that allowed it, those you may read; empty when denied.', resolve: (d) => d.evidence }),
    hiddenEvidenceCount: t.exposeInt('hiddenEvidenceCount', { description: 'Allowing bindings you may not read: counted, not shown.' }),
    summary: t.exposeString('summary'),
  }),
});

builder.queryFields((t) => ({
  roles: t.field({
    type: [RoleRef],
    description: "Built-in roles, and the namespace's custom roles when you may read roles there.",
    authScopes: { authenticated: true },
    args: { namespaceId: t.arg.id() },
    resolve: (_root, { namespaceId }, ctx) => listRoles(ctx.deps, actorOf(ctx), namespaceId ?? null),
  }),
  accessBindings: t.connection(
    {
      type: AccessBindingRef,
      description: "A subject's bindings that you may read (`read` or `administer` on access bindings at their scope), and all of your own; oldest first, paged in SQL.",
      authScopes: { authenticated: true },
      args: { subjectId: t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => toConnection(await bindingsOfSubjectPage(ctx.deps, actorOf(ctx), args.subjectId, pageRequest(args))),
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
  accessBindingsForResource: t.field({
    type: [AccessBindingRef],
    description: 'The bindings that target this exact resource (for a namespace, also those at its scope) that you may read.',
    authScopes: { authenticated: true },
    args: { resourceKind: t.arg.string({ required: true }), resourceId: t.arg.id({ required: true }) },
    resolve: (_root, { resourceKind, resourceId }, ctx) => listBindingsForResource(ctx.deps, actorOf(ctx), resourceKind, resourceId),
  }),
  resourceAccessBindingsInNamespace: t.field({
    type: [AccessBindingRef],
    description: 'The bindings on single resources of this namespace (optionally of one kind) that you may read.',
    authScopes: { authenticated: true },
    args: { namespaceId: t.arg.id({ required: true }), resourceKind: t.arg.string() },
    resolve: (_root, { namespaceId, resourceKind }, ctx) => listResourceBindingsInNamespace(ctx.deps, actorOf(ctx), namespaceId, resourceKind),
  }),
  explainAccess: t.field({
    type: AccessDecisionRef,
    description: 'Why a subject may or may not do something. For the subject itself, or with `read` on access bindings where the resource lives.',
    authScopes: { authenticated: true },
    args: {
      subjectId: t.arg.id({ required: true }),
      action: t.arg.string({ required: true }),
      resourceKind: t.arg.string({ required: true }),
      namespaceId: t.arg.id(),
      resourceId: t.arg.id(),
    },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'ExplainAccessResult' } },
    resolve: (_root, args, ctx) => explainAccess(ctx.deps, actorOf(ctx), args),
  }),
}));

const PermissionInput = builder.inputType('PermissionInput', {
  fields: (t) => ({ action: t.string({ required: true }), resourceKind: t.string({ required: true }) }),
});

const CreateRoleInput = builder.inputType('CreateRoleInput', {
  fields: (t) => ({
    namespaceId: t.id({ required: true }),
    name: t.string({ required: true }),
    permissions: t.field({ type: [PermissionInput], required: true }),
  }),
});

const AccessScopeInput = builder.inputType('AccessScopeInput', {
  fields: (t) => ({
    kind: t.field({ type: ScopeKindEnum, required: true }),
    namespaceId: t.id({ description: 'NAMESPACE: required. RESOURCE: optional, must be the resource’s namespace.' }),
    resourceKind: t.string({ description: 'RESOURCE only.' }),
    resourceId: t.id({ description: 'RESOURCE only.' }),
  }),
});

const GrantAccessInput = builder.inputType('GrantAccessInput', {
  fields: (t) => ({
    subjectId: t.id({ required: true }),
    roleId: t.id({ required: true }),
    scope: t.field({ type: AccessScopeInput, required: true }),
  }),
});

const RevokeAccessInput = builder.inputType('RevokeAccessInput', {
  description: 'Either bindingId, or subjectId, roleId and scope.',
  fields: (t) => ({
    bindingId: t.id(),
    subjectId: t.id(),
    roleId: t.id(),
    scope: t.field({ type: AccessScopeInput }),
  }),
});

const CreateRoleSuccess = builder.objectRef<{ role: RoleRow }>('CreateRoleSuccess').implement({
  fields: (t) => ({ role: t.field({ type: RoleRef, resolve: (r) => r.role }) }),
});

const GrantAccessSuccess = builder.objectRef<{ binding: AccessBindingView; created: boolean }>('GrantAccessSuccess').implement({
  fields: (t) => ({
    binding: t.field({ type: AccessBindingRef, resolve: (r) => r.binding }),
    created: t.exposeBoolean('created', { description: 'False when an identical binding existed: it is returned, nothing changed.' }),
  }),
});

const RevokeAccessSuccess = builder.objectRef<RevokeResult>('RevokeAccessSuccess').implement({
  fields: (t) => ({
    changed: t.exposeBoolean('changed', { description: 'False when no such binding existed: nothing changed.' }),
    revokedBindingIds: t.exposeIDList('revokedBindingIds'),
  }),
});

builder.mutationFields((t) => ({
  createRole: t.field({
    type: CreateRoleSuccess,
    description: 'A custom role in a namespace. Needs `administer` on roles in that namespace.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateRoleInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError, ConflictError], union: { name: 'CreateRoleResult' } },
    resolve: async (_root, { input }, ctx) => ({ role: await createRole(ctx.deps, actorOf(ctx), input) }),
  }),
  grantAccess: t.field({
    type: GrantAccessSuccess,
    description:
      'A2. Needs `administer`: on the installation for installation scope; on access bindings in the namespace for namespace scope; on the resource (its kind) for resource scope.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: GrantAccessInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'GrantAccessResult' } },
    resolve: (_root, { input }, ctx) => grantAccess(ctx.deps, actorOf(ctx), input),
  }),
  revokeAccess: t.field({
    type: RevokeAccessSuccess,
    description: 'A2. Needs the same `administer` as granting at the binding’s scope.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RevokeAccessInput, required: true }) },
    errors: { types: [ValidationError, NotFoundError, ForbiddenError], union: { name: 'RevokeAccessResult' } },
    resolve: (_root, { input }, ctx) => revokeAccess(ctx.deps, actorOf(ctx), parseRevokeInput(input)),
  }),
}));
