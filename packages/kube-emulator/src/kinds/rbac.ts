// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding: stored and
// validated as k8s.io/kubernetes/pkg/apis/rbac/validation does (policy rules, roleRef fixed at
// creation, subjects by kind). The authorizer (../rbac-authorizer.ts, E9) evaluates them on every
// request; ClusterRole aggregation is filled in by ../rbac-aggregation.ts.

import { invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { isObject, jsonEqual, type KubeObject } from '../types.ts';
import { dns1123Subdomain, pathSegmentName } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function validateRoleRef(roleRef: unknown, clusterScoped: boolean): FieldError[] {
  const ref = isObject(roleRef) ? roleRef : {};
  const errors: FieldError[] = [];
  if (text(ref.apiGroup) !== RBAC_GROUP) errors.push(notSupported('roleRef.apiGroup', text(ref.apiGroup), [RBAC_GROUP]));
  // A ClusterRoleBinding can only grant a ClusterRole (there is no namespace to find a Role in).
  const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(text(ref.kind))) errors.push(notSupported('roleRef.kind', text(ref.kind), kinds));
  const name = text(ref.name);
  if (name === '') errors.push(required('roleRef.name'));
  else for (const message of pathSegmentName(name)) errors.push(invalidValue('roleRef.name', name, message));
  return errors;
}

function validateSubject(subject: unknown, index: number, clusterScoped = false): FieldError[] {
  const item = isObject(subject) ? subject : {};
  const at = `subjects[${index}]`;
  const errors: FieldError[] = [];
  const name = text(item.name);
  if (name === '') errors.push(required(`${at}.name`));
  switch (text(item.kind)) {
    case 'ServiceAccount':
      if (name !== '') for (const message of dns1123Subdomain(name)) errors.push(invalidValue(`${at}.name`, name, message));
      if (text(item.apiGroup) !== '') errors.push(notSupported(`${at}.apiGroup`, text(item.apiGroup), ['']));
      // A ClusterRoleBinding has no namespace to default a ServiceAccount's to.
      if (clusterScoped && text(item.namespace) === '') errors.push(required(`${at}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (text(item.apiGroup) !== RBAC_GROUP) errors.push(notSupported(`${at}.apiGroup`, text(item.apiGroup), [RBAC_GROUP]));
      break;
    default:
      errors.push(notSupported(`${at}.kind`, text(item.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errors;
}

function validateRoleBinding(object: KubeObject, old: KubeObject | undefined, clusterScoped = false): FieldError[] {
  const errors = [...validateRoleRef(object.roleRef, clusterScoped)];
  const subjects = Array.isArray(object.subjects) ? object.subjects : [];
  subjects.forEach((subject, index) => errors.push(...validateSubject(subject, index, clusterScoped)));
  if (old && !jsonEqual(old.roleRef, object.roleRef)) errors.push(invalidValue('roleRef', object.roleRef, 'cannot change roleRef'));
  return errors;
}

/** rbac/v1 defaulting: an empty roleRef.apiGroup, and a User's or Group's empty apiGroup, are the RBAC group. */
function setDefaults(object: KubeObject): void {
  if (isObject(object.roleRef) && !object.roleRef.apiGroup) object.roleRef.apiGroup = RBAC_GROUP;
  for (const subject of Array.isArray(object.subjects) ? object.subjects : []) {
    if (isObject(subject) && !subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}

export const roleBindingStrategy: Strategy = {
  ...defaultStrategy,
  validateName: pathSegmentName,
  prepareForCreate: setDefaults,
  prepareForUpdate: setDefaults,
  validate: (object, old) => validateRoleBinding(object, old),
};

export const clusterRoleBindingStrategy: Strategy = {
  ...roleBindingStrategy,
  validate: (object, old) => validateRoleBinding(object, old, true),
};

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** pkg/apis/rbac/validation ValidatePolicyRule. */
function validateRules(object: KubeObject, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const rules = Array.isArray(object.rules) ? object.rules : [];
  rules.forEach((raw, index) => {
    const rule = isObject(raw) ? raw : {};
    const at = `rules[${index}]`;
    if (strings(rule.verbs).length === 0) errors.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
    const urls = strings(rule.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced) errors.push(invalidValue(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (strings(rule.apiGroups).length > 0 || strings(rule.resources).length > 0 || strings(rule.resourceNames).length > 0) {
        errors.push(invalidValue(`${at}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (strings(rule.apiGroups).length === 0) errors.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    if (strings(rule.resources).length === 0) errors.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
  });
  return errors;
}

export const roleStrategy: Strategy = {
  ...defaultStrategy,
  validateName: pathSegmentName,
  validate: (object) => validateRules(object, true),
};

export const clusterRoleStrategy: Strategy = {
  ...defaultStrategy,
  validateName: pathSegmentName,
  validate: (object) => {
    const errors = validateRules(object, false);
    const selectors = isObject(object.aggregationRule) ? object.aggregationRule.clusterRoleSelectors : undefined;
    if (isObject(object.aggregationRule) && !(Array.isArray(selectors) && selectors.length > 0)) {
      errors.push(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    }
    return errors;
  },
};
