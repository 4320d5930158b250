import { KubernetesObjectApi } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeConfigFor } from './kubeconfig.ts';
import { apiFailure, createNamespace, startTestCluster } from './testing.ts';

// SC5 token checks that move the server's clock (expiry) or read its own URL and CA: a test can do
// that only to an emulator it starts (L3). The same refusals on a real server need its own clock.

describe('SC5 authentication (emulator clock)', () => {
  it('SC5 an unknown, tampered, foreign-audience, expired or revoked token answers 401 with a Status body', async () => {
    let now = new Date('2026-11-30T12:00:00Z');
    const timed = await startTestCluster({ clock: () => now });
    try {
      const namespace = await createNamespace(timed);
      await timed.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'agent' } } });
      // E9: authenticated is not authorized. The account may read ConfigMaps here, so a good token
      // answers 200 and any other answer is authentication's (401), not RBAC's (403).
      await timed.objects.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'agent-view', namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace }],
      } as never);
      const issue = async (audiences: string[] = []) =>
        (await timed.core.createNamespacedServiceAccountToken({ namespace, name: 'agent', body: { spec: { audiences, expirationSeconds: 600 } } })).status?.token ?? '';
      const good = await issue();
      const foreign = await issue(['https://vault.example.com']);
      const [header, payload, signature] = good.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url')}.${signature}`;
      const status = async (token: string) => {
        const objects = KubernetesObjectApi.makeApiClient(kubeConfigFor(timed.emulator.url, token, timed.emulator.caCertificate));
        try {
          await objects.list('v1', 'ConfigMap', namespace);
          return { code: 200, body: undefined };
        } catch (error) {
          return apiFailure(Promise.reject(error));
        }
      };
      expect((await status(good)).code).toBe(200);
      const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
      for (const token of ['not-a-token', tampered, foreign]) expect(await status(token)).toEqual({ code: 401, body: unauthorized });
      now = new Date(now.getTime() + 601_000);
      expect(await status(good)).toEqual({ code: 401, body: unauthorized });
      now = new Date('2026-11-30T12:00:00Z');
      expect((await status(good)).code).toBe(200);
      // Deleting the ServiceAccount revokes its tokens, and a new one of the same name does not revive them.
      await timed.core.deleteNamespacedServiceAccount({ namespace, name: 'agent' });
      expect(await status(good)).toEqual({ code: 401, body: unauthorized });
      await timed.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'agent' } } });
      expect(await status(good)).toEqual({ code: 401, body: unauthorized });
    } finally {
      await timed.close();
    }
  });
});
