// Pod and ReplicaSet: served so that the kubelet simulator can show the ReplicaSets and Pods a
// cluster's controllers would (E3). Job, NetworkPolicy and PodDisruptionBudget: served so that the
// install (deploy/) applies. Service: the same, named as a DNS-1035 label, as ValidateServiceName
// checks. Node: registered by the kubelet simulator (kubelet/node.ts). Stored as given; the emulator runs no admission for them beyond names.

import { dns1035Label, dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

export const workloadStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
};

export const serviceStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1035Label,
};
