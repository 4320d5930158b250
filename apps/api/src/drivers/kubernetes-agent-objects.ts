import { AppsV1Api, CoreV1Api, CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { agentInstanceName, agentLabels, FIELD_MANAGER } from '@occ/domain/kubernetes-names';
import { BackendFailure, BackendOutcomeUnknown } from '@occ/domain/secret-driver';
import { classifyKubeError, describeKubeFailure } from '../kube/errors.ts';

/** Where an agent's objects live, and whose they are. */
export interface AgentTarget {
  k8sNamespace: string;
  namespaceId: string;
  agentId: string;
}

export interface RemovedObject {
  kind: string;
  name: string;
  result: 'deleted' | 'missing';
}

/** The lifecycle writes on an agent's objects that are not deploys: stop (W6) and delete. */
export interface AgentObjectsDriver {
  /** W6: the agent's instance at zero replicas; 'missing' when there is none (never deployed). */
  scaleGatewayToZero(target: AgentTarget): Promise<'scaled' | 'missing'>;
  /** Every object labelled as this agent's in this installation, each deleted with a uid precondition. */
  removeAll(target: AgentTarget): Promise<RemovedObject[]>;
}

interface Listed {
  name: string;
  uid: string;
}

interface AgentKind {
  kind: string;
  list(namespace: string, labelSelector: string): Promise<Listed[]>;
  delete(namespace: string, object: Listed): Promise<void>;
}

const OPENCLAW_GROUP = 'openclaw.rocks';
const OPENCLAW_VERSION = 'v1alpha1';

function listed(items: Array<{ metadata?: { name?: string; uid?: string } }>): Listed[] {
  return items.flatMap((i) => (i.metadata?.name && i.metadata.uid ? [{ name: i.metadata.name, uid: i.metadata.uid }] : []));
}

function fail(error: unknown, what: string): never {
  const failure = classifyKubeError(error);
  if (failure.kind === 'outcome-unknown') throw new BackendOutcomeUnknown(`${what}: ${describeKubeFailure(failure)}`);
  throw new BackendFailure(`${what}: ${describeKubeFailure(failure)}`);
}

/**
 * Finds an agent's objects by its labels (agentLabels: installation, namespace and agent ids), so
 * it removes exactly what the deploy path created for this agent in this installation and nothing
 * that merely shares a name. The instance goes first, so the reconciler renders nothing more from
 * it; then the gateway, whose Pods stop referencing the Secrets and ConfigMaps before those go.
 * (The instance's children would go with it by garbage collection; they are deleted here too, for
 * a cluster whose collector lags.)
 */
export class KubernetesAgentObjectsDriver implements AgentObjectsDriver {
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly rbac: RbacAuthorizationV1Api;
  private readonly kinds: AgentKind[];

  constructor(
    kubeConfig: KubeConfig,
    private readonly installationId: string,
  ) {
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const preconditioned = (uid: string) => ({ preconditions: { uid }, propagationPolicy: 'Background' });
    this.kinds = [
      {
        kind: 'OpenClawInstance',
        list: async (namespace, labelSelector) =>
          listed(((await this.custom.listNamespacedCustomObject({ group: OPENCLAW_GROUP, version: OPENCLAW_VERSION, namespace, plural: 'openclawinstances', labelSelector })) as { items: [] }).items),
        delete: async (namespace, o) =>
          void (await this.custom.deleteNamespacedCustomObject({ group: OPENCLAW_GROUP, version: OPENCLAW_VERSION, namespace, plural: 'openclawinstances', name: o.name, body: preconditioned(o.uid) })),
      },
      {
        kind: 'Deployment',
        list: async (namespace, labelSelector) => listed((await this.apps.listNamespacedDeployment({ namespace, labelSelector })).items),
        delete: async (namespace, o) => void (await this.apps.deleteNamespacedDeployment({ namespace, name: o.name, body: preconditioned(o.uid) })),
      },
      {
        kind: 'ConfigMap',
        list: async (namespace, labelSelector) => listed((await this.core.listNamespacedConfigMap({ namespace, labelSelector })).items),
        delete: async (namespace, o) => void (await this.core.deleteNamespacedConfigMap({ namespace, name: o.name, body: preconditioned(o.uid) })),
      },
      {
        kind: 'Secret',
        list: async (namespace, labelSelector) => listed((await this.core.listNamespacedSecret({ namespace, labelSelector })).items),
        delete: async (namespace, o) => void (await this.core.deleteNamespacedSecret({ namespace, name: o.name, body: preconditioned(o.uid) })),
      },
      {
        kind: 'ServiceAccount',
        list: async (namespace, labelSelector) => listed((await this.core.listNamespacedServiceAccount({ namespace, labelSelector })).items),
        delete: async (namespace, o) => void (await this.core.deleteNamespacedServiceAccount({ namespace, name: o.name, body: preconditioned(o.uid) })),
      },
      {
        kind: 'RoleBinding',
        list: async (namespace, labelSelector) => listed((await this.rbac.listNamespacedRoleBinding({ namespace, labelSelector })).items),
        delete: async (namespace, o) => void (await this.rbac.deleteNamespacedRoleBinding({ namespace, name: o.name, body: preconditioned(o.uid) })),
      },
      {
        kind: 'Service',
        list: async (namespace, labelSelector) => listed((await this.core.listNamespacedService({ namespace, labelSelector })).items),
        delete: async (namespace, o) => void (await this.core.deleteNamespacedService({ namespace, name: o.name, body: preconditioned(o.uid) })),
      },
    ];
  }

  private selector(target: AgentTarget): string {
    return Object.entries(agentLabels(target.namespaceId, target.agentId, this.installationId))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }

  /**
   * W6 RC1: the agent's one desired state says zero replicas (spec.replicas, as occ-controller);
   * the reconciler scales the gateway. A merge patch, not an apply: an apply of this one field as
   * occ-controller would drop every other field the manager holds.
   */
  async scaleGatewayToZero(target: AgentTarget): Promise<'scaled' | 'missing'> {
    const name = agentInstanceName(target.agentId);
    // Only our instance: the name alone could belong to an object someone else made.
    const ours = (await this.kinds[0]!.list(target.k8sNamespace, this.selector(target)).catch((e: unknown) => fail(e, 'listing the instance'))).find((d) => d.name === name);
    if (!ours) return 'missing';
    try {
      await this.custom.patchNamespacedCustomObject(
        // The uid in the patch is a precondition: an instance recreated under the name is refused.
        { group: OPENCLAW_GROUP, version: OPENCLAW_VERSION, plural: 'openclawinstances', namespace: target.k8sNamespace, name, body: { metadata: { uid: ours.uid }, spec: { replicas: 0 } }, fieldManager: FIELD_MANAGER },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      return 'scaled';
    } catch (error) {
      if (classifyKubeError(error).kind === 'object-not-found') return 'missing';
      fail(error, 'scaling the gateway to zero');
    }
  }

  async removeAll(target: AgentTarget): Promise<RemovedObject[]> {
    const selector = this.selector(target);
    const removed: RemovedObject[] = [];
    for (const kind of this.kinds) {
      let objects: Listed[];
      try {
        objects = await kind.list(target.k8sNamespace, selector);
      } catch (error) {
        // A list answers 404 only when the API server does not serve the kind at all (a list in
        // a missing namespace is empty): then no object of it can exist.
        if (classifyKubeError(error).code === 404) continue;
        fail(error, `listing the agent's ${kind.kind} objects`);
      }
      for (const object of objects) {
        try {
          await kind.delete(target.k8sNamespace, object);
          removed.push({ kind: kind.kind, name: object.name, result: 'deleted' });
        } catch (error) {
          const failure = classifyKubeError(error);
          // Gone already, or the name now belongs to another object: ours is gone either way.
          if (failure.kind === 'object-not-found' || (failure.kind === 'conflict' && failure.precondition)) {
            removed.push({ kind: kind.kind, name: object.name, result: 'missing' });
            continue;
          }
          fail(error, `deleting the agent's ${kind.kind} ${object.name}`);
        }
      }
    }
    return removed;
  }
}
