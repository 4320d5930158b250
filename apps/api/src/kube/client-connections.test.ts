import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CoreV1Api, HttpMethod, RequestContext, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { kubeConfigFromFile } from './config.ts';
import { kubeConfigAsServiceAccount } from './service-account-client.ts';

// Every KubeConfig the product makes reuses its connections (@occ/kube-emulator/client-connections:
// client-node 2.0.1 opens a new one, with its TLS handshake, for every request). Each client is
// asked twice for the dispatcher a request goes through (the same one, or no pooling at all), and
// a client of its own is counted from undici's report of each connection it opens in this thread
// while requests go one after another (the runtime's own client shares the thread with the
// runtime's caches and reconciler, so it is held by the first check only).

let stack: TestStack;
let dir: string;
let serviceAccountNamespace: string;
const REQUESTS = 40;
/** Allowance for the runtime's own requests (its caches, its reconciler) in the same window. */
const AT_MOST = 4;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  dir = await mkdtemp(path.join(tmpdir(), 'occ-connections-'));
  serviceAccountNamespace = `connections-${randomUUID().slice(0, 8)}`;
  const core = stack.runtime.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: serviceAccountNamespace } } });
  await core.createNamespacedServiceAccount({ namespace: serviceAccountNamespace, body: { metadata: { name: 'reader' } } });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** How many connections undici opened in this thread while `work` ran. */
async function connectionsDuring(work: () => Promise<void>): Promise<number> {
  let opened = 0;
  const count = () => void opened++;
  subscribe('undici:client:connected', count);
  try {
    await work();
  } finally {
    unsubscribe('undici:client:connected', count);
  }
  return opened;
}

async function requestsInARow(kubeConfig: KubeConfig, n = REQUESTS): Promise<void> {
  const version = kubeConfig.makeApiClient(VersionApi);
  for (let i = 0; i < n; i++) expect((await version.getCode()).major).toBeTruthy();
}

/** A client read from a kubeconfig file the runtime's own client wrote. */
async function fromFile(): Promise<KubeConfig> {
  const file = path.join(dir, `kubeconfig-${randomUUID()}.yaml`);
  await writeFile(file, stack.runtime.kubeConfig.exportConfig(), { mode: 0o600 });
  return kubeConfigFromFile(file);
}

const CLIENTS: Record<string, () => Promise<KubeConfig>> = {
  "the runtime's own (embedded, or KUBECONFIG on the real lane)": async () => stack.runtime.kubeConfig,
  'one read from a kubeconfig file': fromFile,
  "one acting as a ServiceAccount (a TokenRequest's token)": () => kubeConfigAsServiceAccount(stack.runtime.kubeConfig, serviceAccountNamespace, 'reader'),
};

/** The dispatcher (connection pool) client-node gives a request of `kubeConfig`. */
async function dispatcherOf(kubeConfig: KubeConfig): Promise<unknown> {
  const context = new RequestContext(`${kubeConfig.getCurrentCluster()?.server}/version`, HttpMethod.GET);
  await kubeConfig.applySecurityAuthentication(context);
  return context.getDispatcher();
}

describe('Kubernetes clients reuse their connections', { timeout: 120_000 }, () => {
  for (const [name, make] of Object.entries(CLIENTS)) {
    it(`${name}: every request goes through the same connection pool`, async () => {
      const kubeConfig = await make();
      const first = await dispatcherOf(kubeConfig);
      expect(first).toBeDefined();
      expect(await dispatcherOf(kubeConfig)).toBe(first);
    });
  }

  for (const [name, make] of Object.entries(CLIENTS).slice(1)) {
    it(`${name}: ${REQUESTS} requests in a row open at most ${AT_MOST} connections`, async () => {
      const kubeConfig = await make();
      await requestsInARow(kubeConfig, 1);
      const opened = await connectionsDuring(() => requestsInARow(kubeConfig));
      expect(opened).toBeLessThanOrEqual(AT_MOST);
    });
  }

  it('a client whose cluster changed (here: TLS verification) gets a new connection for the change, then reuses that one', async () => {
    const kubeConfig = await fromFile();
    await requestsInARow(kubeConfig, 1);
    kubeConfig.clusters = kubeConfig.clusters.map((c) => ({ ...c, skipTLSVerify: true, caData: undefined, caFile: undefined }));
    const opened = await connectionsDuring(() => requestsInARow(kubeConfig));
    expect(opened).toBeGreaterThanOrEqual(1);
    expect(opened).toBeLessThanOrEqual(AT_MOST);
  });
});
