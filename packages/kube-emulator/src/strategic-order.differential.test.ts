// E8 E10: the order of a list after a strategic merge patch, on the emulator and on a real
// kube-apiserver (the lane's 1.20.2), for generated lists and patches: env (merged by name) and
// metadata.finalizers (a set of strings), with $patch: delete items, $setElementOrder and
// $deleteFromPrimitiveList directives as kubectl writes them. Only the E8 lane runs this file
// (vitest.real.config.ts); strategic-patch.test.ts holds cases taken from the lane's answers for the
// default suite.

import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeEmulator, type KubeEmulator } from './server.ts';
import { clusterRequest, KUBE_TARGET, realCluster, uniqueName, type TestCluster } from './testing.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let emulator: KubeEmulator;
let real: TestCluster;
let servers: Array<{ name: string; objects: KubernetesObjectApi; kubeConfig: KubeConfig }>;
let ns: string;

beforeAll(async () => {
  if (KUBE_TARGET.target !== 'real') throw new Error('the differential test needs OCC_KUBE_TARGET=real and KUBECONFIG (npm run test:real)');
  real = await realCluster(KUBE_TARGET.kubeconfig, []);
  emulator = await startKubeEmulator({});
  servers = [
    { name: 'emulator', objects: KubernetesObjectApi.makeApiClient(emulator.kubeConfig()), kubeConfig: emulator.kubeConfig() },
    { name: 'real', objects: real.objects, kubeConfig: real.kubeConfig },
  ];
  ns = uniqueName('smp-order');
  for (const server of servers) await server.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterAll(async () => {
  await emulator?.close();
});

const NAMES = ['A', 'B', 'C', 'D', 'E'];
const FINALIZERS = ['x.io/a', 'x.io/b', 'x.io/c', 'x.io/d'];

const value = fc.constantFrom('1', '2');
/**
 * A patch as kubectl's three-way merge writes one: the desired list in its order, the items that
 * changed (a subset, in that order), `$patch: delete` items for names dropped, and $setElementOrder
 * naming the desired order (sometimes left out, as a hand-written patch does); for finalizers,
 * added strings, $setElementOrder and $deleteFromPrimitiveList for the dropped.
 */
const caseArb = fc
  .record({
    original: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), value }), { selector: (e) => e.name, maxLength: 4 }),
    desired: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), value }), { selector: (e) => e.name, maxLength: 4 }),
    changed: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    withOrder: fc.boolean(),
    finalizers: fc.uniqueArray(fc.constantFrom(...FINALIZERS), { maxLength: 3 }),
    desiredFinalizers: fc.uniqueArray(fc.constantFrom(...FINALIZERS), { maxLength: 3 }),
    finalizerOrder: fc.boolean(),
  })
  .map((c) => {
    const kept = new Set(c.desired.map((d) => d.name));
    const env = [
      ...c.desired.filter((_, i) => c.changed[i]),
      ...c.original.filter((o) => !kept.has(o.name)).map((o) => ({ name: o.name, $patch: 'delete' })),
    ];
    const container: Obj = { name: 'c', ...(env.length ? { env } : {}) };
    if (c.withOrder && c.desired.length) container['$setElementOrder/env'] = c.desired.map((d) => ({ name: d.name }));
    const metadata: Obj = {};
    const added = c.desiredFinalizers.filter((f) => !c.finalizers.includes(f));
    const dropped = c.finalizers.filter((f) => !c.desiredFinalizers.includes(f));
    if (added.length) metadata.finalizers = added;
    if (c.finalizerOrder && c.desiredFinalizers.length) metadata['$setElementOrder/finalizers'] = c.desiredFinalizers;
    if (dropped.length) metadata['$deleteFromPrimitiveList/finalizers'] = dropped;
    return { original: c.original, finalizers: c.finalizers, patch: { metadata, spec: { template: { spec: { containers: [container] } } } } };
  });

function deployment(name: string, env: Obj[], finalizers: string[]): KubernetesObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, ...(finalizers.length ? { finalizers } : {}) },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x', ...(env.length ? { env } : {}) }] } },
    },
  } as KubernetesObject;
}

describe('E8 E10 list order after a strategic merge patch', () => {
  it('E8 E10 generated env and finalizer patches leave the same items in the same order on both servers', async () => {
    const cases = fc.sample(caseArb, { numRuns: 200, seed: 4242 });
    const differences: string[] = [];
    for (const [i, c] of cases.entries()) {
      const name = `d${i}`;
      const patch = c.patch;
      const answers: string[] = [];
      for (const server of servers) {
        await server.objects.create(deployment(name, c.original, c.finalizers));
        // Sent as bytes: client-node's typed serializer would drop the $-directives.
        const res = await clusterRequest(server, `/apis/apps/v1/namespaces/${ns}/deployments/${name}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/strategic-merge-patch+json', accept: 'application/json' },
          body: Buffer.from(JSON.stringify(patch)),
        });
        const patched = JSON.parse(res.body.toString('utf8')) as Obj;
        const answer =
          res.status === 200
            ? JSON.stringify({ env: patched.spec.template.spec.containers[0].env ?? [], finalizers: patched.metadata.finalizers ?? [] })
            : `${res.status} ${patched.message}`;
        answers.push(answer);
      }
      if (answers[0] !== answers[1]) differences.push(`case ${i} ${JSON.stringify({ original: c.original, finalizers: c.finalizers, patch })}: emulator ${answers[0]}, real ${answers[1]}`);
    }
    expect(differences).toEqual([]);
  }, 300_000);
});
