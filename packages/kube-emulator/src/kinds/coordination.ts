// coordination.k8s.io/v1 Lease: the lock leader election keeps (client-go's leaderelection and the
// control plane's elector). Validation as k8s.io/kubernetes/pkg/apis/coordination/validation:
// durations positive, transitions non-negative. Unconditional updates are allowed, as on a real
// server; electors send resourceVersion to make theirs conditional.

import { invalidValue, type FieldError } from '../errors.ts';
import { isObject } from '../types.ts';
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

export const leaseStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  validate: (object) => validateLeaseSpec(object.spec),
};
