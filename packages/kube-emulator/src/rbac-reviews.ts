// E9: authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview,
// LocalSubjectAccessReview and SelfSubjectRulesReview, answered by the same authorizer that
// judges requests (rbac-authorizer.ts), so `kubectl auth can-i` (and `--list`) tell the truth.
// None is stored: a POST answers the review with its status, as pkg/registry/authorization does.

import type { UserInfo } from './auth.ts';
import { badRequest, invalid, invalidValue, type FieldError } from './errors.ts';
import { type AuthorizationAttributes, type Authorizer, PRIVILEGED_GROUP } from './rbac-authorizer.ts';
import { isObject, type JsonObject } from './types.ts';

export const REVIEW_RESOURCES = ['selfsubjectaccessreviews', 'subjectaccessreviews', 'localsubjectaccessreviews', 'selfsubjectrulesreviews'] as const;
export type ReviewResource = (typeof REVIEW_RESOURCES)[number];

const KINDS: Record<ReviewResource, string> = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
};

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function attributesOf(user: UserInfo, spec: JsonObject): AuthorizationAttributes {
  const resource = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nonResource = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  if (resource) {
    return {
      user,
      verb: text(resource.verb),
      resourceRequest: true,
      path: '',
      apiGroup: text(resource.group),
      apiVersion: text(resource.version),
      namespace: text(resource.namespace),
      resource: text(resource.resource),
      subresource: text(resource.subresource),
      name: text(resource.name),
    };
  }
  return { user, verb: text(nonResource.verb), resourceRequest: false, path: text(nonResource.path), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

/** ValidateSubjectAccessReviewSpec and its self/local variants. */
function validateSpec(kind: string, spec: JsonObject, withUser: boolean, namespace: string | undefined): void {
  const errors: FieldError[] = [];
  if (spec.resourceAttributes != null && spec.nonResourceAttributes != null) {
    errors.push(invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (spec.resourceAttributes == null && spec.nonResourceAttributes == null) {
    errors.push(invalidValue('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (withUser && text(spec.user) === '' && strings(spec.groups).length === 0) {
    errors.push(invalidValue('spec.user', text(spec.user), 'at least one of user or group must be specified'));
  }
  if (namespace !== undefined) {
    const given = isObject(spec.resourceAttributes) ? text(spec.resourceAttributes.namespace) : '';
    if (spec.nonResourceAttributes != null) errors.push(invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    else if (given !== namespace) errors.push(invalidValue('spec.resourceAttributes.namespace', given, 'must match metadata.namespace'));
  }
  if (errors.length > 0) throw invalid({ group: 'authorization.k8s.io', kind }, '', errors);
}

/** Answers a review POSTed to /apis/authorization.k8s.io/v1/[namespaces/{namespace}/]{resource}. */
export function answerReview(authorizer: Authorizer, resource: ReviewResource, requester: UserInfo, body: unknown, namespace?: string): JsonObject {
  const kind = KINDS[resource];
  if (!isObject(body)) throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: the object provided is not a JSON object`);
  const spec = isObject(body.spec) ? body.spec : {};
  const metadata = { ...(isObject(body.metadata) ? body.metadata : {}), creationTimestamp: null };
  const answer = (status: JsonObject): JsonObject => ({ kind, apiVersion: 'authorization.k8s.io/v1', metadata, spec, status });

  if (resource === 'selfsubjectrulesreviews') return answer(rulesReview(authorizer, requester, text(spec.namespace)));

  let user = requester;
  if (resource === 'subjectaccessreviews' || resource === 'localsubjectaccessreviews') {
    validateSpec(kind, spec, true, resource === 'localsubjectaccessreviews' ? namespace : undefined);
    const extra = isObject(spec.extra) ? Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, strings(v)])) : undefined;
    user = { username: text(spec.user), groups: strings(spec.groups), ...(text(spec.uid) ? { uid: text(spec.uid) } : {}), ...(extra ? { extra } : {}) };
  } else {
    validateSpec(kind, spec, false, undefined);
  }
  const decision = authorizer.authorize(attributesOf(user, spec));
  return answer({ allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) });
}

/** SelfSubjectRulesReview: what the requester may do in a namespace, as the authorizers' RulesFor lists it. */
function rulesReview(authorizer: Authorizer, user: UserInfo, namespace: string): JsonObject {
  const resourceRules: JsonObject[] = [];
  const nonResourceRules: JsonObject[] = [];
  if (user.groups.includes(PRIVILEGED_GROUP)) {
    resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
    nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
  }
  const errors: string[] = [];
  for (const source of authorizer.rules.sources(user, namespace)) {
    if ('error' in source) {
      errors.push(source.error);
      continue;
    }
    for (const rule of source.rules) {
      if (rule.resources.length > 0) {
        resourceRules.push({ verbs: rule.verbs, apiGroups: rule.apiGroups, resources: rule.resources, ...(rule.resourceNames.length > 0 ? { resourceNames: rule.resourceNames } : {}) });
      }
      if (rule.nonResourceURLs.length > 0) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
    }
  }
  const unique = [...new Set(errors)];
  return {
    resourceRules,
    nonResourceRules,
    incomplete: unique.length > 0,
    ...(unique.length > 0 ? { evaluationError: unique.length === 1 ? unique[0] : `[${unique.join(', ')}]` } : {}),
  };
}
