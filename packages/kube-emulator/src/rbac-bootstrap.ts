// E9: the default ClusterRoles and ClusterRoleBindings a kube-apiserver writes at start
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), those a client of this server meets:
// cluster-admin (bound to system:masters); admin, edit and view, aggregated from the
// system:aggregate-to-* roles (rbac-aggregation.ts fills their rules in); system:discovery,
// system:basic-user and system:public-info-viewer, which let every authenticated user read
// discovery, /version, /healthz and /openapi and ask what it may do (SelfSubjectAccessReview).
// Written when missing, with the labels and annotation the real server gives them; a role edited
// afterwards keeps its edits (the real server's reconciliation of autoupdate roles is not played).

import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import type { KubeApi } from './api.ts';
import { CLUSTERROLEBINDINGS, CLUSTERROLES, storageKeyOf } from './registry.ts';
import type { ObjectStore } from './store.ts';
import { isObject, jsonEqual, type KubeObject } from './types.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; nonResourceURLs?: string[]; resourceNames?: string[] };

const rule = (apiGroups: string[], resources: string[], verbs: string[]): Rule => ({ apiGroups, resources, verbs });

function clusterRole(name: string, rules: Rule[] | null, extra: { aggregateTo?: string; aggregates?: string } = {}): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name,
      annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
      labels: {
        'kubernetes.io/bootstrapping': 'rbac-defaults',
        ...(extra.aggregateTo ? { [`rbac.authorization.k8s.io/aggregate-to-${extra.aggregateTo}`]: 'true' } : {}),
      },
    },
    ...(extra.aggregates ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${extra.aggregates}`]: 'true' } }] } } : {}),
    ...(rules ? { rules } : {}),
  };
}

function groupBinding(name: string, groups: string[]): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: {
      name,
      annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
      labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: groups.map((group) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: group })),
  };
}

/** The bootstrap policy's rules for these roles, as current Kubernetes writes them. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly KubeObject[] = [
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), { nonResourceURLs: ['*'], verbs: ['*'] }]),
  clusterRole('admin', null, { aggregates: 'admin' }),
  clusterRole('edit', null, { aggregates: 'edit', aggregateTo: 'admin' }),
  clusterRole('view', null, { aggregates: 'view', aggregateTo: 'edit' }),
  clusterRole(
    'system:aggregate-to-admin',
    [rule(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']), rule([RBAC_GROUP], ['rolebindings', 'roles'], ALL)],
    { aggregateTo: 'admin' },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      rule([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
      rule([''], ['serviceaccounts'], ['impersonate']),
      rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
      rule([''], ['pods/eviction'], ['create']),
      rule([''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy'], WRITE),
      rule([''], ['serviceaccounts/token'], ['create']),
      rule(['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'], WRITE),
      rule(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
      rule(['batch'], ['cronjobs', 'jobs'], WRITE),
      rule(['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale'], WRITE),
      rule(['policy'], ['poddisruptionbudgets'], WRITE),
      rule(['networking.k8s.io'], ['ingresses', 'networkpolicies'], WRITE),
      rule(['coordination.k8s.io'], ['leases'], ALL),
    ],
    { aggregateTo: 'edit' },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      rule([''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'], READ),
      rule([''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status'], READ),
      rule([''], ['namespaces'], READ),
      rule(['discovery.k8s.io'], ['endpointslices'], READ),
      rule(['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status'], READ),
      rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
      rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
      rule(['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale'], READ),
      rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
      rule(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
    ],
    { aggregateTo: 'view' },
  ),
  clusterRole('system:basic-user', [
    rule(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']),
    rule(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
  ]),
  clusterRole('system:discovery', [
    { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] },
  ]),
  clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
  // Service account issuer discovery: every service account may read the issuer's OIDC documents
  // (the kubectl script's `auth can-i --list` showed them on the real server).
  clusterRole('system:service-account-issuer-discovery', [{ nonResourceURLs: ['/.well-known/openid-configuration', '/openid/v1/jwks'], verbs: ['get'] }]),
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly KubeObject[] = [
  groupBinding('cluster-admin', ['system:masters']),
  groupBinding('system:basic-user', ['system:authenticated']),
  groupBinding('system:discovery', ['system:authenticated']),
  groupBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  groupBinding('system:service-account-issuer-discovery', ['system:serviceaccounts']),
];

/** Creates each bootstrap role and binding that the store does not hold. */
export function ensureBootstrapPolicy(store: ObjectStore, api: KubeApi): void {
  const options = { fieldManager: 'kube-apiserver' };
  for (const role of BOOTSTRAP_CLUSTER_ROLES) {
    if (!store.get(storageKeyOf(CLUSTERROLES), undefined, role.metadata.name ?? '')) api.create({ type: CLUSTERROLES }, structuredClone(role), options);
  }
  for (const binding of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
    if (!store.get(storageKeyOf(CLUSTERROLEBINDINGS), undefined, binding.metadata.name ?? '')) api.create({ type: CLUSTERROLEBINDINGS }, structuredClone(binding), options);
  }
}

/** The ClusterRole documents of YAML files (other kinds in them are left alone). */
export async function readClusterRoleFiles(files: readonly string[]): Promise<KubeObject[]> {
  const roles: KubeObject[] = [];
  for (const file of files) {
    for (const document of yaml.loadAll(await readFile(file, 'utf8'))) {
      if (isObject(document) && document.kind === 'ClusterRole' && document.apiVersion === `${RBAC_GROUP}/v1`) roles.push(document as KubeObject);
    }
  }
  return roles;
}

/** Creates a ClusterRole, or brings a stored one of the same name to these rules and aggregation. */
export function installClusterRole(store: ObjectStore, api: KubeApi, role: KubeObject): void {
  const name = role.metadata.name ?? '';
  const existing = store.get(storageKeyOf(CLUSTERROLES), undefined, name);
  const options = { fieldManager: 'kube-emulator' };
  if (!existing) api.create({ type: CLUSTERROLES }, structuredClone(role), options);
  else if (!jsonEqual(existing.rules, role.rules) || !jsonEqual(existing.aggregationRule, role.aggregationRule)) {
    api.replace({ type: CLUSTERROLES, name }, { ...structuredClone(role), metadata: { ...role.metadata, resourceVersion: existing.metadata.resourceVersion } }, options);
  }
}
