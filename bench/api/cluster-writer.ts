// The write burst of embedded-cluster.bench.ts, in a process of its own (so its client work is not
// on the API's event loop): server-side applies of ConfigMaps through client-node, IN_FLIGHT at
// once, for SECONDS, then prints how many were answered.
//   node --import tsx bench/api/cluster-writer.ts <kubeconfig> <namespace> <seconds> <inFlight>

import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { reuseConnections } from '../../packages/kube-emulator/src/client-connections.ts';

const [kubeconfig, namespace, seconds, inFlight] = process.argv.slice(2);
if (!kubeconfig || !namespace) throw new Error('usage: cluster-writer.ts <kubeconfig> <namespace> <seconds> <inFlight>');
const config = new KubeConfig();
config.loadFromFile(kubeconfig);
reuseConnections(config);
const core = config.makeApiClient(CoreV1Api);
const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const until = performance.now() + Number(seconds ?? 5) * 1000;
let written = 0;
let revision = 0;
await Promise.all(
  Array.from({ length: Number(inFlight ?? 4) }, async () => {
    while (performance.now() < until) {
      const name = `burst-${revision % 100}`;
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { 'openclaw.json': JSON.stringify({ skills: ['search'], revision: revision++ }) } };
      await core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'bench-writer', force: true, body }, ssa);
      written += 1;
    }
  }),
);
process.stdout.write(`${written}\n`);
