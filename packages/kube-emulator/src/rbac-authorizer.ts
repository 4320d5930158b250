// E9: authorization as a real kube-apiserver started with `--authorization-mode RBAC` does it.
//
// A request is reduced to authorizer attributes as k8s.io/apiserver's RequestInfoFactory does
// (requestAttributes below), then judged by the privileged-groups authorizer (system:masters may do
// everything, before RBAC is asked) and by RBAC's rule resolver: every ClusterRoleBinding, then the
// RoleBindings of the request's namespace, whose subjects name the user, one of its groups, or its
// ServiceAccount; the first rule of a bound role that allows the request wins
// (plugin/pkg/auth/authorizer/rbac, pkg/apis/rbac/v1 helpers). A binding whose role does not exist
// grants nothing and is named in the denial's reason, as the real resolver's errors are.
//
// A denied request answers 403 worded as k8s.io/apiserver's responsewriters.Forbidden words it.

import type { UserInfo } from './auth.ts';
import { StatusError } from './errors.ts';
import { CLUSTERROLEBINDINGS, CLUSTERROLES, ROLEBINDINGS, ROLES, storageKeyOf } from './registry.ts';
import type { ObjectStore } from './store.ts';
import { isObject, type KubeObject } from './types.ts';
import { pathSegmentName } from './validation.ts';

/** k8s.io/apiserver/pkg/authorization/authorizer.Attributes. */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests only. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

export interface Decision {
  allowed: boolean;
  /** Why not, when the resolver met errors (a binding to a missing role): "RBAC: ..." or ''. */
  reason: string;
}

export const PRIVILEGED_GROUP = 'system:masters';

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const RESOURCE_VERBS: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/**
 * RequestInfoFactory.NewRequestInfo: the verb, group, version, namespace, resource, subresource
 * and name a path and method stand for. Paths outside /api/v1/... and /apis/group/version/... are
 * non-resource requests, whose verb is the lower-cased method.
 */
export function requestAttributes(user: UserInfo, method: string, url: URL): AuthorizationAttributes {
  const base: AuthorizationAttributes = {
    user,
    verb: method.toLowerCase(),
    resourceRequest: false,
    path: url.pathname,
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  let parts = url.pathname.replace(/^\/+|\/+$/g, '').split('/').filter((p) => p !== '');
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return base;
  const prefix = parts[0];
  parts = parts.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return base;
    apiGroup = parts[0] ?? '';
    parts = parts.slice(1);
  }
  const info: AuthorizationAttributes = { ...base, resourceRequest: true, path: '', apiGroup, apiVersion: parts[0] ?? '' };
  parts = parts.slice(1);
  // The legacy /watch/ prefix: a watch of what follows.
  let verb = RESOURCE_VERBS[method.toUpperCase()] ?? '';
  if (parts[0] === 'watch') {
    verb = 'watch';
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1] ?? '';
      // /namespaces/{name}/{resource}/...; but /namespaces/{name}/status is the namespace's subresource.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? '')) parts = parts.slice(2);
    }
  }
  info.resource = parts[0] ?? '';
  if (parts.length >= 2) info.name = parts[1] ?? '';
  if (parts.length >= 3) info.subresource = parts[2] ?? '';
  const query = url.searchParams;
  if (info.name === '' && verb === 'get') {
    verb = query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list';
    // A list or watch for one name (fieldSelector metadata.name=x) is judged for that name, so a
    // rule's resourceNames can allow it.
    const name = exactName(query.get('fieldSelector'));
    if (name !== undefined && pathSegmentName(name).length === 0) info.name = name;
  }
  if (info.name === '' && verb === 'delete') verb = 'deletecollection';
  info.verb = verb;
  return info;
}

/** fields.Selector.RequiresExactMatch("metadata.name"). */
function exactName(selector: string | null): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(',')) {
    const match = /^\s*metadata\.name\s*(==|=)(.*)$/.exec(term);
    if (match) return (match[2] ?? '').trim();
  }
  return undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const rules = role && Array.isArray(role.rules) ? role.rules : [];
  return rules.filter(isObject).map((rule) => ({
    verbs: strings(rule.verbs),
    apiGroups: strings(rule.apiGroups),
    resources: strings(rule.resources),
    resourceNames: strings(rule.resourceNames),
    nonResourceURLs: strings(rule.nonResourceURLs),
  }));
}

/** rbac.RuleAllows with rbacv1helpers' VerbMatches, APIGroupMatches, ResourceMatches, ResourceNameMatches and NonResourceURLMatches. */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  const verbMatches = rule.verbs.some((v) => v === '*' || v === attributes.verb);
  if (!verbMatches) return false;
  if (!attributes.resourceRequest) {
    const url = attributes.path;
    return rule.nonResourceURLs.some((r) => r === '*' || r === url || (r.endsWith('*') && url.startsWith(r.replace(/\*+$/, ''))));
  }
  if (!rule.apiGroups.some((g) => g === '*' || g === attributes.apiGroup)) return false;
  const { subresource } = attributes;
  const combined = subresource ? `${attributes.resource}/${subresource}` : attributes.resource;
  const resourceMatches = rule.resources.some(
    (r) => r === '*' || r === combined || (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)),
  );
  if (!resourceMatches) return false;
  return rule.resourceNames.length === 0 || rule.resourceNames.includes(attributes.name);
}

export interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

function subjectsOf(binding: KubeObject): Subject[] {
  const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
  return subjects.filter(isObject).map((s) => ({
    kind: typeof s.kind === 'string' ? s.kind : '',
    name: typeof s.name === 'string' ? s.name : '',
    namespace: typeof s.namespace === 'string' ? s.namespace : '',
  }));
}

/** appliesTo: the first subject that names the user; a ServiceAccount's namespace defaults to the binding's. */
function applyingSubject(user: UserInfo, subjects: Subject[], bindingNamespace: string): Subject | undefined {
  return subjects.find((subject) => {
    switch (subject.kind) {
      case 'User':
        return user.username === subject.name;
      case 'Group':
        return user.groups.includes(subject.name);
      case 'ServiceAccount': {
        const namespace = subject.namespace || bindingNamespace;
        return namespace !== '' && user.username === `system:serviceaccount:${namespace}:${subject.name}`;
      }
      default:
        return false;
    }
  });
}

export type RuleSource = { binding: KubeObject; subject: Subject; rules: PolicyRule[] } | { error: string };

/** The authorizer's describer of a binding that allowed a request, for the reason an allowed review carries. */
export function describeSource(source: { binding: KubeObject; subject: Subject }): string {
  const { binding, subject } = source;
  const namespace = binding.metadata.namespace ?? '';
  const ref = isObject(binding.roleRef) ? binding.roleRef : {};
  const who = subject.kind === 'ServiceAccount' ? `${subject.kind} "${subject.name}/${subject.namespace || namespace}"` : `${subject.kind} "${subject.name}"`;
  const what = namespace ? `RoleBinding "${binding.metadata.name ?? ''}/${namespace}"` : `ClusterRoleBinding "${binding.metadata.name ?? ''}"`;
  return `${what} of ${String(ref.kind)} "${String(ref.name)}" to ${who}`;
}

/** The RBAC objects of a store, read as the authorizer's listers read them. */
export class RbacRules {
  constructor(private readonly store: ObjectStore) {}

  private roleRules(roleRef: unknown, bindingNamespace: string): PolicyRule[] | string {
    const ref = isObject(roleRef) ? roleRef : {};
    const name = typeof ref.name === 'string' ? ref.name : '';
    if (ref.kind === 'Role') {
      const role = this.store.get(storageKeyOf(ROLES), bindingNamespace, name);
      return role ? rulesOf(role) : `role.rbac.authorization.k8s.io "${name}" not found`;
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.store.get(storageKeyOf(CLUSTERROLES), undefined, name);
      return role ? rulesOf(role) : `clusterrole.rbac.authorization.k8s.io "${name}" not found`;
    }
    return `unsupported role reference kind: "${String(ref.kind)}"`;
  }

  /** VisitRulesFor: the rules of every binding that applies to the user, cluster-wide first, then in `namespace`. */
  *sources(user: UserInfo, namespace: string): Generator<RuleSource> {
    for (const binding of this.store.list(storageKeyOf(CLUSTERROLEBINDINGS))) {
      const subject = applyingSubject(user, subjectsOf(binding), '');
      if (!subject) continue;
      const rules = this.roleRules(binding.roleRef, '');
      yield typeof rules === 'string' ? { error: rules } : { binding, subject, rules };
    }
    if (namespace === '') return;
    for (const binding of this.store.list(storageKeyOf(ROLEBINDINGS), namespace)) {
      const subject = applyingSubject(user, subjectsOf(binding), namespace);
      if (!subject) continue;
      const rules = this.roleRules(binding.roleRef, namespace);
      yield typeof rules === 'string' ? { error: rules } : { binding, subject, rules };
    }
  }
}

export class Authorizer {
  readonly rules: RbacRules;

  constructor(store: ObjectStore) {
    this.rules = new RbacRules(store);
  }

  authorize(attributes: AuthorizationAttributes): Decision {
    // authorizerfactory.NewPrivilegedGroups: system:masters before any other authorizer.
    if (attributes.user.groups.includes(PRIVILEGED_GROUP)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    for (const source of this.rules.sources(attributes.user, attributes.namespace)) {
      if ('error' in source) {
        errors.push(source.error);
        continue;
      }
      if (source.rules.some((rule) => ruleAllows(attributes, rule))) return { allowed: true, reason: `RBAC: allowed by ${describeSource(source)}` };
    }
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
  }
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/** responsewriters.forbiddenMessage. */
export function forbiddenMessage(attributes: AuthorizationAttributes): string {
  const user = attributes.user.username;
  if (!attributes.resourceRequest) return `User "${user}" cannot ${attributes.verb} path "${attributes.path}"`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const where = attributes.namespace ? `in the namespace "${attributes.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.apiGroup}" ${where}`;
}

/** responsewriters.Forbidden: apierrors.NewForbidden of the request's group and resource, with the authorizer's reason. */
export function forbiddenError(attributes: AuthorizationAttributes, reason: string): StatusError {
  const cause = reason ? `${forbiddenMessage(attributes)}: ${reason}` : forbiddenMessage(attributes);
  const group = attributes.apiGroup;
  const resource = attributes.resource;
  let message: string;
  if (!group && !resource) message = `forbidden: ${cause}`;
  else {
    const qualified = group ? `${resource}.${group}` : resource;
    message = attributes.name ? `${qualified} "${attributes.name}" is forbidden: ${cause}` : `${qualified} is forbidden: ${cause}`;
  }
  return new StatusError(403, 'Forbidden', message, { name: attributes.name, group, kind: resource });
}
