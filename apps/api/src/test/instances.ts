import { CustomObjectsApi } from '@kubernetes/client-node';
import { GATEWAY_COMPONENT, GATEWAY_COMPONENT_LABEL } from '@occ/domain/gateway-render';
import { uuidOf } from '@occ/domain/ids';
import { AGENT_ID_LABEL, agentInstanceName } from '@occ/domain/kubernetes-names';
import type { RunningContainer } from '@occ/kube-emulator/kubelet/container-view';
import { fetchContainers } from '@occ/kube-emulator/kubelet/simulator';
import { inject } from 'vitest';
import type { TestStack } from './stack.ts';

// An agent's OpenClawInstance as a cluster user reads it (kubectl get oci -o json), and the
// gateway ConfigMap its status names.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read back as JSON and checked by assertions
export type Instance = { metadata: { name: string; uid: string; generation: number; resourceVersion: string; managedFields?: any[] }; spec: Record<string, any>; status?: Record<string, any> };

export async function readInstance(stack: TestStack, k8sNamespace: string, agentId: string): Promise<Instance | null> {
  const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  try {
    return (await custom.getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name: agentInstanceName(agentId) })) as Instance;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return null;
    throw error;
  }
}

/** The ConfigMap the instance's status names (the rendering the gateway mounts). */
export async function gatewayConfigMapOf(stack: TestStack, k8sNamespace: string, agentId: string) {
  const instance = await readInstance(stack, k8sNamespace, agentId);
  const name = instance?.status?.configMap as string | undefined;
  if (!name) throw new Error(`the instance of ${agentId} names no ConfigMap yet`);
  return stack.core.readNamespacedConfigMap({ name, namespace: k8sNamespace });
}

/**
 * SC10: the gateway's running containers as the kubelet simulator started them (resolved env and
 * mounted files), through its own interface: in this process on the embedded server, over its
 * loopback endpoint on the E8 lane. Never through a Kubernetes object.
 */
export async function runningGateway(stack: TestStack, k8sNamespace: string, agentId: string): Promise<RunningContainer[]> {
  const filter = { labelSelector: { [AGENT_ID_LABEL]: uuidOf(agentId), [GATEWAY_COMPONENT_LABEL]: GATEWAY_COMPONENT } };
  if (stack.runtime.kubelet) return stack.runtime.kubelet.containers(k8sNamespace, filter);
  return fetchContainers(inject('kubeletView'), k8sNamespace, filter);
}
