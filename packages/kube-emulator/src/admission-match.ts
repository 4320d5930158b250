// What admission matches a request with, shared by the validating webhooks (admission.ts) and the
// validating admission policies (admission-policy.ts): rules of operations, groups, versions and
// resources with their scope (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules), and
// label selectors as requirements.

import type { AdmissionAttributes } from './admission.ts';
import type { LabelRequirement } from './selectors.ts';
import { isObject, type KubeObject } from './types.ts';

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

