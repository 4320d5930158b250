import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, MANAGED_BY, MANAGED_BY_LABEL, NAMESPACE_ID_LABEL, namespaceLabels } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { classifyKubeError } from '../kube/errors.ts';

export interface NamespaceDriver {
  /** K1: creates the Kubernetes namespace, or accepts an existing one only when it is ours. */
  ensure(k8sName: string, namespaceId: string): Promise<void>;
  ping(): Promise<void>;
}

export class KubernetesNamespaceDriver implements NamespaceDriver {
  private readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async ensure(k8sName: string, namespaceId: string): Promise<void> {
    try {
      await this.core.createNamespace({ body: { metadata: { name: k8sName, labels: namespaceLabels(namespaceId) } }, fieldManager: FIELD_MANAGER });
      return;
    } catch (error) {
      if (classifyKubeError(error).kind !== 'already-exists') throw error;
    }
    const existing = await this.core.readNamespace({ name: k8sName });
    const labels = existing.metadata?.labels ?? {};
    if (labels[MANAGED_BY_LABEL] !== MANAGED_BY || labels[NAMESPACE_ID_LABEL] !== uuidOf(namespaceId)) {
      throw new ForeignNamespaceError(`Kubernetes namespace ${k8sName} exists and is not labelled as this namespace's`);
    }
  }

  async ping(): Promise<void> {
    await this.core.listNamespace({ limit: 1 });
  }
}

export class ForeignNamespaceError extends Error {
  override name = 'ForeignNamespaceError';
}
