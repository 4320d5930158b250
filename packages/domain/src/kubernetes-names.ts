import { uuidOf } from './ids.ts';

// How the product names and marks its Kubernetes objects (rules K1 and S2). Pure: randomness
// comes in as a parameter.

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'openclaw-control-plane';
export const NAMESPACE_ID_LABEL = 'openclaw.rocks/namespace-id';
export const SECRET_ID_LABEL = 'openclaw.rocks/secret-id';
/** V1: the version a secret's Kubernetes Secret holds (objects written before V1 lack it). */
export const SECRET_VERSION_LABEL = 'openclaw.rocks/secret-version';
/**
 * R3: every object an installation writes carries its random installation id, and every read,
 * listing and adoption checks it, so two installations on one cluster never touch each other's.
 */
export const INSTALLATION_ID_LABEL = 'openclaw.rocks/installation-id';
export const SECRET_VALUE_KEY = 'value';
/** The field manager of every write the control plane makes, so field ownership names it (E2, W4). */
export const FIELD_MANAGER = 'occ-controller';

/** K1: one Kubernetes namespace per Namespace, named from its id. */
export function kubernetesNamespaceName(namespaceId: string): string {
  return `occ-${uuidOf(namespaceId)}`;
}

/** What every object of one installation carries; a label selector for "ours". */
export function installationLabels(installationId: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [INSTALLATION_ID_LABEL]: installationId };
}

export function installationSelector(installationId: string): string {
  return Object.entries(installationLabels(installationId))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

export function namespaceLabels(namespaceId: string, installationId: string): Record<string, string> {
  return { ...installationLabels(installationId), [NAMESPACE_ID_LABEL]: uuidOf(namespaceId) };
}

/** Label values are at most 63 characters, so ids are stored by their UUID part. */
export function secretLabels(namespaceId: string, secretId: string, installationId: string): Record<string, string> {
  return { ...namespaceLabels(namespaceId, installationId), [SECRET_ID_LABEL]: uuidOf(secretId) };
}

/**
 * S2: the backend name derives from the namespace and secret ids plus a random suffix, so a retry
 * never adopts an object that already exists.
 */
export function secretBackendName(namespaceId: string, secretId: string, randomSuffix: string): string {
  if (!/^[a-z0-9]{6,12}$/.test(randomSuffix)) throw new Error('suffix must be 6-12 lowercase alphanumerics');
  return `occ-${uuidOf(namespaceId).slice(0, 8)}-${uuidOf(secretId)}-${randomSuffix}`;
}

const BACKEND_NAME = /occ-[0-9a-f]{8}-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-[a-z0-9]{6,12}(?![a-z0-9])/g;

/**
 * S4 D4: a message with every secret backend name in it replaced by the product's secret id, which
 * the name embeds (secretBackendName). Kubelet and Deployment messages name the Kubernetes Secret
 * they could not read; stored messages (revision failures, agent runtime, audit) name the secret.
 */
export function withoutBackendNames(message: string): string {
  return message.replace(BACKEND_NAME, (_all, uuid: string) => `sec_${uuid}`);
}

export interface ObservedMeta {
  uid?: string;
  labels?: Record<string, string>;
}

/**
 * Labels later releases added to what earlier ones wrote: an object that lacks only these, and whose
 * uid is the recorded one, is ours and not yet migrated by an upgrade, not a foreign or replaced one.
 */
export const LABELS_ADDED_BY_UPGRADES: readonly string[] = [INSTALLATION_ID_LABEL];

/**
 * D3: whether an object is ours but written by an earlier release and not yet migrated (it lacks
 * only labels upgrades add; every other label and the uid match). The reason, or null.
 */
export function backendNotMigrated(observed: ObservedMeta, expected: { namespaceId: string; secretId: string; installationId: string; uid: string }): string | null {
  if (observed.uid !== expected.uid) return null;
  const want = secretLabels(expected.namespaceId, expected.secretId, expected.installationId);
  const absent = Object.keys(want).filter((key) => observed.labels?.[key] === undefined);
  const wrong = Object.entries(want).filter(([key, value]) => observed.labels?.[key] !== undefined && observed.labels[key] !== value);
  if (wrong.length > 0 || absent.length === 0 || !absent.every((key) => LABELS_ADDED_BY_UPGRADES.includes(key))) return null;
  return (
    `it was written by an earlier release and is not migrated yet (no label ${absent.join(', ')}; its uid is the recorded one, so it is this installation's): ` +
    'each start migrates Kubernetes objects under the migration lock; restart the product, and read its "upgrade" log lines if this stays'
  );
}

/** Whether a live object is the one the metadata points to: labels ours, ids and uid match. */
export function backendIdentityMismatch(
  observed: ObservedMeta,
  expected: { namespaceId: string; secretId: string; installationId: string; uid: string },
): string | null {
  const notMigrated = backendNotMigrated(observed, expected);
  if (notMigrated) return notMigrated;
  // Another uid first: a replaced object is named as replaced, whatever labels it was given.
  if (observed.uid !== undefined && observed.uid !== expected.uid) return `uid is ${observed.uid}, expected ${expected.uid}`;
  const want = secretLabels(expected.namespaceId, expected.secretId, expected.installationId);
  for (const [key, value] of Object.entries(want)) {
    if (observed.labels?.[key] !== value) return `label ${key} is ${JSON.stringify(observed.labels?.[key] ?? null)}, expected ${JSON.stringify(value)}`;
  }
  if (observed.uid !== expected.uid) return `uid is ${observed.uid ?? 'missing'}, expected ${expected.uid}`;
  return null;
}

// Agents' objects (W4, D5, SC5). Agent names may hold dots and underscores, which Kubernetes names
// refuse, so every object is named from the agent's id; the label finds them all (deleteAgent), and
// the instance and its ServiceAccount share one name so the SelfConfig webhook can tell the
// requester's instance from the service account that signs the request.
export const AGENT_ID_LABEL = 'openclaw.rocks/agent-id';
export const REVISION_NUMBER_LABEL = 'openclaw.rocks/revision';

/** The agent's OpenClawInstance, and the ServiceAccount its gateway runs as. */
export function agentInstanceName(agentId: string): string {
  return `agent-${uuidOf(agentId)}`;
}

export function agentServiceAccountName(agentId: string): string {
  return agentInstanceName(agentId);
}

/** SC5: the RoleBinding that lets the agent's ServiceAccount file SelfConfig requests, when enabled. */
export function selfConfigRoleBindingName(agentId: string): string {
  return `${agentServiceAccountName(agentId)}-selfconfig`;
}

/** The ClusterRole deploy/rbac.yaml defines with what an agent may do to file SelfConfig requests. */
export const SELFCONFIG_AGENT_ROLE = 'occ-selfconfig-agent';

export function gatewayDeploymentName(agentId: string): string {
  return `gateway-${uuidOf(agentId)}`;
}

/** Immutable, one per revision. */
export function gatewayConfigMapName(agentId: string, revisionNumber: number): string {
  return `gateway-config-${uuidOf(agentId)}-${revisionNumber}`;
}

/** D5: the revision-owned copy of the model key, retired with its revision. */
export function harnessSecretName(agentId: string, revisionNumber: number): string {
  return `model-auth-${uuidOf(agentId)}-${revisionNumber}`;
}

export function agentLabels(namespaceId: string, agentId: string, installationId: string): Record<string, string> {
  return { ...namespaceLabels(namespaceId, installationId), [AGENT_ID_LABEL]: uuidOf(agentId) };
}

/** The ClusterRole deploy/rbac.yaml defines with what the product does inside a tenant namespace. */
export const TENANT_ROLE = 'occ-tenant';

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export interface TenantRoleBinding {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'RoleBinding';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  roleRef: { apiGroup: 'rbac.authorization.k8s.io'; kind: 'ClusterRole'; name: string };
  subjects: { kind: 'ServiceAccount'; name: string; namespace: string }[];
}

/**
 * K1: the product's access to a tenant namespace is a RoleBinding inside it, made when the namespace
 * is provisioned, that binds the ClusterRole occ-tenant to the product's own service account. No
 * cluster-wide grant reaches Secrets, so a namespace that is not ours stays closed to the product.
 */
export function tenantRoleBinding(k8sNamespace: string, namespaceId: string, installationId: string, serviceAccount: ServiceAccountRef): TenantRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: TENANT_ROLE, namespace: k8sNamespace, labels: namespaceLabels(namespaceId, installationId) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: TENANT_ROLE },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace: serviceAccount.namespace }],
  };
}

/** Whether an existing binding named occ-tenant is the one this product would make (roleRef cannot change). */
export function isTenantRoleBinding(
  existing: { roleRef?: { apiGroup?: string; kind?: string; name?: string }; subjects?: { kind?: string; name?: string; namespace?: string }[] },
  serviceAccount: ServiceAccountRef,
): boolean {
  const ref = existing.roleRef;
  const roleOk = ref?.apiGroup === 'rbac.authorization.k8s.io' && ref.kind === 'ClusterRole' && ref.name === TENANT_ROLE;
  const subjectOk = (existing.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === serviceAccount.name && s.namespace === serviceAccount.namespace);
  return roleOk && subjectOk;
}
