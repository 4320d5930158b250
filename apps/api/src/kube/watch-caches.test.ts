import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import type { RenderRevision } from '@occ/domain/revision-render';
import { agentInstanceName, FIELD_MANAGER, installationLabels } from '@occ/domain/kubernetes-names';
import { INSTANCE_API_VERSION } from '@occ/domain/revision-render';
import { SELF_CONFIG_MANAGER } from '@occ/domain/selfconfig';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesComputeDriver } from '../drivers/kubernetes-compute.ts';
import { KubernetesSecretDriver } from '../drivers/kubernetes-secret-driver.ts';
import { createReadyNamespace, createSecretOk, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import type { CachedInstance, InstanceCache } from './instance-cache.ts';
import type { SecretCache, SecretShape } from './secret-cache.ts';

// The watch caches the deploy path reads from (kube/secret-cache.ts, kube/instance-cache.ts):
// they hold no value, and they confirm but never refuse: a cache that is behind (absent, another
// uid, an older instance) costs a live read, never a wrong answer. Staleness is forced here with
// caches that answer an old copy, in front of the real API server.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
const CANARY = `canary-${randomUUID()}`;

beforeAll(async () => {
  stack = await startTestStack({ env: { gatewayReadySeconds: 60 } });
  namespaceId = await createReadyNamespace(stack, `caches-${randomUUID().slice(0, 6)}`);
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
}, 180_000);

afterAll(() => stack?.close());

/** A Secret cache that answers what the test says, whatever the server holds. */
function staleSecrets(answer: (name: string) => SecretShape | null): SecretCache {
  return { calls: {}, lookup: async (_ns, name) => answer(name), list: async () => null, close: async () => undefined };
}

describe('watch caches', { timeout: 120_000 }, () => {
  it("S3 D3 the Secret cache holds each Secret's metadata and key names, never its value", async () => {
    const secret = await createSecretOk(stack, namespaceId, 'cached', CANARY);
    const shape = await waitFor(() => stack.runtime.caches.secrets.lookup(k8sNamespace, secret.backendLocator.name), 'the cache to hold the Secret');
    expect(shape.metadata.uid).toBe(secret.backendLocator.uid);
    expect(shape.keys).toEqual(['value']);
    const everything = JSON.stringify(await stack.runtime.caches.secrets.list(k8sNamespace, {}));
    expect(everything).toContain(secret.backendLocator.name);
    for (const form of [CANARY, Buffer.from(CANARY).toString('base64')]) expect(everything).not.toContain(form);
  });

  it('D3 a cache that is behind never refuses: absent, another uid or a key missing, the driver reads the server and answers what it holds', async () => {
    const secret = await createSecretOk(stack, namespaceId, `behind-${randomUUID().slice(0, 6)}`, 'v');
    const ref = { k8sNamespace, name: secret.backendLocator.name, key: 'value', uid: secret.backendLocator.uid };
    const expected = { namespaceId, secretId: secret.id };
    const live = (await stack.core.readNamespacedSecret({ name: ref.name, namespace: k8sNamespace })).metadata!;
    const base: SecretShape = { metadata: { ...live, name: ref.name, namespace: k8sNamespace }, keys: ['value'] };
    const answers: Record<string, SecretShape | null> = {
      absent: null,
      'another uid': { ...base, metadata: { ...base.metadata, uid: randomUUID() } },
      'labels not ours': { ...base, metadata: { ...base.metadata, labels: {} } },
      'key missing': { ...base, keys: [] },
    };
    for (const [what, answer] of Object.entries(answers)) {
      const driver = new KubernetesSecretDriver(stack.kubeConfig, stack.runtime.installation.installationId, staleSecrets(() => answer));
      expect(await driver.resolve(ref, expected, { cached: true }), what).toMatchObject({ state: 'present' });
    }
    // And one that holds the Secret the server no longer has is not what a refusal rests on:
    // without the cache's confirmation the server's answer stands.
    await stack.core.deleteNamespacedSecret({ name: ref.name, namespace: k8sNamespace });
    const driver = new KubernetesSecretDriver(stack.kubeConfig, stack.runtime.installation.installationId, staleSecrets(() => null));
    expect(await driver.resolve(ref, expected, { cached: true })).toEqual({ state: 'missing' });
  });

  it('W4 a source the cache shows with another uid is checked on the server before the deploy goes on', async () => {
    const secret = await createSecretOk(stack, namespaceId, `source-${randomUUID().slice(0, 6)}`, 'v');
    const live = (await stack.core.readNamespacedSecret({ name: secret.backendLocator.name, namespace: k8sNamespace })).metadata!;
    const stale = staleSecrets(() => ({ metadata: { ...live, name: secret.backendLocator.name, namespace: k8sNamespace, uid: randomUUID() }, keys: ['value'] }));
    const driver = new KubernetesComputeDriver(stack.kubeConfig, stack.runtime.installation.installationId, { secrets: stale });
    const context = { installationId: stack.runtime.installation.installationId, k8sNamespace, revisionId: 'rev_x', sources: [{ secretId: secret.id, namespaceId, name: secret.backendLocator.name, uid: secret.backendLocator.uid, outsideChangeSeenAt: null }] };
    await expect(driver.verifySources(context)).resolves.toBeUndefined();
    await expect(driver.verifySources({ ...context, sources: [{ ...context.sources[0]!, uid: randomUUID() }] })).rejects.toThrow(/uid/);
  });

  it('RC3 W4 an apply planned from a stale cached instance conflicts, is planned again from the server, and records the takeover the stale copy did not show', async () => {
    // Another installation id, so the stack's reconciler leaves this instance alone.
    const installationId = `t${randomUUID().replace(/-/g, '').slice(0, 11)}`;
    let cached: CachedInstance | null = null;
    const instances: InstanceCache = { calls: {}, get: async () => cached, onChange: () => () => undefined, close: async () => undefined };
    const driver = new KubernetesComputeDriver(stack.kubeConfig, installationId, { instances });
    const agentId = `agt_${randomUUID()}`;
    const revision = (number: number, values: Record<string, unknown>): RenderRevision => ({
      agentId,
      namespaceId,
      number,
      configuration: { id: 'cfg_x', generation: number, values },
      secrets: [],
      harnessAuth: null,
      selfConfigure: { enabled: true, allowedActions: ['config'] },
    });
    const context = (n: number) => ({ installationId, k8sNamespace, revisionId: `rev_${n}`, sources: [] });
    expect((await driver.applyRevision(revision(1, { tools: { a: 1 } }), context(1))).takeovers).toEqual([]);
    const name = agentInstanceName(agentId);
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    cached = (await custom.getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name })) as CachedInstance;
    // The agent sets a key of its own after the cache's copy was taken.
    await KubernetesObjectApi.makeApiClient(stack.kubeConfig).patch(
      { apiVersion: INSTANCE_API_VERSION, kind: 'OpenClawInstance', metadata: { name, namespace: k8sNamespace }, spec: { config: { raw: { x: 1 } } } } as KubernetesObject,
      undefined,
      undefined,
      SELF_CONFIG_MANAGER,
      false,
      PatchStrategy.ServerSideApply,
    );
    const applied = await driver.applyRevision(revision(2, { tools: { a: 1 }, x: 2 }), context(2));
    expect(applied.takeovers.map((t) => t.name)).toEqual(['x']);
    const after = (await custom.getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name })) as { spec: { config: { raw: Record<string, unknown> } }; metadata: { managedFields: Array<{ manager: string }> } };
    expect(after.spec.config.raw).toMatchObject({ x: 2 });
    expect(after.metadata.managedFields.map((m) => m.manager)).toContain(FIELD_MANAGER);
    await custom.deleteNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name });
  });

  it('W5 the instance cache follows the instance: a change made by another client is seen without a request of the caller', async () => {
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    const name = `agent-${randomUUID()}`;
    const labels = { 'app.kubernetes.io/managed-by': 'openclaw-control-plane' };
    const created = (await custom.createNamespacedCustomObject({
      group: 'openclaw.rocks',
      version: 'v1alpha1',
      plural: 'openclawinstances',
      namespace: k8sNamespace,
      body: { apiVersion: INSTANCE_API_VERSION, kind: 'OpenClawInstance', metadata: { name, labels: { ...labels, ...installationLabels(stack.runtime.installation.installationId) } }, spec: { image: 'img', replicas: 0 } },
    })) as CachedInstance;
    const seen: string[] = [];
    const off = stack.runtime.caches.instances.onChange(k8sNamespace, name, () => seen.push('change'));
    try {
      await waitFor(async () => (await stack.runtime.caches.instances.get(k8sNamespace, name))?.metadata.uid === created.metadata.uid, 'the cache to hold the instance');
      await custom.patchNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name, body: [{ op: 'replace', path: '/spec/image', value: 'img2' }] });
      await waitFor(async () => (await stack.runtime.caches.instances.get(k8sNamespace, name))?.spec?.image === 'img2', 'the cache to follow the change');
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      off();
      await custom.deleteNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name });
    }
  });
});
