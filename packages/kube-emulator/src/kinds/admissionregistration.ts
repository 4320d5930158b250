// admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration: the defaults and the checks of
// k8s.io/kubernetes/pkg/apis/admissionregistration (v1 defaults, validation), so that what the
// server calls (admission.ts) is what a real server would have stored.

import { celCompileError } from '../cel.ts';
import { badRequest, duplicate, invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { isObject, type JsonObject, type KubeObject } from '../types.ts';
import { base64ErrorOffset, dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

function webhooksOf(object: KubeObject): unknown[] {
  return Array.isArray(object.webhooks) ? object.webhooks : [];
}

/** SetDefaults_ValidatingWebhook and SetDefaults_Rule, SetDefaults_ServiceReference. */
function applyDefaults(object: KubeObject): void {
  for (const hook of webhooksOf(object)) {
    if (!isObject(hook)) continue;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    for (const rule of Array.isArray(hook.rules) ? hook.rules : []) {
      if (isObject(rule)) rule.scope ??= '*';
    }
    const config = hook.clientConfig;
    if (isObject(config) && isObject(config.service)) config.service.port ??= 443;
    if (isObject(config) && typeof config.caBundle === 'string') {
      const offset = base64ErrorOffset(config.caBundle);
      if (offset >= 0) {
        throw badRequest(`ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: illegal base64 data at input byte ${offset}`);
      }
    }
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function validateClientConfig(path: string, config: unknown): FieldError[] {
  if (!isObject(config)) return [required(`${path}.clientConfig`, 'exactly one of url or service is required')];
  const hasUrl = typeof config.url === 'string' && config.url !== '';
  const hasService = isObject(config.service);
  if (hasUrl === hasService) return [required(`${path}.clientConfig`, 'exactly one of url or service is required')];
  if (hasUrl) return validateWebhookUrl(`${path}.clientConfig.url`, config.url as string);
  const service = config.service as JsonObject;
  const errors: FieldError[] = [];
  if (typeof service.name !== 'string' || service.name === '') errors.push(required(`${path}.clientConfig.service.name`, 'service name is required'));
  if (typeof service.namespace !== 'string' || service.namespace === '') errors.push(required(`${path}.clientConfig.service.namespace`, 'service namespace is required'));
  return errors;
}

function validateRules(path: string, rules: unknown): FieldError[] {
  const errors: FieldError[] = [];
  (Array.isArray(rules) ? rules : []).forEach((rule, i) => {
    const at = `${path}.rules[${i}]`;
    if (!isObject(rule)) return;
    for (const [field, label] of [
      ['operations', 'operations'],
      ['apiGroups', 'apiGroups'],
      ['apiVersions', 'apiVersions'],
      ['resources', 'resources'],
    ] as const) {
      if (strings(rule[field]).length === 0) errors.push(required(`${at}.${label}`, ''));
    }
    strings(rule.operations).forEach((op, j) => {
      if (!OPERATIONS.includes(op)) errors.push(notSupported(`${at}.operations[${j}]`, op, OPERATIONS));
    });
    if (typeof rule.scope === 'string' && !SCOPES.includes(rule.scope)) errors.push(notSupported(`${at}.scope`, rule.scope, SCOPES));
  });
  return errors;
}

function validate(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  webhooksOf(object).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    if (!isObject(hook)) return;
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name === '') errors.push(required(`${path}.name`, ''));
    else {
      if (name.split('.').length < 3) errors.push(invalidValue(`${path}.name`, name, 'should be a domain with at least three segments separated by dots'));
      else errors.push(...dns1123Subdomain(name).map((m) => invalidValue(`${path}.name`, name, m)));
      if (seen.has(name)) errors.push(duplicate(`${path}.name`, name));
      seen.add(name);
    }
    errors.push(...validateClientConfig(path, hook.clientConfig));
    errors.push(...validateRules(path, hook.rules));
    if (typeof hook.failurePolicy === 'string' && !FAILURE_POLICIES.includes(hook.failurePolicy)) {
      errors.push(notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
    }
    if (typeof hook.matchPolicy === 'string' && !MATCH_POLICIES.includes(hook.matchPolicy)) {
      errors.push(notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
    }
    if (hook.sideEffects === undefined || hook.sideEffects === null || hook.sideEffects === '') {
      errors.push(required(`${path}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
    } else if (!SIDE_EFFECTS.includes(String(hook.sideEffects))) {
      errors.push(notSupported(`${path}.sideEffects`, hook.sideEffects, SIDE_EFFECTS));
    }
    const versions = strings(hook.admissionReviewVersions);
    if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) {
      errors.push(required(`${path}.admissionReviewVersions`, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
    }
    const timeout = hook.timeoutSeconds;
    if (typeof timeout !== 'number' || timeout < 1 || timeout > 30) {
      errors.push(invalidValue(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
    }
  });
  return errors;
}

export const validatingWebhookConfigurationStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  prepareForCreate: (object) => applyDefaults(object),
  prepareForUpdate: (object) => applyDefaults(object),
  validate: (object) => validate(object),
};

/**
 * apiserver/pkg/util/webhook ValidateWebhookURL: every problem, each naming the part of the URL at
 * fault as its value (the scheme, the host …), as the E8 lane's real server words them.
 */
function validateWebhookUrl(field: string, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const parsed = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/(?:([^@/?#]*)@)?([^/?#]*))?[^?#]*(?:\?([^#]*))?(?:#(.*))?$/.exec(raw);
  if (!parsed) return [required(field, `url must be a valid URL${form}`)];
  const [, scheme = '', user, host = '', query = '', fragment = ''] = parsed;
  const errors: FieldError[] = [];
  if (scheme !== 'https') errors.push(invalidValue(field, scheme, `'https' is the only allowed URL scheme${form}`));
  if (host === '') errors.push(invalidValue(field, host, `host must be provided${form}`));
  if (user !== undefined) errors.push(invalidValue(field, user, 'user information is not permitted in the URL'));
  if (fragment !== '') errors.push(invalidValue(field, fragment, 'fragments are not permitted in the URL'));
  if (query !== '') errors.push(invalidValue(field, query, 'query parameters are not permitted in the URL'));
  return errors;
}

// ValidatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1, Kubernetes 1.30+;
// emulated, admission-policy.ts): their v1 defaults and the checks of
// pkg/apis/admissionregistration/validation that a client meets, the CEL expressions compiled.

const VALIDATION_ACTIONS = ['Deny', 'Warn', 'Audit'];
const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];

function specOf(object: KubeObject): JsonObject {
  if (!isObject(object.spec)) object.spec = {};
  return object.spec as JsonObject;
}

/** SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MatchResources. */
function defaultMatchResources(match: unknown): void {
  if (!isObject(match)) return;
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  match.matchPolicy ??= 'Equivalent';
  for (const rule of [...(Array.isArray(match.resourceRules) ? match.resourceRules : []), ...(Array.isArray(match.excludeResourceRules) ? match.excludeResourceRules : [])]) {
    if (isObject(rule)) rule.scope ??= '*';
  }
}

function compileErrors(path: string, expression: unknown): FieldError[] {
  if (typeof expression !== 'string' || expression.trim() === '') return [required(path, '')];
  const error = celCompileError(expression);
  return error ? [invalidValue(path, expression, `compilation failed: ${error}`)] : [];
}

function validatePolicy(object: KubeObject): FieldError[] {
  const spec = specOf(object);
  const errors: FieldError[] = [];
  const match = spec.matchConstraints;
  if (!isObject(match)) errors.push(required('spec.matchConstraints', ''));
  else {
    if (!Array.isArray(match.resourceRules) || match.resourceRules.length === 0) errors.push(required('spec.matchConstraints.resourceRules', ''));
    errors.push(...validateRules('spec.matchConstraints.resourceRules', match.resourceRules).map((e) => ({ ...e, field: e.field.replace('.rules[', '[') })));
  }
  if (typeof spec.failurePolicy === 'string' && !FAILURE_POLICIES.includes(spec.failurePolicy)) errors.push(notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  const validations = Array.isArray(spec.validations) ? spec.validations : [];
  const audits = Array.isArray(spec.auditAnnotations) ? spec.auditAnnotations : [];
  if (validations.length === 0 && audits.length === 0) errors.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  validations.forEach((validation, i) => {
    const at = `spec.validations[${i}]`;
    if (!isObject(validation)) return;
    errors.push(...compileErrors(`${at}.expression`, validation.expression));
    if (typeof validation.messageExpression === 'string' && validation.messageExpression.trim() !== '') errors.push(...compileErrors(`${at}.messageExpression`, validation.messageExpression));
    if (typeof validation.message === 'string' && validation.message.includes('\n')) errors.push(invalidValue(`${at}.message`, validation.message, 'message must not contain line breaks'));
    if (validation.reason !== undefined && !REASONS.includes(String(validation.reason))) errors.push(notSupported(`${at}.reason`, validation.reason, REASONS));
  });
  (Array.isArray(spec.matchConditions) ? spec.matchConditions : []).forEach((condition, i) => {
    if (isObject(condition)) errors.push(...compileErrors(`spec.matchConditions[${i}].expression`, condition.expression));
  });
  (Array.isArray(spec.variables) ? spec.variables : []).forEach((variable, i) => {
    if (isObject(variable)) errors.push(...compileErrors(`spec.variables[${i}].expression`, variable.expression));
  });
  return errors;
}

export const validatingAdmissionPolicyStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  hasGeneration: true,
  prepareForCreate: (object) => {
    const spec = specOf(object);
    spec.failurePolicy ??= 'Fail';
    defaultMatchResources(spec.matchConstraints);
  },
  prepareForUpdate: (object) => {
    const spec = specOf(object);
    spec.failurePolicy ??= 'Fail';
    defaultMatchResources(spec.matchConstraints);
  },
  validate: (object) => validatePolicy(object),
};

function validateBinding(object: KubeObject): FieldError[] {
  const spec = specOf(object);
  const errors: FieldError[] = [];
  if (typeof spec.policyName !== 'string' || spec.policyName === '') errors.push(required('spec.policyName', ''));
  const actions = strings(spec.validationActions);
  if (actions.length === 0) errors.push(required('spec.validationActions', 'at least one validation action is required'));
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!VALIDATION_ACTIONS.includes(action)) errors.push(notSupported(`spec.validationActions[${i}]`, action, VALIDATION_ACTIONS));
    if (seen.has(action)) errors.push(duplicate(`spec.validationActions[${i}]`, action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errors.push(invalidValue('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  return errors;
}

export const validatingAdmissionPolicyBindingStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  hasGeneration: true,
  prepareForCreate: (object) => defaultMatchResources(specOf(object).matchResources),
  prepareForUpdate: (object) => defaultMatchResources(specOf(object).matchResources),
  validate: (object) => validateBinding(object),
};
