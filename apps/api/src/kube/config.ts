import { KubeConfig } from '@kubernetes/client-node';
import { reuseConnections } from '@occ/kube-emulator/client-connections';

// Every KubeConfig the product makes reuses its connections (client-connections.ts: client-node 2.0.1
// opens one per request).

export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return reuseConnections(kc);
}

/** A pod's service account: the API server from KUBERNETES_SERVICE_HOST/PORT, the mounted token and CA. */
export function kubeConfigInCluster(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromCluster();
  return reuseConnections(kc);
}
