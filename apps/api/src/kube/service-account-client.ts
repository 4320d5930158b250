import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { reuseConnections } from '@occ/kube-emulator/client-connections';

// A client that acts as a ServiceAccount: the control plane asks the TokenRequest API for a
// short-lived token of that account and talks to the same server with it. For writes that must
// carry the account's own identity, such as an OpenClawSelfConfig made over GraphQL on behalf of
// an Agent: the SelfConfig webhook (SC5) admits a request only from the service account of the
// instance it names, never from the control plane's identity.

export async function kubeConfigAsServiceAccount(kubeConfig: KubeConfig, namespace: string, name: string, expirationSeconds = 600): Promise<KubeConfig> {
  const answer = await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const token = answer.status?.token;
  if (!token) throw new Error(`the TokenRequest for ${namespace}/${name} answered no token`);
  const config = new KubeConfig();
  config.loadFromString(kubeConfig.exportConfig());
  const user = config.getCurrentUser();
  if (!user) throw new Error('the kubeconfig has no current user');
  // Only the bearer token changes: the server, its CA and the context stay the control plane's.
  config.users = config.users.map((u) => (u.name === user.name ? { name: u.name, token } : u));
  return reuseConnections(config);
}
