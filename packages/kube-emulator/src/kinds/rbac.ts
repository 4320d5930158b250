// rbac.authorization.k8s.io/v1 RoleBinding: stored and validated as k8s.io/kubernetes/pkg/apis/rbac/
// validation does (roleRef fixed at creation, subjects by kind). The emulator authorizes nothing by
// it (every authenticated caller may do everything, as a system:masters member may); it is served so
// that the product's per-namespace `occ-tenant` binding (K1) is written the same way to the embedded
// server as to a real one, and can be read back.

import { invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { isObject, jsonEqual, type KubeObject } from '../types.ts';
import { dns1123Subdomain, pathSegmentName } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function validateRoleRef(roleRef: unknown): FieldError[] {
  const ref = isObject(roleRef) ? roleRef : {};
  const errors: FieldError[] = [];
  if (text(ref.apiGroup) !== RBAC_GROUP) errors.push(notSupported('roleRef.apiGroup', text(ref.apiGroup), [RBAC_GROUP]));
  if (!['Role', 'ClusterRole'].includes(text(ref.kind))) errors.push(notSupported('roleRef.kind', text(ref.kind), ['Role', 'ClusterRole']));
  const name = text(ref.name);
  if (name === '') errors.push(required('roleRef.name'));
  else for (const message of pathSegmentName(name)) errors.push(invalidValue('roleRef.name', name, message));
  return errors;
}

function validateSubject(subject: unknown, index: number): FieldError[] {
  const item = isObject(subject) ? subject : {};
  const at = `subjects[${index}]`;
  const errors: FieldError[] = [];
  const name = text(item.name);
  if (name === '') errors.push(required(`${at}.name`));
  switch (text(item.kind)) {
    case 'ServiceAccount':
      if (name !== '') for (const message of dns1123Subdomain(name)) errors.push(invalidValue(`${at}.name`, name, message));
      if (text(item.apiGroup) !== '') errors.push(notSupported(`${at}.apiGroup`, text(item.apiGroup), ['']));
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

function validateRoleBinding(object: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errors = [...validateRoleRef(object.roleRef)];
  const subjects = Array.isArray(object.subjects) ? object.subjects : [];
  subjects.forEach((subject, index) => errors.push(...validateSubject(subject, index)));
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
