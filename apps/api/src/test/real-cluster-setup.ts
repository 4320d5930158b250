import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import { OPENCLAW_CRD_DIR } from '@occ/kube-emulator/crds';
import { renderDeploy } from '@occ/kube-emulator/deploy-manifests';
import { startKubeletSimulator } from '@occ/kube-emulator/kubelet/simulator';
import { KUBE_TARGET, realCluster, startRootCaPublisher } from '@occ/kube-emulator/testing';

// E8, the API's lane against a real kube-apiserver (vitest.real.config.ts): the product's CRDs are
// installed as deploy/ would (with the lane's L5 adjustment), and so are deploy/'s ClusterRoles that
// the product binds inside namespaces (occ-tenant, occ-selfconfig-agent), so that what an agent's
// ServiceAccount may do is decided by the real RBAC. One kubelet simulator plays the kubelet and the
// deployment controller the lane does not run (L1), for the whole run, as the embedded runtime does
// for its own server; one, not one per test stack, since several would each keep ReplicaSets and
// Pods for the same gateway Deployments.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The lane's kubelet simulator's view of running containers (SC10 tests read Pods' resolved env and files). */
    kubeletView: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (KUBE_TARGET.target !== 'real') throw new Error('real-cluster-setup runs only with OCC_KUBE_TARGET=real (npm run test:real)');
  await realCluster(KUBE_TARGET.kubeconfig, [OPENCLAW_CRD_DIR]);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(KUBE_TARGET.kubeconfig);
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const role of (await renderDeploy()).filter((o) => o.kind === 'ClusterRole')) {
    await objects.patch(role as KubernetesObject, undefined, undefined, 'occ-test-harness', true, PatchStrategy.ServerSideApply);
  }
  // The controllers the lane does not run (L1): the root-CA publisher, so Pods that mount their
  // service-account token (a gateway with selfConfigure) can start, and the kubelet simulator.
  const rootCa = await startRootCaPublisher(kubeConfig);
  const kubelet = await startKubeletSimulator(kubeConfig);
  // Its view of running containers, for tests in the worker processes (never a Kubernetes object).
  project.provide('kubeletView', (await kubelet.serveView()).url);
  return async () => {
    await kubelet.stop();
    await rootCa.stop();
  };
}
