import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, namespaceLabels } from '@occ/domain/kubernetes-names';
import { classifyKubeError } from '../kube/errors.ts';

export interface NamespaceDriver {
  /** K1: creates the Kubernetes namespace, or accepts an existing one only when it is ours. */
  ensure(k8sName: string, namespaceId: string): Promise<void>;
  ping(): Promise<void>;
}

export class KubernetesNamespaceDriver implements NamespaceDriver {
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly installationId: string,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async ensure(k8sName: string, namespaceId: string): Promise<void> {
    try {
      await this.core.createNamespace({ body: { metadata: { name: k8sName, labels: namespaceLabels(namespaceId, this.installationId) } }, fieldManager: FIELD_MANAGER });
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

  async ping(): Promise<void> {
    await this.core.listNamespace({ limit: 1 });
  }
}

export class ForeignNamespaceError extends Error {
  override name = 'ForeignNamespaceError';
}
