// What admission matches a request with, shared by the validating webhooks (admission.ts) and the
// validating admission policies (admission-policy.ts): rules of operations, groups, versions and
// resources with their scope (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules), and
// label selectors as requirements.

import type { AdmissionAttributes } from './admission.ts';
import { apiVersionOf, NAMESPACES, type ResourceType } from './registry.ts';
import { matchesLabels, type LabelRequirement } from './selectors.ts';
import { isObject, type JsonObject, type KubeObject } from './types.ts';

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** metav1.LabelSelector as requirements (an empty selector has none and matches everything). */
export function selectorRequirements(selector: unknown): LabelRequirement[] {
  if (!isObject(selector)) return [];
  const requirements: LabelRequirement[] = [];
  if (isObject(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) requirements.push({ key, operator: '=', values: [String(value)] });
  }
  for (const expression of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    if (!isObject(expression) || typeof expression.key !== 'string') continue;
    const operator = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[String(expression.operator) as 'In'];
    if (operator) requirements.push({ key: expression.key, operator, values: strings(expression.values) });
  }
  return requirements;
}

export function labelsOf(object: KubeObject | undefined): Record<string, string> {
  return object?.metadata.labels ?? {};
}

function matchesOne(patterns: string[], value: string): boolean {
  return patterns.includes('*') || patterns.includes(value);
}

/** rules.Matcher: operation, group, version, resource (with subresource) and scope. */
export function ruleMatches(rule: unknown, attributes: AdmissionAttributes): boolean {
  if (!isObject(rule)) return false;
  const { type, subresource } = attributes;
  if (!matchesOne(strings(rule.operations), attributes.operation)) return false;
  if (!matchesOne(strings(rule.apiGroups), type.group)) return false;
  if (!matchesOne(strings(rule.apiVersions), type.version)) return false;
  const resource = subresource ? `${type.plural}/${subresource}` : type.plural;
  const resourceMatches = strings(rule.resources).some((pattern) => {
    if (pattern === '*/*' || pattern === resource) return true;
    if (pattern === '*') return !subresource;
    const [base, sub] = pattern.split('/');
    if (sub === undefined) return false;
    return (base === '*' && sub === subresource) || (base === type.plural && sub === '*' && subresource !== undefined);
  });
  if (!resourceMatches) return false;
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  if (scope === 'Cluster') return !type.namespaced;
  if (scope === 'Namespaced') return type.namespaced;
  return true;
}


/** An object as admission hands it on: with its apiVersion and kind. */
export function withTypeMeta(object: KubeObject, type: ResourceType): KubeObject {
  return { ...object, apiVersion: object.apiVersion ?? apiVersionOf(type), kind: object.kind ?? type.kind };
}

/**
 * A webhook's or a policy's namespaceSelector and objectSelector (namespace.Matcher, object.Matcher):
 * the namespace's labels (a Namespace's own; cluster-scoped objects always match), and the object
 * or the old object (an absent one matches nothing). Empty selectors match everything.
 */
export function selectorsMatch(match: JsonObject, attributes: AdmissionAttributes, namespaceLabels: (name: string) => Record<string, string> | undefined): boolean {
  const objectSelector = selectorRequirements(match.objectSelector);
  const objectMatches = (object: KubeObject | undefined) => object !== undefined && matchesLabels(objectSelector, labelsOf(object));
  if (objectSelector.length > 0 && !objectMatches(attributes.object) && !objectMatches(attributes.oldObject)) return false;
  const namespaceSelector = selectorRequirements(match.namespaceSelector);
  if (namespaceSelector.length === 0) return true;
  if (attributes.type.group === '' && attributes.type.plural === NAMESPACES.plural && !attributes.subresource) {
    return matchesLabels(namespaceSelector, labelsOf(attributes.object ?? attributes.oldObject));
  }
  if (!attributes.type.namespaced) return true;
  return matchesLabels(namespaceSelector, namespaceLabels(attributes.namespace ?? '') ?? {});
}

/** The AdmissionRequest of a write (without its uid): what a webhook is sent, and a policy's `request`. */
export function admissionRequest(attributes: AdmissionAttributes): JsonObject {
  const { type, subresource, user } = attributes;
  const kind = subresource === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { group: type.group, version: type.version, kind: type.kind };
  const resource = { group: type.group, version: type.version, resource: type.plural };
  return {
    kind,
    resource,
    ...(subresource ? { subResource: subresource } : {}),
    requestKind: kind,
    requestResource: resource,
    ...(subresource ? { requestSubResource: subresource } : {}),
    ...(attributes.name ? { name: attributes.name } : {}),
    ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) },
    object: attributes.object ? withTypeMeta(attributes.object, type) : null,
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
}
