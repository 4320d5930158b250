// Deploy bench (issue 9, item 11), run by `npm run bench` (the API workspace runs every
// bench/api/*.bench.ts). Printed, never asserted (this machine is shared and noisy):
//
//   deployAgent → gateway ready, through the whole product (admission, the work queue, the worker's
//   re-checks, the Compute driver, readiness as a cluster shows it): p50 and p95 over N deploys,
//   and the Kubernetes API requests each deploy makes;
//   beside, in the same run and alternating with it, a bare client-node apply of the same objects
//   (ServiceAccount, OpenClawInstance, ConfigMap, model-auth Secret, Deployment; SSA, then a poll
//   of the Deployment until Available): its p50/p95 and requests. Then the ratios.
//
// Requests are counted by a pass-through HTTP proxy between the product and the embedded API
// server, for the agent's Kubernetes namespace only (the leader Lease and the kubelet simulator,
// which talks to the server directly, are not counted). OCC_BENCH_DEPLOYS sets N (50).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '@occ/domain/kubernetes-names';
import {
  renderConfigMap,
  renderGatewayDeployment,
  renderInstance,
  renderModelAuthSecret,
  renderServiceAccount,
  type RenderContext,
  type RenderRevision,
} from '@occ/domain/revision-render';
import { OPENCLAW_CRD_DIR } from '../../packages/kube-emulator/src/crds.ts';
import { startKubeletSimulator } from '../../packages/kube-emulator/src/kubelet/simulator.ts';
import { startKubeEmulator } from '../../packages/kube-emulator/src/server.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { grantAccess } from '../../apps/api/src/services/access-grants.ts';
import { createAgent } from '../../apps/api/src/services/agents.ts';
import { createConfiguration } from '../../apps/api/src/services/configurations.ts';
import { deployAgent } from '../../apps/api/src/services/deploy-agent.ts';
import type { Actor } from '../../apps/api/src/services/deps.ts';
import { createNamespace } from '../../apps/api/src/services/namespaces.ts';
import { createSecret } from '../../apps/api/src/services/secrets.ts';

const DEPLOYS = Number(process.env.OCC_BENCH_DEPLOYS ?? 50);

/**
 * A pass-through proxy counting requests whose path is under one Kubernetes namespace. It listens
 * on plain HTTP (loopback only, to read the paths) and forwards over TLS to the embedded server,
 * trusting its CA (E5: the server speaks HTTPS only).
 */
async function countingProxy(target: URL, ca: string | undefined): Promise<{ url: string; count: () => number; watch: (ns: string) => void; close: () => Promise<void> }> {
  let namespace = '';
  let counted = 0;
  const server: Server = createServer((req, res) => {
    if (namespace && (req.url ?? '').includes(`/namespaces/${namespace}/`)) counted++;
    const forward = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = forward({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, ...(ca ? { ca } : {}) }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => counted,
    watch: (ns) => (namespace = ns),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

function through(kc: KubeConfig, server: string): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    // client-node 2 sends credentials over plain HTTP only when told to skip TLS verification: the
    // hop to the proxy is loopback, and the proxy verifies the server with its CA.
    clusters: kc.clusters.map((c) => ({ ...c, server, skipTLSVerify: true, caData: undefined })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return out;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const emulator = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
const kubelet = await startKubeletSimulator(emulator.kubeConfig());
const caData = emulator.kubeConfig().getCurrentCluster()?.caData;
const proxy = await countingProxy(new URL(emulator.url), caData ? Buffer.from(caData, 'base64').toString('utf8') : undefined);
const dir = await mkdtemp(path.join(tmpdir(), 'occ-deploy-bench-'));
const kubeconfig = path.join(dir, 'kubeconfig.yaml');
const proxied = through(emulator.kubeConfig(), proxy.url);
await writeFile(kubeconfig, proxied.exportConfig());
const runtime = await startRuntime({
  env: { dataDir: dir, databaseUrl: null, kubeconfig, gatewayReadySeconds: 60 },
  logger: createLogger(() => {}, 'error'),
  inMemory: true,
});
try {
  const deps = runtime.deps;
  const boot: Actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'bench' };
  const ns = await createNamespace(deps, boot, { name: `bench-${Date.now()}` });
  let row = await deps.db.namespace.findUniqueOrThrow({ where: { id: ns.id } });
  const provisioned = Date.now() + 60_000;
  while (row.status !== 'READY') {
    if (row.status === 'FAILED' || Date.now() > provisioned) throw new Error(`namespace not ready: ${row.status} ${row.statusMessage ?? ''}`);
    await sleep(50);
    row = await deps.db.namespace.findUniqueOrThrow({ where: { id: ns.id } });
  }
  proxy.watch(row.k8sName);
  const token = await createSecret(deps, boot, { namespaceId: ns.id, name: 'telegram', value: 'tg-bench' });
  const model = await createSecret(deps, boot, { namespaceId: ns.id, name: 'model', value: 'sk-bench' });
  const cfg = await createConfiguration(deps, boot, {
    namespaceId: ns.id,
    name: 'bench',
    values: { channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
    secretBindings: [{ envName: 'TELEGRAM_TOKEN', source: { id: token.id } }],
  });
  const agent = await createAgent(deps, boot, { namespaceId: ns.id, name: 'bench', configurationId: cfg.id, harnessAuth: { provider: 'openai', source: { id: model.id } } });
  for (const s of [token, model]) {
    await grantAccess(deps, boot, { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: s.id } });
  }

  const product = { ms: [] as number[], requests: [] as number[] };
  async function deployOnce(): Promise<RenderRevision> {
    const before = proxy.count();
    const started = performance.now();
    const revision = await deployAgent(deps, boot, { agentId: agent.id });
    const deadline = Date.now() + 90_000;
    for (;;) {
      const r = await deps.db.agentRevision.findUniqueOrThrow({ where: { id: revision.id }, select: { state: true, failureCode: true } });
      if (r.state === 'ACTIVE') break;
      if (r.state === 'FAILED') throw new Error(`deploy failed: ${r.failureCode}`);
      if (Date.now() > deadline) throw new Error(`revision ${revision.number} still ${r.state} after 90 s`);
      await sleep(5);
    }
    product.ms.push(performance.now() - started);
    product.requests.push(proxy.count() - before);
    return {
      agentId: revision.agentId,
      namespaceId: revision.namespaceId,
      number: revision.number,
      configuration: revision.configurationId ? { id: revision.configurationId, generation: revision.configurationGeneration ?? 0, values: revision.values } : null,
      secrets: revision.secrets,
      harnessAuth: revision.harnessAuth ? { provider: revision.harnessAuth.provider, envName: 'OPENAI_API_KEY', source: revision.harnessAuth.source } : null,
      selfConfigure: revision.selfConfigure,
    } as RenderRevision;
  }

  // The bare baseline applies what the product applies, for a revision number of its own, to a
  // second agent id so the two never touch each other's objects.
  const objects = KubernetesObjectApi.makeApiClient(proxied);
  const apps = proxied.makeApiClient(AppsV1Api);
  const context: RenderContext = {
    installationId: runtime.installation.installationId,
    k8sNamespace: row.k8sName,
    revisionId: 'rev_00000000-0000-4000-8000-000000000000',
    secretNames: new Map([
      [token.id, token.backend.name],
      [model.id, model.backend.name],
    ]),
  };
  const bare = { ms: [] as number[], requests: [] as number[] };
  async function bareOnce(template: RenderRevision, number: number): Promise<void> {
    const revision = { ...template, agentId: 'agt_00000000-0000-4000-8000-00000000beef', number };
    const before = proxy.count();
    const started = performance.now();
    for (const o of [renderServiceAccount(revision, context), renderInstance(revision, context), renderConfigMap(revision, context), renderModelAuthSecret(revision, context, 'sk-bench'), renderGatewayDeployment(revision, context)]) {
      await objects.patch(o as KubernetesObject, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
    }
    const name = (renderGatewayDeployment(revision, context) as { metadata: { name: string } }).metadata.name;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const d = await apps.readNamespacedDeployment({ name, namespace: row.k8sName });
      const ready = d.status?.observedGeneration === d.metadata?.generation && d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') && (d.status?.updatedReplicas ?? 0) >= 1;
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`bare gateway ${name} not ready after 90 s: ${JSON.stringify(d.status ?? {})}`);
      await sleep(5);
    }
    bare.ms.push(performance.now() - started);
    bare.requests.push(proxy.count() - before);
  }

  // One warm-up of each, then alternating rounds so machine load hits both alike.
  const template = await deployOnce();
  await bareOnce(template, 1000);
  product.ms.length = product.requests.length = bare.ms.length = bare.requests.length = 0;
  for (let i = 0; i < DEPLOYS; i++) {
    const r = await deployOnce();
    await bareOnce(r, 1001 + i);
    if ((i + 1) % 10 === 0) process.stderr.write(`deploy bench: ${i + 1}/${DEPLOYS}\n`);
  }

  const row2 = (label: string, m: { ms: number[]; requests: number[] }) =>
    `${label.padEnd(34)} p50 ${percentile(m.ms, 50).toFixed(1).padStart(8)} ms   p95 ${percentile(m.ms, 95).toFixed(1).padStart(8)} ms   requests/deploy ${(m.requests.reduce((a, b) => a + b, 0) / m.requests.length).toFixed(1).padStart(6)}`;
  console.log(`deploy → gateway ready on the embedded cluster, ${DEPLOYS} deploys each, alternating`);
  console.log(row2('deployAgent through the product', product));
  console.log(row2('bare client-node apply + poll', bare));
  console.log(
    `ratios (product / bare): p50 ${(percentile(product.ms, 50) / percentile(bare.ms, 50)).toFixed(2)}×, p95 ${(percentile(product.ms, 95) / percentile(bare.ms, 95)).toFixed(2)}×, requests ${(product.requests.reduce((a, b) => a + b, 0) / bare.requests.reduce((a, b) => a + b, 0)).toFixed(2)}×`,
  );
} finally {
  await runtime.close();
  kubelet.stop();
  await proxy.close();
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
