import { KubeConfig } from '@kubernetes/client-node';
import yaml from 'js-yaml';

export const CONTEXT_NAME = 'occ-kube-emulator';

/**
 * A kubeconfig for the emulator. client-node only speaks plain http when the cluster says
 * insecure-skip-tls-verify, so the cluster entry carries it.
 */
export function kubeconfigDocument(server: string, token: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: CONTEXT_NAME, user: { token } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace: 'default' } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  };
}

export function kubeconfigYaml(server: string, token: string): string {
  return yaml.dump(kubeconfigDocument(server, token), { lineWidth: -1 });
}

export function kubeConfigFor(server: string, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(kubeconfigYaml(server, token));
  return config;
}
