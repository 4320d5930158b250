// Kubernetes client connections, run by the kube-emulator's `npm run bench`
// (`cd packages/kube-emulator && node --import tsx ../../bench/kube-connections.bench.ts`).
//
// client-node 2.0.1 makes a new undici Agent, so a new TCP connection and TLS handshake, for
// every request; every KubeConfig the product makes goes through reuseConnections
// (packages/kube-emulator/src/client-connections.ts). Measured side by side in alternating
// rounds against the embedded server, one request at a time and 8 in flight: GETs of a
// namespace, and server-side applies of a ConfigMap, through a KubeConfig as client-node makes it
// and through the same KubeConfig with reuseConnections. Prints p50 per request, the ratio, and
// the connections undici opened for each side.
// Budget (the only reason this exits non-zero): with reuse, at most one connection per request in
// flight per round (a pool's idle connections may close while the other side runs), where client-node
// as is opens one per request.

import { subscribe } from 'node:diagnostics_channel';
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { reuseConnections } from '../packages/kube-emulator/src/client-connections.ts';
import { kubeconfigYaml } from '../packages/kube-emulator/src/kubeconfig.ts';
import { startKubeEmulator } from '../packages/kube-emulator/src/server.ts';

const ROUNDS = Number(process.env.OCC_BENCH_ROUNDS ?? 6);
const PER_ROUND = Number(process.env.OCC_BENCH_OPS ?? 200);
const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

const emulator = await startKubeEmulator({ host: '127.0.0.1', port: 0 });
let connections = 0;
subscribe('undici:client:connected', () => void connections++);

/** A KubeConfig exactly as client-node loads one, without the product's reuse. */
function plain(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(kubeconfigYaml(emulator.url, emulator.token, emulator.caCertificate));
  return config;
}

type Side = 'client-node as is' | 'reuseConnections';
const sides: Record<Side, CoreV1Api> = {
  'client-node as is': plain().makeApiClient(CoreV1Api),
  reuseConnections: reuseConnections(plain()).makeApiClient(CoreV1Api),
};
const operations = {
  'GET a namespace': (core: CoreV1Api) => core.readNamespace({ name: 'default' }),
  'SSA a ConfigMap': (core: CoreV1Api, i: number) =>
    core.patchNamespacedConfigMap({ name: `bench-${i % 50}`, namespace: 'default', fieldManager: 'bench', force: true, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bench-${i % 50}` }, data: { n: String(i) } } }, ssa),
};

const samples = new Map<string, number[]>();
const opened = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [operation, run] of Object.entries(operations)) {
    for (const inFlight of [1, 8]) {
      // Alternate which side goes first, so drift hits both alike.
      const order = (round % 2 === 0 ? ['client-node as is', 'reuseConnections'] : ['reuseConnections', 'client-node as is']) as Side[];
      for (const side of order) {
        const key = `${operation}|${inFlight}|${side}`;
        const times = samples.get(key) ?? [];
        const before = connections;
        let next = 0;
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            for (let i = next++; i < PER_ROUND; i = next++) {
              const started = performance.now();
              await run(sides[side], i);
              times.push(performance.now() - started);
            }
          }),
        );
        samples.set(key, times);
        opened.set(key, (opened.get(key) ?? 0) + connections - before);
      }
    }
  }
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\nKubernetes client connections against the embedded server, ${ROUNDS} rounds of ${PER_ROUND} requests a side (${new Date().toISOString()})`);
console.log('| request | in flight | p50 as is | p50 reused | reused / as is | connections as is | connections reused |');
console.log('|---|---|---|---|---|---|---|');
let over = false;
for (const operation of Object.keys(operations)) {
  for (const inFlight of [1, 8]) {
    const a = samples.get(`${operation}|${inFlight}|client-node as is`)!;
    const b = samples.get(`${operation}|${inFlight}|reuseConnections`)!;
    const ca = opened.get(`${operation}|${inFlight}|client-node as is`)!;
    const cb = opened.get(`${operation}|${inFlight}|reuseConnections`)!;
    if (cb > inFlight * ROUNDS) over = true;
    console.log(`| ${operation} | ${inFlight} | ${p50(a).toFixed(2)} ms | ${p50(b).toFixed(2)} ms | ${(p50(b) / p50(a)).toFixed(2)} | ${ca} | ${cb} |`);
  }
}
await emulator.close();
if (over) {
  console.log('OVER BUDGET: the reused client opened more than one connection per request in flight per round.');
  process.exit(1);
}
process.exit(0);
