// Pod and ReplicaSet: served so that the kubelet simulator can show the ReplicaSets and Pods a
// cluster's controllers would (E3). Job, NetworkPolicy and PodDisruptionBudget: served so that the
// install (deploy/) applies. Service: the same, named as a DNS-1035 label, as ValidateServiceName
// checks. Node: registered by the kubelet simulator (kubelet/node.ts). Stored as given; the emulator runs no admission for them beyond names.

import { isIP } from 'node:net';
import { invalidValue, required, type FieldError } from '../errors.ts';
import { isObject, type KubeObject } from '../types.ts';
import { dns1035Label, dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, fieldAt, type Strategy } from './strategy.ts';

export const workloadStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
};

/** A Pod's field labels, as pkg/apis/core/v1's conversion function lists them (kubectl get pods --field-selector status.phase=Running). */
export const podStrategy: Strategy = {
  ...workloadStrategy,
  fieldLabels: Object.fromEntries(
    ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'].map((path) => [path, fieldAt(path)]),
  ),
};

/**
 * A Job selects by its succeeded count, and refuses other fields in batch/v1's own words. Created
 * with batch/v1's defaults (SetDefaults_Job): one completion run one at a time unless it says
 * otherwise, six retries, and, as current servers add them, NonIndexed and not suspended.
 */
export const jobStrategy: Strategy = {
  ...workloadStrategy,
  prepareForCreate(job) {
    if (!isObject(job.spec)) return;
    const spec = job.spec;
    if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
    spec.parallelism ??= 1;
    spec.backoffLimit ??= 6;
    spec.completionMode ??= 'NonIndexed';
    spec.suspend ??= false;
  },
  fieldLabels: { 'status.successful': (job) => String(((job.status as { succeeded?: number } | undefined)?.succeeded ?? 0)) },
  fieldLabelRefusal: (field) => `field label "${field}" not supported for batchv1.Job`,
};

export const serviceStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1035Label,
};

/** ValidateNonSpecialIP (pkg/apis/core/validation): an endpoint address the API server could dial by mistake is refused. */
function specialAddress(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 0) return 'must be a valid IP address';
  const v4 = family === 4 ? ip.split('.').map(Number) : null;
  const v6 = family === 6 ? ip.toLowerCase() : null;
  if (v4 ? v4.every((octet) => octet === 0) : v6 === '::') return 'may not be unspecified (0.0.0.0)';
  if (v4 ? v4[0] === 127 : v6 === '::1') return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if (v4 ? v4[0] === 169 && v4[1] === 254 : /^fe[89ab]/.test(v6 ?? '')) return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  if (v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : (v6 ?? '').startsWith('ff02:')) {
    return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  }
  return undefined;
}

/**
 * Endpoints: what ValidateEndpoints checks of the addresses and ports (the API server dials them
 * for a webhook named by service), with TCP as a port's default protocol.
 */
export const endpointsStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  prepareForCreate: defaultEndpointPorts,
  prepareForUpdate: defaultEndpointPorts,
  validate(object) {
    const errors: FieldError[] = [];
    const subsets = Array.isArray(object.subsets) ? object.subsets : [];
    subsets.forEach((subset, i) => {
      const at = `subsets[${i}]`;
      const entry = isObject(subset) ? subset : {};
      for (const list of ['addresses', 'notReadyAddresses'] as const) {
        (Array.isArray(entry[list]) ? entry[list] : []).forEach((address, j) => {
          const ip = isObject(address) && typeof address.ip === 'string' ? address.ip : '';
          const problem = specialAddress(ip);
          if (problem) errors.push(invalidValue(`${at}.${list}[${j}].ip`, ip, problem));
        });
      }
      const ports = Array.isArray(entry.ports) ? entry.ports : [];
      ports.forEach((port, j) => {
        const value = isObject(port) ? port.port : undefined;
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
          errors.push(invalidValue(`${at}.ports[${j}].port`, value, 'must be between 1 and 65535, inclusive'));
        }
        const name = isObject(port) ? port.name : undefined;
        if (ports.length > 1 && (typeof name !== 'string' || name === '')) errors.push(required(`${at}.ports[${j}].name`));
      });
    });
    return errors;
  },
};

function defaultEndpointPorts(object: KubeObject): void {
  for (const subset of Array.isArray(object.subsets) ? object.subsets : []) {
    if (!isObject(subset) || !Array.isArray(subset.ports)) continue;
    for (const port of subset.ports) if (isObject(port) && port.protocol === undefined) port.protocol = 'TCP';
  }
}
