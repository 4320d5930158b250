// coordination.k8s.io/v1 Lease: the lock leader election keeps (client-go's leaderelection and the
// control plane's elector). Validation as k8s.io/kubernetes/pkg/apis/coordination/validation:
// durations positive, transitions non-negative. Unconditional updates are allowed, as on a real
// server; electors send resourceVersion to make theirs conditional.

import { badRequest, invalidValue, type FieldError } from '../errors.ts';
import { isObject, type KubeObject } from '../types.ts';
import { dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

function validateLeaseSpec(spec: unknown): FieldError[] {
  if (!isObject(spec)) return [];
  const errors: FieldError[] = [];
  const duration = spec.leaseDurationSeconds;
  if (duration !== undefined && duration !== null && (typeof duration !== 'number' || duration <= 0)) {
    errors.push(invalidValue('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  }
  const transitions = spec.leaseTransitions;
  if (transitions !== undefined && transitions !== null && (typeof transitions !== 'number' || transitions < 0)) {
    errors.push(invalidValue('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  return errors;
}

const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/**
 * acquireTime and renewTime are MicroTime: JSON decoding parses them with Go's RFC3339Micro layout,
 * which wants exactly six fractional digits, and refuses anything else before validation (E8: a
 * real server answers 400 to `2026-12-01T02:05:43.734Z`, what a JavaScript Date serializes to).
 */
function checkMicroTimes(object: KubeObject): void {
  const spec = object.spec;
  if (!isObject(spec)) return;
  for (const [field, goField] of [['acquireTime', 'AcquireTime'], ['renewTime', 'RenewTime']] as const) {
    const value = spec[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      const fraction = typeof value === 'string' ? (/\.\d*.*$|Z$/.exec(value.slice(19))?.[0] ?? value.slice(19)) : String(value);
      throw badRequest(
        `Lease in version "v1" cannot be handled as a Lease: v1.Lease.Spec: v1.LeaseSpec.${goField}: unmarshalerDecoder: parsing time ${JSON.stringify(String(value))} as "${MICRO_LAYOUT}": cannot parse ${JSON.stringify(fraction)} as ".000000"`,
      );
    }
  }
}

export const leaseStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  prepareForCreate: checkMicroTimes,
  prepareForUpdate: checkMicroTimes,
  validate: (object) => validateLeaseSpec(object.spec),
};
