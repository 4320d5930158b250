import { AppsV1Api, CoreV1Api, KubernetesObjectApi, PatchStrategy, RbacAuthorizationV1Api, type KubeConfig, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import type { ComputeDriver, ComputeRevisionContext, GatewayReadiness } from '@occ/domain/compute-driver';
import {
  AGENT_ID_LABEL,
  backendIdentityMismatch,
  FIELD_MANAGER,
  gatewayDeploymentName,
  harnessSecretName,
  REVISION_NUMBER_LABEL,
  SECRET_VALUE_KEY,
  INSTALLATION_ID_LABEL,
  selfConfigRoleBindingName,
} from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import {
  renderConfigMap,
  renderGatewayDeployment,
  renderInstance,
  renderModelAuthSecret,
  renderSelfConfigRoleBinding,
  renderServiceAccount,
  type RenderContext,
  type RenderRevision,
} from '@occ/domain/revision-render';
import { BackendFailure, BackendIdentityChanged, BackendObjectMissing } from '@occ/domain/secret-driver';
import { classifyKubeError, describeKubeFailure } from '../kube/errors.ts';

// The Compute driver on client-node (W4, W5, D5). Every object is applied with server-side apply
// as occ-controller (force: the control plane owns these fields), so a retry is a no-op. The
// model-auth Secret is the only object written with a value; it is read from the current source
// here, server-side, and never passes through the database or a log.

const ssa = { fieldManager: FIELD_MANAGER, force: true };

function renderContext(context: ComputeRevisionContext): RenderContext {
  return {
    installationId: context.installationId,
    k8sNamespace: context.k8sNamespace,
    revisionId: context.revisionId,
    secretNames: new Map(context.sources.map((s) => [s.secretId, s.name])),
  };
}

/** Rethrows a client-node failure without its request or Status message (which may quote a value). */
function translate(error: unknown, what: string): never {
  if (error instanceof BackendIdentityChanged || error instanceof BackendObjectMissing) throw error;
  throw new BackendFailure(`${what}: ${describeKubeFailure(classifyKubeError(error))}`);
}

export class KubernetesComputeDriver implements ComputeDriver {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly rbac: RbacAuthorizationV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly installationId: string,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  }

  private async apply(object: Record<string, unknown>, what: string): Promise<void> {
    try {
      await this.objects.patch(object as KubernetesObject, undefined, undefined, ssa.fieldManager, ssa.force, PatchStrategy.ServerSideApply);
    } catch (error) {
      translate(error, what);
    }
  }

  /** Reads a source Secret and checks it is the recorded object; answers its decoded value. */
  private async readSource(context: ComputeRevisionContext, secretId: string): Promise<string> {
    const source = context.sources.find((s) => s.secretId === secretId);
    if (!source) throw new Error(`no source ${secretId} in the secret context`);
    let live;
    try {
      live = await this.core.readNamespacedSecret({ name: source.name, namespace: context.k8sNamespace });
    } catch (error) {
      if (classifyKubeError(error).kind === 'object-not-found') throw new BackendObjectMissing(context.k8sNamespace, source.name);
      translate(error, 'reading a source Secret');
    }
    const mismatch = backendIdentityMismatch(live.metadata ?? {}, { namespaceId: source.namespaceId, secretId, installationId: this.installationId, uid: source.uid });
    if (mismatch) throw new BackendIdentityChanged(mismatch);
    const encoded = live.data?.[SECRET_VALUE_KEY];
    if (encoded === undefined) throw new BackendIdentityChanged(`the Secret has no key ${SECRET_VALUE_KEY}`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }

  async verifySources(context: ComputeRevisionContext): Promise<void> {
    for (const source of context.sources) {
      let live;
      try {
        live = await this.core.readNamespacedSecret({ name: source.name, namespace: context.k8sNamespace });
      } catch (error) {
        if (classifyKubeError(error).kind === 'object-not-found') throw new BackendObjectMissing(context.k8sNamespace, source.name);
        translate(error, 'reading a source Secret');
      }
      const mismatch = backendIdentityMismatch(live.metadata ?? {}, { namespaceId: source.namespaceId, secretId: source.secretId, installationId: this.installationId, uid: source.uid });
      if (mismatch) throw new BackendIdentityChanged(mismatch);
    }
  }

  async prepareRevision(revision: RenderRevision, context: ComputeRevisionContext): Promise<void> {
    const rc = renderContext(context);
    await this.apply(renderServiceAccount(revision, rc), 'applying the ServiceAccount');
    await this.ensureSelfConfigBinding(revision, rc);
    await this.apply(renderInstance(revision, rc), 'applying the OpenClawInstance');
    await this.apply(renderConfigMap(revision, rc), 'applying the gateway ConfigMap');
    if (revision.harnessAuth) await this.deliverHarnessAuth(revision, context);
  }

  /** SC5: the agent may file SelfConfig requests exactly while its revision enables selfConfigure. */
  private async ensureSelfConfigBinding(revision: RenderRevision, rc: RenderContext): Promise<void> {
    const binding = renderSelfConfigRoleBinding(revision, rc);
    if (binding) return this.apply(binding, 'applying the SelfConfig RoleBinding');
    try {
      await this.rbac.deleteNamespacedRoleBinding({ name: selfConfigRoleBindingName(revision.agentId), namespace: rc.k8sNamespace });
    } catch (error) {
      if (classifyKubeError(error).kind !== 'object-not-found') translate(error, 'removing the SelfConfig RoleBinding');
    }
  }

  /**
   * D5: copies the current model key into the revision's own Secret. Created once: the Secret is
   * immutable and a retry finds it there (a later rotation must not change a prepared revision).
   */
  private async deliverHarnessAuth(revision: RenderRevision, context: ComputeRevisionContext): Promise<void> {
    const value = await this.readSource(context, revision.harnessAuth!.source.id);
    const body = renderModelAuthSecret(revision, renderContext(context), value);
    try {
      await this.core.createNamespacedSecret({ namespace: context.k8sNamespace, body, fieldManager: FIELD_MANAGER });
    } catch (error) {
      if (classifyKubeError(error).kind !== 'already-exists') translate(error, 'creating the model-auth Secret');
      const existing = await this.core.readNamespacedSecret({ name: harnessSecretName(revision.agentId, revision.number), namespace: context.k8sNamespace });
      if (existing.metadata?.labels?.[AGENT_ID_LABEL] !== uuidOf(revision.agentId)) throw new BackendIdentityChanged('the model-auth Secret of this revision is not ours');
    }
  }

  async activateRevision(revision: RenderRevision, context: ComputeRevisionContext): Promise<void> {
    await this.apply(renderGatewayDeployment(revision, renderContext(context)), 'applying the gateway Deployment');
  }

  async gatewayReadiness(revision: RenderRevision, context: ComputeRevisionContext): Promise<GatewayReadiness> {
    const name = gatewayDeploymentName(revision.agentId);
    let deployment;
    try {
      deployment = await this.apps.readNamespacedDeployment({ name, namespace: context.k8sNamespace });
    } catch (error) {
      translate(error, 'reading the gateway Deployment');
    }
    // A Pod of this revision that cannot start says why, as the kubelet wrote it.
    const pods = await this.revisionPods(revision, context.k8sNamespace);
    for (const pod of pods) {
      for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
        const waiting = status.state?.waiting;
        if (waiting && ['CreateContainerConfigError', 'CreateContainerError', 'ErrImagePull', 'ImagePullBackOff', 'CrashLoopBackOff', 'InvalidImageName'].includes(waiting.reason ?? '')) {
          return { state: 'failed', reason: waiting.reason ?? '', message: `container ${status.name}: ${waiting.message ?? waiting.reason}` };
        }
      }
    }
    const generation = deployment.metadata?.generation ?? 0;
    const status = deployment.status ?? {};
    const conditions = status.conditions ?? [];
    const progressing = conditions.find((c) => c.type === 'Progressing');
    if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
      return { state: 'failed', reason: 'ProgressDeadlineExceeded', message: progressing.message ?? 'the Deployment exceeded its progress deadline' };
    }
    const replicas = deployment.spec?.replicas ?? 1;
    const available = conditions.find((c) => c.type === 'Available');
    // The deployment controller's own test for a finished rollout (kubectl rollout status).
    const rolledOut =
      (status.observedGeneration ?? 0) >= generation &&
      (status.updatedReplicas ?? 0) >= replicas &&
      (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
      (status.availableReplicas ?? 0) >= replicas &&
      available?.status === 'True';
    if (rolledOut) return { state: 'ready' };
    const why = available?.status === 'False' ? (available.message ?? available.reason ?? '') : `${status.availableReplicas ?? 0} of ${replicas} replicas available`;
    return { state: 'progressing', message: why };
  }

  private async revisionPods(revision: RenderRevision, namespace: string): Promise<V1Pod[]> {
    const selector = `${AGENT_ID_LABEL}=${uuidOf(revision.agentId)},${REVISION_NUMBER_LABEL}=${revision.number}`;
    try {
      return (await this.core.listNamespacedPod({ namespace, labelSelector: selector })).items;
    } catch (error) {
      translate(error, 'listing the gateway Pods');
    }
  }

  async retireModelAuth(agentId: string, k8sNamespace: string, keepNumber: number | null): Promise<void> {
    const selector = `${AGENT_ID_LABEL}=${uuidOf(agentId)},${INSTALLATION_ID_LABEL}=${this.installationId}`;
    let listed;
    try {
      listed = await this.core.listNamespacedSecret({ namespace: k8sNamespace, labelSelector: selector });
    } catch (error) {
      translate(error, 'listing model-auth Secrets');
    }
    for (const secret of listed.items) {
      const name = secret.metadata?.name ?? '';
      const number = Number(secret.metadata?.labels?.[REVISION_NUMBER_LABEL]);
      if (!Number.isInteger(number) || name !== harnessSecretName(agentId, number) || number === keepNumber) continue;
      try {
        await this.core.deleteNamespacedSecret({ name, namespace: k8sNamespace, body: { preconditions: { uid: secret.metadata?.uid } } });
      } catch (error) {
        if (classifyKubeError(error).kind !== 'object-not-found') translate(error, 'deleting a retired model-auth Secret');
      }
    }
  }
}
