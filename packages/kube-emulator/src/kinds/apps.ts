// apps/v1 Deployment: the defaults and the validation a real server applies, and the scale
// subresource. No controller runs: status stays as the client (or a kubelet simulator) writes it.

import { invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { matchesLabels, type LabelSelector } from '../selectors.ts';
import { isObject, jsonEqual, type JsonObject, type KubeObject } from '../types.ts';
import { dns1123Label, dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

function obj(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function setDefault(target: JsonObject, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const item of list) {
    if (!isObject(item)) continue;
    setDefault(item, 'terminationMessagePath', '/dev/termination-log');
    setDefault(item, 'terminationMessagePolicy', 'File');
    setDefault(item, 'imagePullPolicy', defaultPullPolicy(item.image));
    setDefault(item, 'resources', {});
    if (Array.isArray(item.ports)) for (const port of item.ports) if (isObject(port)) setDefault(port, 'protocol', 'TCP');
  }
}

/** SetDefaults_Deployment and the pod template defaults of k8s.io/kubernetes/pkg/apis/core/v1. */
export function defaultDeployment(object: KubeObject): void {
  const spec = obj(object.spec);
  object.spec = spec;
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  const strategy = obj(spec.strategy);
  spec.strategy = strategy;
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = obj(strategy.rollingUpdate);
    strategy.rollingUpdate = rolling;
    setDefault(rolling, 'maxUnavailable', '25%');
    setDefault(rolling, 'maxSurge', '25%');
  }
  const template = obj(spec.template);
  spec.template = template;
  const podSpec = obj(template.spec);
  template.spec = podSpec;
  setDefault(podSpec, 'restartPolicy', 'Always');
  setDefault(podSpec, 'terminationGracePeriodSeconds', 30);
  setDefault(podSpec, 'dnsPolicy', 'ClusterFirst');
  setDefault(podSpec, 'securityContext', {});
  setDefault(podSpec, 'schedulerName', 'default-scheduler');
  defaultContainers(podSpec.containers);
  defaultContainers(podSpec.initContainers);
}

/** A metav1.LabelSelector as label requirements. */
export function selectorRequirements(selector: JsonObject): LabelSelector {
  const requirements: LabelSelector = Object.entries(obj(selector.matchLabels)).map(([key, value]) => ({
    key,
    operator: '=' as const,
    values: [String(value)],
  }));
  for (const expression of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const e = obj(expression);
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    const operator = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' }[String(e.operator)] as
      | 'in'
      | 'notin'
      | 'exists'
      | '!'
      | undefined;
    if (operator) requirements.push({ key: String(e.key), operator, values });
  }
  return requirements;
}

/** The `a=b,c in (d)` form Scale.status.selector carries. */
export function selectorString(selector: JsonObject): string {
  return selectorRequirements(selector)
    .map((r) => {
      if (r.operator === '=') return `${r.key}=${r.values[0] ?? ''}`;
      if (r.operator === 'exists') return r.key;
      if (r.operator === '!') return `!${r.key}`;
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    })
    .join(',');
}

function goMap(labels: JsonObject): string {
  return `map[string]string{${Object.entries(labels)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join(', ')}}`;
}

function validateContainers(path: string, list: unknown, requiredList: boolean): FieldError[] {
  if (!Array.isArray(list) || list.length === 0) return requiredList ? [required(path)] : [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const c = obj(item);
    const at = `${path}[${i}]`;
    if (typeof c.name !== 'string' || c.name === '') errors.push(required(`${at}.name`));
    else {
      errors.push(...dns1123Label(c.name).map((m) => invalidValue(`${at}.name`, c.name, m)));
      if (seen.has(c.name)) errors.push({ type: 'FieldValueDuplicate', field: `${at}.name`, value: c.name, detail: '' });
      seen.add(c.name);
    }
    if (typeof c.image !== 'string' || c.image.trim() === '') errors.push(required(`${at}.image`));
    (Array.isArray(c.env) ? c.env : []).forEach((envItem, j) => {
      const env = obj(envItem);
      const envAt = `${at}.env[${j}]`;
      if (typeof env.name !== 'string' || env.name === '') errors.push(required(`${envAt}.name`));
      const ref = obj(obj(env.valueFrom).secretKeyRef);
      if (isObject(obj(env.valueFrom).secretKeyRef)) {
        if (typeof ref.key !== 'string' || ref.key === '') errors.push(required(`${envAt}.valueFrom.secretKeyRef.key`));
        if (typeof ref.name !== 'string' || ref.name === '') errors.push(required(`${envAt}.valueFrom.secretKeyRef.name`));
      }
    });
  });
  return errors;
}

export function validateDeployment(object: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = obj(object.spec);
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    errors.push(invalidValue('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  }
  const template = obj(spec.template);
  const templateLabels = obj(obj(template.metadata).labels);
  if (!isObject(spec.selector)) {
    errors.push(required('spec.selector'));
  } else {
    const requirements = selectorRequirements(spec.selector);
    if (requirements.length === 0) {
      errors.push(invalidValue('spec.selector', spec.selector, 'empty selector is invalid for deployment'));
    } else if (!matchesLabels(requirements, templateLabels as Record<string, string>)) {
      errors.push({
        ...invalidValue('spec.template.metadata.labels', templateLabels, '`selector` does not match template `labels`'),
        valueText: goMap(templateLabels),
      });
    }
    if (old && !jsonEqual(spec.selector, obj(old.spec).selector)) {
      errors.push(invalidValue('spec.selector', spec.selector, 'field is immutable'));
    }
  }
  const podSpec = obj(template.spec);
  errors.push(...validateContainers('spec.template.spec.containers', podSpec.containers, true));
  errors.push(...validateContainers('spec.template.spec.initContainers', podSpec.initContainers, false));
  if (podSpec.restartPolicy !== 'Always') {
    errors.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  }
  const strategyType = obj(spec.strategy).type;
  if (strategyType !== 'RollingUpdate' && strategyType !== 'Recreate') {
    errors.push(notSupported('spec.strategy.type', strategyType, ['Recreate', 'RollingUpdate']));
  }
  return errors;
}

export const deploymentStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  hasGeneration: true,
  generationCountsAnnotations: true,
  statusWritesAnnotations: true,
  prepareForCreate(object) {
    defaultDeployment(object);
    object.status = {};
  },
  prepareForUpdate(object) {
    defaultDeployment(object);
  },
  prepareForStatusUpdate(object) {
    omitEmptyCounts(object);
  },
  validate(object, old) {
    return validateDeployment(object, old);
  },
};

/**
 * DeploymentStatus' counts are `omitempty` integers in Go, so a real server stores and answers no
 * zero there (E8: `replicas: 0` written to /status reads back absent). collisionCount is a pointer
 * and keeps its zero.
 */
function omitEmptyCounts(object: KubeObject): void {
  if (!isObject(object.status)) return;
  for (const key of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) {
    if (object.status[key] === 0) delete object.status[key];
  }
}

/**
 * The autoscaling/v1 Scale a deployment's /scale answers. ScaleSpec.replicas is omitempty, so zero
 * replicas answer `spec: {}` (found by the E8 lane); ScaleStatus.replicas is always there.
 */
export function toScale(object: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  const spec = obj(object.spec);
  const status = obj(object.status);
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 0;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: status.replicas ?? 0, selector: selectorString(obj(spec.selector)) },
  };
}
