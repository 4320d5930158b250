// Access bindings (subject, role, scope), roles, grant/revoke and explainAccess. Decisions carry
// their evidence: the bindings that allowed them, and a count of those the caller may not read.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf, type VariablesOf } from './graphql';
import { ForbiddenErrorFields, NotFoundErrorFields, ValidationErrorFields } from './errors';
import { toPage, type PageArgs } from './paging';

export const AccessBindingFields = gql(`
  fragment AccessBindingFields on AccessBinding {
    id createdAt subject { id kind name } role { id name } scope { kind namespaceId resourceId resourceKind }
  }
`);

export type AccessBinding = ResultOf<typeof AccessBindingFields>;
export type AccessScope = AccessBinding['scope'];
export type ScopeKind = AccessScope['kind'];

/** The API's vocabulary (packages/domain/src/access.ts); explainAccess refuses anything else. */
export const ACTIONS = ['create', 'read', 'update', 'delete', 'deploy', 'operate', 'administer'] as const;
export const RESOURCE_KINDS = [
  'namespace',
  'secret',
  'configuration',
  'agent',
  'accessBinding',
  'role',
  'installation',
  'principal',
  'auditEvent',
] as const;

export const accessKeys = {
  all: ['access'] as const,
  forResource: (resourceKind: string, resourceId: string) => [...accessKeys.all, 'resource', resourceKind, resourceId] as const,
  inNamespace: (namespaceId: string, resourceKind: string) => [...accessKeys.all, 'in-namespace', namespaceId, resourceKind] as const,
  forSubject: (subjectId: string) => [...accessKeys.all, 'subject', subjectId] as const,
  roles: (namespaceId: string) => [...accessKeys.all, 'roles', namespaceId] as const,
  explain: (request: ExplainRequest) => [...accessKeys.all, 'explain', request] as const,
};

// Query: bindings that target a resource (for a namespace, also those at its scope) -----------------

export const AccessBindingsForResourceQuery = gql(`
  query AccessBindingsForResource($resourceId: ID!, $resourceKind: String!) {
    accessBindingsForResource(resourceId: $resourceId, resourceKind: $resourceKind) { ...AccessBindingFields }
  }
`, [AccessBindingFields]);

export function accessBindingsForResourceQueryOptions(resourceKind: string, resourceId: string) {
  return queryOptions({
    queryKey: accessKeys.forResource(resourceKind, resourceId),
    queryFn: async ({ signal }) =>
      (await graphql(AccessBindingsForResourceQuery, { resourceId, resourceKind }, signal)).accessBindingsForResource,
  });
}

// Query: the bindings on every single resource of one kind in a namespace, in one request -------------

export const ResourceAccessBindingsInNamespaceQuery = gql(`
  query ResourceAccessBindingsInNamespace($namespaceId: ID!, $resourceKind: String) {
    resourceAccessBindingsInNamespace(namespaceId: $namespaceId, resourceKind: $resourceKind) { ...AccessBindingFields }
  }
`, [AccessBindingFields]);

export function resourceAccessBindingsInNamespaceQueryOptions(namespaceId: string, resourceKind: string) {
  return queryOptions({
    queryKey: accessKeys.inNamespace(namespaceId, resourceKind),
    queryFn: async ({ signal }) =>
      (await graphql(ResourceAccessBindingsInNamespaceQuery, { namespaceId, resourceKind }, signal)).resourceAccessBindingsInNamespace,
  });
}

// Query: one subject's bindings ---------------------------------------------------------------------

export const SubjectAccessBindingsQuery = gql(`
  query SubjectAccessBindings($subjectId: ID!, $first: Int, $after: String) {
    accessBindings(subjectId: $subjectId, first: $first, after: $after) {
      edges { node { ...AccessBindingFields } } pageInfo { hasNextPage endCursor } totalCount
    }
  }
`, [AccessBindingFields]);

/** One page of a subject's grants (oldest first), by the API's cursors. */
export function subjectAccessBindingsQueryOptions(subjectId: string, page: Pick<PageArgs, 'first' | 'after'>) {
  return queryOptions({
    queryKey: [...accessKeys.forSubject(subjectId), page.first, page.after],
    queryFn: async ({ signal }) => toPage((await graphql(SubjectAccessBindingsQuery, { subjectId, first: page.first, after: page.after }, signal)).accessBindings),
  });
}

// Query: roles (built-in, and the namespace's custom ones) -------------------------------------------

export const RolesQuery = gql(`
  query Roles($namespaceId: ID) {
    roles(namespaceId: $namespaceId) { id name builtIn namespaceId permissions { action resourceKind } }
  }
`);

export type Role = ResultOf<typeof RolesQuery>['roles'][number];

export function rolesQueryOptions(namespaceId: string) {
  return queryOptions({
    queryKey: accessKeys.roles(namespaceId),
    queryFn: async ({ signal }) => (await graphql(RolesQuery, { namespaceId }, signal)).roles,
    staleTime: 60_000,
  });
}

// Query: explainAccess -------------------------------------------------------------------------------

export type ExplainRequest = {
  subjectId: string;
  action: string;
  resourceKind: string;
  namespaceId: string | null;
  resourceId: string | null;
};

export const ExplainAccessQuery = gql(`
  query ExplainAccess($subjectId: ID!, $action: String!, $resourceKind: String!, $namespaceId: ID, $resourceId: ID) {
    explainAccess(subjectId: $subjectId, action: $action, resourceKind: $resourceKind, namespaceId: $namespaceId, resourceId: $resourceId) {
      __typename
      ... on AccessDecision {
        allowed summary hiddenEvidenceCount
        evidence { roleName binding { ...AccessBindingFields } }
      }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`, [AccessBindingFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields]);

export type ExplainAccessResult = ResultOf<typeof ExplainAccessQuery>['explainAccess'];
export type AccessDecision = Extract<ExplainAccessResult, { __typename: 'AccessDecision' }>;

/** A decision is a read, so it is a query keyed by the question; grants and revokes invalidate it. */
export function explainAccessQueryOptions(request: ExplainRequest) {
  return queryOptions({
    queryKey: accessKeys.explain(request),
    queryFn: async ({ signal }) => (await graphql(ExplainAccessQuery, request, signal)).explainAccess,
    staleTime: 0,
  });
}

// Mutation: grantAccess ------------------------------------------------------------------------------

export const GrantAccessMutation = gql(`
  mutation GrantAccess($input: GrantAccessInput!) {
    grantAccess(input: $input) {
      __typename
      ... on GrantAccessSuccess { created binding { ...AccessBindingFields } }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`, [AccessBindingFields, ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields]);

export type GrantAccessInput = VariablesOf<typeof GrantAccessMutation>['input'];
export type AccessScopeInput = GrantAccessInput['scope'];
export type GrantAccessResult = ResultOf<typeof GrantAccessMutation>['grantAccess'];

export async function grantAccess(input: GrantAccessInput) {
  return (await graphql(GrantAccessMutation, { input })).grantAccess;
}

// Mutation: revokeAccess -----------------------------------------------------------------------------

export const RevokeAccessMutation = gql(`
  mutation RevokeAccess($input: RevokeAccessInput!) {
    revokeAccess(input: $input) {
      __typename
      ... on RevokeAccessSuccess { changed revokedBindingIds }
      ...ValidationErrorFields
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`, [ValidationErrorFields, NotFoundErrorFields, ForbiddenErrorFields]);

export type RevokeAccessResult = ResultOf<typeof RevokeAccessMutation>['revokeAccess'];

export async function revokeAccess(bindingId: string) {
  return (await graphql(RevokeAccessMutation, { input: { bindingId } })).revokeAccess;
}

/** "namespace ns_…", "secret model-token", "installation": names where the caller can resolve them. */
export function describeScope(scope: AccessScope, names: ReadonlyMap<string, string> = new Map()): string {
  switch (scope.kind) {
    case 'INSTALLATION':
      return 'installation';
    case 'NAMESPACE':
      return `namespace ${scope.namespaceId ? (names.get(scope.namespaceId) ?? scope.namespaceId) : '?'}`;
    case 'RESOURCE':
      return `${scope.resourceKind ?? 'resource'} ${scope.resourceId ? (names.get(scope.resourceId) ?? scope.resourceId) : '?'}`;
  }
}
