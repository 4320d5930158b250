import {
  CONFIGMAPS,
  CRDS,
  DEPLOYMENTS,
  ENDPOINTS,
  EVENTS,
  LEASES,
  NAMESPACES,
  PODS,
  REPLICASETS,
  CLUSTERROLEBINDINGS,
  CLUSTERROLES,
  ROLEBINDINGS,
  ROLES,
  JOBS,
  NETWORK_POLICIES,
  NODES,
  POD_DISRUPTION_BUDGETS,
  SECRETS,
  SERVICEACCOUNTS,
  SERVICES,
  storageKeyOf,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  type ResourceType,
} from '../registry.ts';
import { validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy, validatingWebhookConfigurationStrategy } from './admissionregistration.ts';
import { crdStrategy, customResourceStrategy } from './apiextensions.ts';
import { deploymentStrategy } from './apps.ts';
import { leaseStrategy } from './coordination.ts';
import { configMapStrategy, eventStrategy, namespaceStrategy, secretStrategy } from './core.ts';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from './rbac.ts';
import { serviceAccountStrategy } from './serviceaccount.ts';
import type { Strategy } from './strategy.ts';
import { endpointsStrategy, jobStrategy, podStrategy, serviceStrategy, workloadStrategy } from './workloads.ts';

const BUILT_IN: ReadonlyMap<string, Strategy> = new Map([
  [storageKeyOf(NAMESPACES), namespaceStrategy],
  [storageKeyOf(SECRETS), secretStrategy],
  [storageKeyOf(CONFIGMAPS), configMapStrategy],
  [storageKeyOf(EVENTS), eventStrategy],
  [storageKeyOf(DEPLOYMENTS), deploymentStrategy],
  [storageKeyOf(CRDS), crdStrategy],
  [storageKeyOf(LEASES), leaseStrategy],
  [storageKeyOf(SERVICEACCOUNTS), serviceAccountStrategy],
  [storageKeyOf(ROLEBINDINGS), roleBindingStrategy],
  [storageKeyOf(CLUSTERROLEBINDINGS), clusterRoleBindingStrategy],
  [storageKeyOf(ROLES), roleStrategy],
  [storageKeyOf(CLUSTERROLES), clusterRoleStrategy],
  [storageKeyOf(VALIDATING_WEBHOOK_CONFIGURATIONS), validatingWebhookConfigurationStrategy],
  [storageKeyOf(VALIDATING_ADMISSION_POLICIES), validatingAdmissionPolicyStrategy],
  [storageKeyOf(VALIDATING_ADMISSION_POLICY_BINDINGS), validatingAdmissionPolicyBindingStrategy],
  [storageKeyOf(PODS), podStrategy],
  [storageKeyOf(REPLICASETS), workloadStrategy],
  [storageKeyOf(SERVICES), serviceStrategy],
  [storageKeyOf(ENDPOINTS), endpointsStrategy],
  [storageKeyOf(JOBS), jobStrategy],
  [storageKeyOf(NETWORK_POLICIES), workloadStrategy],
  [storageKeyOf(POD_DISRUPTION_BUDGETS), workloadStrategy],
  [storageKeyOf(NODES), workloadStrategy],
]);

export function strategyFor(type: ResourceType): Strategy {
  if (type.crdName !== undefined) return customResourceStrategy;
  return BUILT_IN.get(storageKeyOf(type)) ?? customResourceStrategy;
}
