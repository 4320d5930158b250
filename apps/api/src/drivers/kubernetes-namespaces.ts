import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, isTenantRoleBinding, namespaceLabels, TENANT_ROLE, tenantRoleBinding, type ServiceAccountRef } from '@occ/domain/kubernetes-names';
import { classifyKubeError } from '../kube/errors.ts';

export interface NamespaceDriver {
  /**
   * K1: creates the Kubernetes namespace, or accepts an existing one only when it is ours; then,
   * when the product runs as a service account, binds occ-tenant to it inside the namespace.
   */
  ensure(k8sName: string, namespaceId: string): Promise<void>;
  ping(): Promise<void>;
}

/**
 * Pod Security Admission (Kubernetes 1.25+): a namespace the product makes enforces `restricted`,
 * which the gateways it renders satisfy. Set when the namespace is made, not checked on adoption:
 * an operator may relax it for a namespace (clusters before 1.25 ignore the label).
 */
export const POD_SECURITY_LABELS: Readonly<Record<string, string>> = { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' };

export class KubernetesNamespaceDriver implements NamespaceDriver {
  private readonly core: CoreV1Api;
  private readonly rbac: RbacAuthorizationV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly installationId: string,
    /** OCC_TENANT_SERVICE_ACCOUNT: who gets occ-tenant in each namespace; null binds nothing. */
    private readonly tenantServiceAccount: ServiceAccountRef | null = null,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  }

  async ensure(k8sName: string, namespaceId: string): Promise<void> {
    await this.ensureNamespace(k8sName, namespaceId);
    if (this.tenantServiceAccount) await this.ensureTenantBinding(k8sName, namespaceId, this.tenantServiceAccount);
  }

  private async ensureNamespace(k8sName: string, namespaceId: string): Promise<void> {
    try {
      const labels = { ...namespaceLabels(namespaceId, this.installationId), ...POD_SECURITY_LABELS };
      await this.core.createNamespace({ body: { metadata: { name: k8sName, labels } }, fieldManager: FIELD_MANAGER });
      return;
    } catch (error) {
      if (classifyKubeError(error).kind !== 'already-exists') throw error;
    }
    const existing = await this.core.readNamespace({ name: k8sName });
    const labels = existing.metadata?.labels ?? {};
    // R3: adopted only when every label is this namespace's in this installation.
    const foreign = Object.entries(namespaceLabels(namespaceId, this.installationId)).some(([key, value]) => labels[key] !== value);
    if (foreign) throw new ForeignNamespaceError(`Kubernetes namespace ${k8sName} exists and is not labelled as this installation's namespace`);
  }

  /**
   * Create only (deploy/rbac.yaml grants `create` on rolebindings and `bind` on occ-tenant, nothing
   * more): a retry after a lost reply finds its own binding and accepts it; a binding of that name
   * with another role or without this service account is refused, since roleRef cannot change.
   */
  private async ensureTenantBinding(k8sName: string, namespaceId: string, serviceAccount: ServiceAccountRef): Promise<void> {
    const body = tenantRoleBinding(k8sName, namespaceId, this.installationId, serviceAccount);
    try {
      await this.rbac.createNamespacedRoleBinding({ namespace: k8sName, body, fieldManager: FIELD_MANAGER });
      return;
    } catch (error) {
      if (classifyKubeError(error).kind !== 'already-exists') throw error;
    }
    const existing = await this.rbac.readNamespacedRoleBinding({ name: TENANT_ROLE, namespace: k8sName });
    if (!isTenantRoleBinding(existing, serviceAccount)) {
      throw new ForeignNamespaceError(
        `Kubernetes namespace ${k8sName} holds a RoleBinding ${TENANT_ROLE} that does not bind the ClusterRole ${TENANT_ROLE} to ${serviceAccount.namespace}/${serviceAccount.name}`,
      );
    }
  }

  async ping(): Promise<void> {
    await this.core.listNamespace({ limit: 1 });
  }
}

export class ForeignNamespaceError extends Error {
  override name = 'ForeignNamespaceError';
}
