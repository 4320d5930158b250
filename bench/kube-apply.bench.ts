// kube-emulator bench, run with `npm run bench` (turbo) or
// `cd packages/kube-emulator && npm run bench`.
//
// 1. Memory: 10,000 ConfigMaps created by server-side apply (each with managedFields) must add
//    less than 300 MB of RSS to the process running the embedded server; over budget, the bench
//    exits with status 1. This is the only assertion here.
// 2. Speed, as ratios measured side by side in this run (never asserted): server-side apply
//    against a plain merge patch making the same change, on ConfigMaps and on OpenClawInstances,
//    in alternating rounds so that machine load hits both alike.
// Everything goes through client-node over HTTP, as the product's requests do.

import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { OPENCLAW_CRD_DIR } from '../packages/kube-emulator/src/crds.ts';
import { startKubeEmulator } from '../packages/kube-emulator/src/server.ts';

const OBJECTS = Number(process.env.OCC_BENCH_OBJECTS ?? 10_000);
const BUDGET_MB = 300;
const IN_FLIGHT = 16;
const ROUNDS = 6;
const OPS_PER_ROUND = Number(process.env.OCC_BENCH_OPS ?? 250);

const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

async function parallel(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < count; i = next++) await op(i);
    }),
  );
  return performance.now() - started;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

const emulator = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
try {
  const kubeConfig = emulator.kubeConfig();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const namespaces = Array.from({ length: 10 }, (_, i) => `bench-${i}`);
  for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } });

  const configMap = (namespace: string, name: string, revision: number) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'occ' } },
    data: { 'openclaw.json': JSON.stringify({ agent: name, model: 'gpt', skills: ['search', 'browse'] }), revision: String(revision) },
  });

  // 1. Memory (the package's bench script runs node with --expose-gc, so heap figures are after GC).
  // A warm-up on one object first, so that lazy allocations of the client and the JIT are in the
  // baseline rather than in the growth.
  await parallel(500, (i) =>
    core.patchNamespacedConfigMap(
      { name: 'warm-up', namespace: 'default', fieldManager: 'bench', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warm-up' }, data: { i: String(i) } } },
      ssa,
    ),
  );
  global.gc?.();
  const before = process.memoryUsage();
  const createMs = await parallel(OBJECTS, (i) => {
    const namespace = namespaces[i % namespaces.length] as string;
    return core.patchNamespacedConfigMap({ name: `cm-${i}`, namespace, fieldManager: 'occ-controller', body: configMap(namespace, `cm-${i}`, 0) }, ssa);
  });
  global.gc?.();
  const after = process.memoryUsage();
  const growth = after.rss - before.rss;
  const listed = await core.listConfigMapForAllNamespaces({ labelSelector: 'app.kubernetes.io/managed-by=occ' });
  if (listed.items.length !== OBJECTS) throw new Error(`expected ${OBJECTS} ConfigMaps, listed ${listed.items.length}`);
  const withinBudget = growth < BUDGET_MB * 1024 * 1024;
  console.log(
    `memory: ${OBJECTS} ConfigMaps created by apply in ${(createMs / 1000).toFixed(1)} s; RSS grew by ${mb(growth)} MB ` +
      `(budget ${BUDGET_MB} MB: ${withinBudget ? 'ok' : 'OVER'}); RSS now ${mb(after.rss)} MB; ` +
      `JS heap used grew by ${mb(after.heapUsed - before.heapUsed)} MB${global.gc ? ' (after GC)' : ''}`,
  );

  // 2. Speed: the same change (a new revision) by merge patch and by apply, on the same objects.
  // The merge patches take ownership of what they change, so the applies force, as a controller's do.
  const instances = namespaces.map((namespace, i) => ({ namespace, name: `inst-${i}` }));
  const instance = (name: string, revision: number) => ({
    apiVersion: 'openclaw.rocks/v1alpha1',
    kind: 'OpenClawInstance',
    metadata: { name },
    spec: {
      image: 'ghcr.io/openclaw/gateway:1',
      model: `model-${revision}`,
      skills: ['search', 'browse', 'npm:@openclaw/mail'],
      env: [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'MODEL_KEY', valueFrom: { secretKeyRef: { name: 'creds', key: 'value' } } },
      ],
      workspace: { initialFiles: { 'AGENTS.md': '# agent' } },
      config: { raw: { agents: { main: { revision } } } },
    },
  });
  const path = (namespace: string) => ({ group: 'openclaw.rocks', version: 'v1alpha1', namespace, plural: 'openclawinstances' });
  for (const { namespace, name } of instances) {
    await custom.patchNamespacedCustomObject({ ...path(namespace), name, fieldManager: 'occ-controller', body: instance(name, 0) }, ssa);
  }

  let revision = 1;
  const workloads = {
    'ConfigMap merge-patch': (i: number) => {
      const namespace = namespaces[i % namespaces.length] as string;
      return core.patchNamespacedConfigMap({ name: `cm-${i % OBJECTS}`, namespace, body: { data: { revision: String(revision++) } } }, merge);
    },
    'ConfigMap apply': (i: number) => {
      const namespace = namespaces[i % namespaces.length] as string;
      const name = `cm-${i % OBJECTS}`;
      return core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'occ-controller', force: true, body: configMap(namespace, name, revision++) }, ssa);
    },
    'OpenClawInstance merge-patch': (i: number) => {
      const { namespace, name } = instances[i % instances.length] as { namespace: string; name: string };
      return custom.patchNamespacedCustomObject({ ...path(namespace), name, body: { spec: { model: `model-${revision++}` } } }, merge);
    },
    'OpenClawInstance apply': (i: number) => {
      const { namespace, name } = instances[i % instances.length] as { namespace: string; name: string };
      return custom.patchNamespacedCustomObject({ ...path(namespace), name, fieldManager: 'occ-controller', force: true, body: instance(name, revision++) }, ssa);
    },
  };
  type Workload = keyof typeof workloads;
  const totals = new Map<Workload, number>();
  const names = Object.keys(workloads) as Workload[];
  for (const name of names) await parallel(50, workloads[name]); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) totals.set(name, (totals.get(name) ?? 0) + (await parallel(OPS_PER_ROUND, workloads[name])));
  }
  const opsPerSecond = (name: Workload): number => (ROUNDS * OPS_PER_ROUND * 1000) / (totals.get(name) ?? 1);
  console.log(`speed: ${ROUNDS} alternating rounds of ${OPS_PER_ROUND} ops per workload, ${IN_FLIGHT} in flight, client-node over HTTP`);
  for (const name of names) console.log(`  ${name.padEnd(38)} ${opsPerSecond(name).toFixed(0).padStart(6)} ops/s`);
  for (const kind of ['ConfigMap', 'OpenClawInstance']) {
    const ratio = opsPerSecond(`${kind} apply` as Workload) / opsPerSecond(`${kind} merge-patch` as Workload);
    console.log(`  ${`${kind} apply / merge-patch`.padEnd(38)} ${ratio.toFixed(2).padStart(6)} x`);
  }
  if (!withinBudget) process.exitCode = 1;
} finally {
  await emulator.close();
}
