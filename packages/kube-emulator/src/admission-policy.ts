// ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, GA in Kubernetes 1.30; emulated: the
// E8 lane's 1.20 server has no such API), as k8s.io/apiserver/pkg/admission/plugin/policy/validating
// runs it: for a write, every ValidatingAdmissionPolicyBinding whose policy exists and whose policy's
// matchConstraints and own matchResources both match the request (resource rules with resourceNames,
// excludeResourceRules, namespaceSelector, objectSelector) has its policy's matchConditions, then
// variables and validations evaluated in CEL with `object`, `oldObject`, `request`,
// `namespaceObject` and `variables`. A validation that is false denies the write when the binding's
// validationActions hold Deny: the first such denial, worded and coded as the real dispatcher does
// (`<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<policy>' with binding '<binding>'
// denied request: <message>`, with the validation's reason, Invalid by default, as the status
// code). An expression that fails to evaluate denies under failurePolicy Fail and is skipped under
// Ignore. Policies and bindings themselves are never subject to policies, as on a real server.
//
// Not emulated: paramKind and paramRef (a binding that names a parameter is skipped, as if its
// parameter were not found under parameterNotFoundAction Allow), auditAnnotations, the Warn and
// Audit actions' warnings and audit annotations, the `authorizer` variable, type checking into
// status.typeChecking, matchPolicy Equivalent across versions (every kind is served at one version
// here), and cost limits. CEL is @marcbachmann/cel-js with optional types, not cel-go with
// Kubernetes' libraries: the common operators, macros and optionals behave alike; Kubernetes'
// extension functions (quantity, url, ip, regex helpers …) are absent.

import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import { admissionRequest, ruleMatches, selectorsMatch, strings, withTypeMeta } from './admission-match.ts';
import type { AdmissionAttributes } from './admission.ts';
import { compileCel } from './cel.ts';
import type { KubeApi } from './api.ts';
import { groupResourceString, StatusError, type StatusReason } from './errors.ts';
import { groupResourceOf, NAMESPACES, storageKeyOf, VALIDATING_ADMISSION_POLICIES, VALIDATING_ADMISSION_POLICY_BINDINGS } from './registry.ts';
import { strategyFor } from './kinds/lookup.ts';
import type { ObjectStore } from './store.ts';
import { isObject, jsonEqual, type JsonObject, type KubeObject } from './types.ts';

const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

class EvaluationFailure extends Error {}

function evaluate(expression: string, context: Record<string, unknown>): unknown {
  try {
    return compileCel(expression)(context);
  } catch (error) {
    throw new EvaluationFailure(`expression '${expression}' resulted in error: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** The JSON of an object as CEL sees it: plain data, with apiVersion and kind. */
function asData(object: KubeObject | undefined, attributes: AdmissionAttributes): unknown {
  return object ? withTypeMeta(object, attributes.type) : null;
}

export class AdmissionPolicies {
  constructor(private readonly store: ObjectStore) {}

  /** Whether any binding exists: without one, no write needs its object learnt for policies. */
  any(): boolean {
    return this.store.list(storageKeyOf(VALIDATING_ADMISSION_POLICY_BINDINGS)).length > 0;
  }

  /** Throws the first denial of a binding with the Deny action, in the bindings' name order. */
  validate(attributes: AdmissionAttributes): void {
    const bindings = [...this.store.list(storageKeyOf(VALIDATING_ADMISSION_POLICY_BINDINGS))].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    for (const binding of bindings) {
      const spec = isObject(binding.spec) ? binding.spec : {};
      if (spec.paramRef !== undefined && spec.paramRef !== null) continue;
      const policy = this.store.get(storageKeyOf(VALIDATING_ADMISSION_POLICIES), undefined, String(spec.policyName ?? ''));
      if (!policy || !isObject(policy.spec) || (policy.spec.paramKind !== undefined && policy.spec.paramKind !== null)) continue;
      if (!this.matches(policy.spec.matchConstraints, attributes, true)) continue;
      if (isObject(spec.matchResources) && !this.matches(spec.matchResources, attributes, false)) continue;
      const message = this.judge(policy.spec, attributes);
      if (message === undefined || !strings(spec.validationActions).includes('Deny')) continue;
      const deniedBy = `ValidatingAdmissionPolicy '${policy.metadata.name ?? ''}' with binding '${binding.metadata.name ?? ''}' denied request: ${message.text}`;
      const gr = groupResourceOf(attributes.type);
      const resource = groupResourceString(gr);
      const reason = (REASON_CODES[message.reason] ? message.reason : 'Invalid') as StatusReason;
      throw new StatusError(REASON_CODES[reason] ?? 422, reason, attributes.name ? `${resource} "${attributes.name}" is forbidden: ${deniedBy}` : `${resource} is forbidden: ${deniedBy}`, {
        ...(attributes.name ? { name: attributes.name } : {}),
        group: gr.group,
        kind: gr.resource,
        causes: [{ message: deniedBy }],
      });
    }
  }

  /** matchConstraints (required rules) or a binding's matchResources (rules optional: all the policy matched). */
  private matches(match: unknown, attributes: AdmissionAttributes, rulesRequired: boolean): boolean {
    const m = isObject(match) ? match : {};
    const rules = Array.isArray(m.resourceRules) ? m.resourceRules : [];
    const ruleHolds = (rule: unknown) => ruleMatches(rule, attributes) && (strings((rule as JsonObject).resourceNames).length === 0 || strings((rule as JsonObject).resourceNames).includes(attributes.name));
    if ((rulesRequired || rules.length > 0) && !rules.some(ruleHolds)) return false;
    if ((Array.isArray(m.excludeResourceRules) ? m.excludeResourceRules : []).some(ruleHolds)) return false;
    return selectorsMatch(m, attributes, (name) => this.store.get(storageKeyOf(NAMESPACES), undefined, name)?.metadata.labels);
  }

  private namespace(attributes: AdmissionAttributes): KubeObject | undefined {
    return attributes.namespace ? this.store.get(storageKeyOf(NAMESPACES), undefined, attributes.namespace) : undefined;
  }

  /** The first failed validation's message and reason, or undefined when the policy admits the write. */
  private judge(spec: JsonObject, attributes: AdmissionAttributes): { text: string; reason: string } | undefined {
    const failOpen = spec.failurePolicy === 'Ignore';
    const context: Record<string, unknown> = {
      object: asData(attributes.object, attributes),
      oldObject: asData(attributes.oldObject, attributes),
      namespaceObject: attributes.type.namespaced ? (this.namespace(attributes) ?? null) : null,
      params: null,
      // As webhooks are sent it; name and namespace always present (empty when none), as in cel-go's.
      request: { ...admissionRequest(attributes), name: attributes.name, namespace: attributes.namespace ?? '' },
    };
    try {
      for (const condition of Array.isArray(spec.matchConditions) ? spec.matchConditions : []) {
        if (isObject(condition) && evaluate(String(condition.expression ?? ''), context) !== true) return undefined;
      }
      const variables: Record<string, unknown> = {};
      context.variables = variables;
      for (const variable of Array.isArray(spec.variables) ? spec.variables : []) {
        if (isObject(variable)) variables[String(variable.name ?? '')] = evaluate(String(variable.expression ?? ''), context);
      }
      for (const validation of Array.isArray(spec.validations) ? spec.validations : []) {
        if (!isObject(validation)) continue;
        const expression = String(validation.expression ?? '');
        const result = evaluate(expression, context);
        if (typeof result !== 'boolean') throw new EvaluationFailure(`expression '${expression}' resulted in error: validation failed due to non-boolean result`);
        if (result) continue;
        return { text: this.message(validation, expression, context), reason: typeof validation.reason === 'string' ? validation.reason : 'Invalid' };
      }
      return undefined;
    } catch (error) {
      if (!(error instanceof EvaluationFailure) || failOpen) return undefined;
      return { text: error.message, reason: 'Invalid' };
    }
  }

  /** The validation's message, its messageExpression's string, or "failed expression: …". */
  private message(validation: JsonObject, expression: string, context: Record<string, unknown>): string {
    if (typeof validation.messageExpression === 'string' && validation.messageExpression !== '') {
      try {
        const text = evaluate(validation.messageExpression, context);
        if (typeof text === 'string' && text.trim() !== '' && !text.includes('\n')) return text.trim();
      } catch {
        // a failing messageExpression falls back to the static message, as the real dispatcher does
      }
    }
    if (typeof validation.message === 'string' && validation.message !== '') return validation.message;
    return `failed expression: ${expression.trim()}`;
  }
}

/** The ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding documents of YAML files. */
export async function readAdmissionPolicyFiles(files: readonly string[]): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const file of files) {
    for (const document of yaml.loadAll(await readFile(file, 'utf8'))) {
      if (isObject(document) && document.apiVersion === 'admissionregistration.k8s.io/v1' && (document.kind === 'ValidatingAdmissionPolicy' || document.kind === 'ValidatingAdmissionPolicyBinding')) {
        out.push(document as KubeObject);
      }
    }
  }
  return out;
}

/** Creates a policy or binding, or brings a stored one of the same name to this spec (as a platform's manifests would). */
export function installAdmissionPolicy(store: ObjectStore, api: KubeApi, object: KubeObject): void {
  const type = object.kind === 'ValidatingAdmissionPolicy' ? VALIDATING_ADMISSION_POLICIES : VALIDATING_ADMISSION_POLICY_BINDINGS;
  const name = object.metadata.name ?? '';
  const existing = store.get(storageKeyOf(type), undefined, name);
  const options = { fieldManager: 'kube-emulator' };
  if (!existing) {
    api.create({ type }, structuredClone(object), options);
    return;
  }
  // As stored: defaulted. Unchanged, it is left alone (no new resourceVersion at every start).
  const wanted = structuredClone(object);
  strategyFor(type).prepareForCreate?.(wanted, type);
  if (jsonEqual(existing.spec, wanted.spec) && jsonEqual(existing.metadata.labels ?? {}, wanted.metadata.labels ?? {})) return;
  api.replace({ type, name }, { ...structuredClone(object), metadata: { ...object.metadata, resourceVersion: existing.metadata.resourceVersion } }, options);
}
