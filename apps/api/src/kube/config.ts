import { KubeConfig } from '@kubernetes/client-node';

export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** A pod's service account: the API server from KUBERNETES_SERVICE_HOST/PORT, the mounted token and CA. */
export function kubeConfigInCluster(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromCluster();
  return kc;
}
