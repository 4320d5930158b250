// ServiceAccount, Pod and ReplicaSet: served so that a gateway's ServiceAccount can be applied and
// the kubelet simulator can show the ReplicaSets and Pods a cluster's controllers would (E3).
// Stored as given; the emulator runs no admission for them beyond names.

import { dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

export const workloadStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
};
