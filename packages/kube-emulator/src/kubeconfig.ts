import { KubeConfig } from '@kubernetes/client-node';
import yaml from 'js-yaml';
import { reuseConnections } from './client-connections.ts';

export const CONTEXT_NAME = 'occ-kube-emulator';

/**
 * A kubeconfig for the emulator: its https URL, the CA that signed its serving certificate
 * (certificate-authority-data, so kubectl and client-go verify it and then send the token) and
 * the bearer token.
 */
export function kubeconfigDocument(server: string, token: string, caCertificate: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster: { server, 'certificate-authority-data': Buffer.from(caCertificate, 'utf8').toString('base64') } }],
    users: [{ name: CONTEXT_NAME, user: { token } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace: 'default' } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  };
}

export function kubeconfigYaml(server: string, token: string, caCertificate: string): string {
  return yaml.dump(kubeconfigDocument(server, token, caCertificate), { lineWidth: -1 });
}

export function kubeConfigFor(server: string, token: string, caCertificate: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(kubeconfigYaml(server, token, caCertificate));
  return reuseConnections(config);
}
