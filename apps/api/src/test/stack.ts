import type { RolloutWorkOptions } from '../services/secret-rollouts.ts';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { KUBE_TARGET } from '@occ/kube-emulator/testing';
import { inject } from 'vitest';
import type { LiveLimits } from '../graphql/live.ts';
import type { PrincipalBudget } from '../graphql/principal-budget.ts';
import { createHttpApp, listen, type HttpApp } from '../http/server.ts';
import { createLogger } from '../log.ts';
import { startRuntime, type Runtime, type RuntimeEnv } from '../runtime.ts';
import type { DeployWorkOptions } from '../services/deploy-work.ts';
import { createDatabaseFromTemplate, testDatabaseMode } from './database.ts';
import { waitFor } from './operations.ts';

// The whole API as `npm start` wires it (same runtime), on a fresh database and an in-memory
// embedded Kubernetes API server, listening on a loopback port. Everything a test reads back
// (log lines, response bodies) is kept so canary tests can search it.

export interface GqlResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by assertions
  body: { data?: Record<string, any>; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

export interface TestStack {
  runtime: Runtime;
  /** The HTTP app (drain it to test what a shutdown does to open streams). */
  app: HttpApp;
  baseUrl: string;
  bootstrapKey: string;
  logs: string[];
  responses: string[];
  core: CoreV1Api;
  apps: AppsV1Api;
  kubeConfig: KubeConfig;
  databaseUrl: string;
  gql(query: string, variables?: Record<string, unknown>, auth?: { key?: string | null; cookie?: string }): Promise<GqlResult>;
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface TestStackOptions {
  worker?: boolean;
  onQuery?: (sql: string, params: string) => void;
  connectVia?: (databaseUrl: string) => Promise<string>;
  /** A kubeconfig file to use instead of an embedded API server of its own (two installations on one cluster). */
  kubeconfig?: string;
  env?: Partial<RuntimeEnv>;
  /** SC9: the SelfConfig controller's clock. */
  selfConfigClock?: () => Date;
  selfConfigHealthGatePollMs?: number;
  selfConfigResyncMs?: number;
  /** SC5: on a real cluster too, serve and register the webhook on loopback (runtime option). */
  selfConfigWebhookOnLoopback?: boolean;
  /** SC5, managed webhook certificates (env.webhookService): the clock that judges expiry. */
  webhookClock?: () => Date;
  /** Hooks into the deploy work (RC7 interleavings, W5 faults at a chosen step). */
  deployWork?: DeployWorkOptions;
  rolloutWork?: RolloutWorkOptions;
  /** The instance reconciler's resync period. */
  instanceResyncMs?: number;
  /**
   * P7: the principals' GraphQL budget. None unless given: tests send documents far faster than a
   * console does (cost.test.ts alone spends hundreds of thousands of points in seconds).
   */
  requestBudget?: PrincipalBudget;
  /** Subscription streams' bounds (graphql/live.ts). */
  liveLimits?: Partial<LiveLimits>;
}

function realKubeconfig(): string | null {
  return KUBE_TARGET.target === 'real' ? KUBE_TARGET.kubeconfig : null;
}

let image: Promise<Blob> | undefined;
/** The migrated PGlite image (read once per test file's process). */
export function pgliteImage(): Promise<Blob> {
  image ??= readFile(inject('pgliteImage')).then((bytes) => new Blob([bytes]));
  return image;
}

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const logs: string[] = [];
  const responses: string[] = [];
  const logger = createLogger((line) => logs.push(line), 'debug');
  const mode = testDatabaseMode();
  const database = mode === 'postgres' ? await createDatabaseFromTemplate(process.env.DATABASE_URL!, inject('templateDatabase')) : null;
  const runtime = await startRuntime({
    // E8: on the real-server lane (OCC_KUBE_TARGET=real, read in kube-emulator's testing.ts) the stack
    // uses that server instead of an embedded one.
    env: { dataDir: '/tmp/occ-test-unused', databaseUrl: database?.url ?? null, kubeconfig: options.kubeconfig ?? realKubeconfig(), ...options.env },
    logger,
    inMemory: true,
    startWorker: options.worker ?? true,
    onQuery: options.onQuery,
    connectVia: options.connectVia,
    ...(options.selfConfigClock ? { selfConfigClock: options.selfConfigClock } : {}),
    ...(options.selfConfigHealthGatePollMs ? { selfConfigHealthGatePollMs: options.selfConfigHealthGatePollMs } : {}),
    ...(options.selfConfigResyncMs ? { selfConfigResyncMs: options.selfConfigResyncMs } : {}),
    ...(options.selfConfigWebhookOnLoopback ? { selfConfigWebhookOnLoopback: true } : {}),
    ...(options.webhookClock ? { webhookClock: options.webhookClock } : {}),
    ...(options.deployWork ? { deployWork: options.deployWork } : {}),
    ...(options.rolloutWork ? { rolloutWork: options.rolloutWork } : {}),
    ...(options.instanceResyncMs ? { instanceResyncMs: options.instanceResyncMs } : {}),
    // PGlite: started from the migrated image the global setup made.
    ...(database ? {} : { embeddedDatabaseImage: await pgliteImage() }),
    migrate: async () => {},
  });
  const app = createHttpApp({
    deps: runtime.deps,
    production: false,
    consoleDir: '/nonexistent',
    requestBudget: options.requestBudget ?? null,
    ...(options.liveLimits ? { liveLimits: options.liveLimits } : {}),
    readiness: runtime.selfConfigWebhook ? { webhook: runtime.selfConfigWebhook.readiness } : {},
  });
  const server: Server = await listen(app, '127.0.0.1', 0);
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = async (path: string, init?: RequestInit) => {
    const res = await fetch(baseUrl + path, init);
    const text = await res.text();
    responses.push(text);
    return new Response(res.status === 204 || res.status === 304 ? null : text, { status: res.status, headers: res.headers });
  };

  const stack: TestStack = {
    runtime,
    app,
    baseUrl,
    bootstrapKey: runtime.installation.bootstrapApiKey!,
    logs,
    responses,
    core: runtime.kubeConfig.makeApiClient(CoreV1Api),
    apps: runtime.kubeConfig.makeApiClient(AppsV1Api),
    kubeConfig: runtime.kubeConfig,
    databaseUrl: runtime.databaseUrl,
    request,
    async gql(query, variables = {}, auth = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const key = auth.key === undefined ? stack.bootstrapKey : auth.key;
      if (key) headers.authorization = `Bearer ${key}`;
      if (auth.cookie) headers.cookie = auth.cookie;
      const res = await request('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return { status: res.status, body: (await res.json()) as GqlResult['body'] };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await runtime.close();
      await database?.drop();
    },
  };
  // A test that counts statements starts counting once the leader's start-up work is done: the
  // instance reconciler's first resync (with its look at every ready namespace's Secrets) once
  // landed inside a request whose statements were being counted.
  if (options.onQuery) await settleLeader(runtime);
  return stack;
}

/** Waits until this runtime leads, its controllers run, and the instance reconciler's first resync is done. */
export async function settleLeader(runtime: Runtime): Promise<void> {
  await waitFor(async () => runtime.leader.isLeader() && runtime.selfConfig.running() && runtime.instances.running(), 'the leader\'s controllers to start');
  await runtime.instances.idle();
}
