// The emulator's own writes against its schemas (E6): every object it stores after real work (a
// gateway deployed and run by the kubelet simulator, status and subresource writes, RBAC bootstrap,
// events, leases, the node) must consist of fields its served schemas declare. Otherwise a client
// that reads an object and sends it back (kubectl edit, replace, a strategic patch whose result
// carries managedFields) is told about "unknown" fields the emulator wrote itself, as happened when
// the built-in schemas became kube-apiserver 1.20.2's and managedFields entries kept their
// `subresource` (openapi-docs.ts, NEWER_FIELDS). Emulator-only: the real server's objects are its own.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeUnknownFields } from './field-validation.ts';
import { GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE, startKubeletSimulator, type KubeletSimulator } from './kubelet/simulator.ts';
import { BUILT_IN_RESOURCES } from './registry.ts';
import { createNamespace, emulatorRequest, startTestCluster, type TestCluster } from './testing.ts';
import type { JsonObject } from './types.ts';

let cluster: TestCluster;
let simulator: KubeletSimulator;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  simulator = await startKubeletSimulator(cluster.kubeConfig, { retryDelayMs: 100 });
  ns = await createNamespace(cluster, 'stored');
});
afterAll(async () => {
  await simulator.stop();
  await cluster.close();
});

async function list(path: string): Promise<JsonObject[]> {
  const response = await emulatorRequest(cluster.emulator, path, { headers: { authorization: `Bearer ${cluster.emulator.token}`, accept: 'application/json' } });
  expect(response.status, path).toBe(200);
  return (response.json() as { items: JsonObject[] }).items;
}

describe('E6 what the emulator stores fits the schemas it serves', () => {
  it('E6 after a gateway ran, every stored object of every built-in kind has no field its schema lacks', async () => {
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'model' }, stringData: { value: 'k' } } });
    await cluster.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'gw', labels: { [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'gw' } },
          template: {
            metadata: { labels: { app: 'gw', [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE } },
            spec: { containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/gateway:1', env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'model', key: 'value' } } }] }] },
          },
        },
      },
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const deployment = await cluster.apps.readNamespacedDeployment({ namespace: ns, name: 'gw' });
      if ((deployment.status?.readyReplicas ?? 0) >= 1) break;
      if (Date.now() > deadline) throw new Error(`the gateway did not become ready: ${JSON.stringify(deployment.status)}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const found: string[] = [];
    let checked = 0;
    for (const type of BUILT_IN_RESOURCES) {
      const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
      for (const item of await list(`${base}/${type.plural}`)) {
        const name = `${type.plural} ${String((item.metadata as JsonObject).namespace ?? '')}/${String((item.metadata as JsonObject).name)}`;
        for (const field of takeUnknownFields(type, structuredClone(item))) found.push(`${name}: ${field}`);
        checked++;
      }
    }
    expect(found).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });
});
