// What the deploy and SelfConfig benches share: a pass-through proxy that records every Kubernetes
// API request the product makes (by namespace, verb and resource, with its time), a kubeconfig
// that goes through it, a watch that resolves when an object reaches a state, and percentiles.
// Not a bench itself (the runner takes only *.bench.ts).

import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { KubeConfig, PatchStrategy, Watch, type KubernetesObject, type KubernetesObjectApi } from '@kubernetes/client-node';
import { reuseConnections } from '../../packages/kube-emulator/src/client-connections.ts';
import { FIELD_MANAGER } from '@occ/domain/kubernetes-names';
import { OPENCLAW_CRD_DIR } from '../../packages/kube-emulator/src/crds.ts';
import { startKubeletSimulator } from '../../packages/kube-emulator/src/kubelet/simulator.ts';
import { startKubeEmulator } from '../../packages/kube-emulator/src/server.ts';
import type { Actor, Deps } from '../../apps/api/src/services/deps.ts';
import { createNamespace } from '../../apps/api/src/services/namespaces.ts';
import { withDatabase } from '../../apps/api/src/test/database.ts';

/** One request as the proxy saw it; times are performance.now() milliseconds. */
export interface KubeRequest {
  at: number;
  method: string;
  /** The namespace in the path, or null for a cluster-wide (or cluster-scoped) request. */
  namespace: string | null;
  /** The resource and subresource: `openclawinstances/status`, `deployments`. */
  resource: string;
  /** get, list, watch, create, apply, apply (dry run), patch (merge), update, delete. */
  verb: string;
}

/** What a request does, from its method, path, query and content type (the Kubernetes API's conventions). */
export function classify(method: string, url: string, contentType: string): Omit<KubeRequest, 'at' | 'method'> {
  const u = new URL(url, 'http://proxy');
  const parts = u.pathname.split('/').filter(Boolean);
  let rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  let namespace: string | null = null;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [resource = '', name, sub] = rest;
  const dryRun = u.searchParams.has('dryRun') ? ' (dry run)' : '';
  let verb: string;
  switch (method) {
    case 'GET':
      verb = u.searchParams.get('watch') === 'true' || u.searchParams.get('watch') === '1' ? 'watch' : name ? 'get' : 'list';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'DELETE':
      verb = name ? 'delete' : 'deletecollection';
      break;
    case 'PATCH':
      verb = contentType.includes('apply-patch') ? 'apply' : contentType.includes('merge-patch') ? 'patch (merge)' : contentType.includes('json-patch') ? 'patch (json)' : 'patch';
      break;
    default:
      verb = method.toLowerCase();
  }
  return { namespace, resource: sub ? `${resource}/${sub}` : resource, verb: verb + dryRun };
}

export interface RecordingProxy {
  url: string;
  /** Every request since the start, in arrival order. */
  readonly log: KubeRequest[];
  close(): Promise<void>;
}

/**
 * A pass-through proxy that records each request. It listens on plain HTTP (loopback only, to read
 * the paths) and forwards over TLS to the embedded server, trusting its CA (E5: HTTPS only).
 */
export async function recordingProxy(target: URL, ca: string | undefined): Promise<RecordingProxy> {
  const log: KubeRequest[] = [];
  const server: Server = createServer((req, res) => {
    log.push({ at: performance.now(), method: req.method ?? 'GET', ...classify(req.method ?? 'GET', req.url ?? '/', String(req.headers['content-type'] ?? '')) });
    const forward = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = forward({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, ...(ca ? { ca } : {}) }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      // A watch's headers go at once, as the server sent them, not with its first event.
      res.flushHeaders();
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The same kubeconfig, through the proxy. */
export function through(kc: KubeConfig, server: string): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    // client-node 2 sends credentials over plain HTTP only when told to skip TLS verification: the
    // hop to the proxy is loopback, and the proxy verifies the server with its CA.
    clusters: kc.clusters.map((c) => ({ ...c, server, skipTLSVerify: true, caData: undefined })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  // The bare side reuses its connections as the product's clients do (client-connections.ts).
  return reuseConnections(out);
}

/** The CA the embedded server's kubeconfig carries, as PEM. */
export function caOf(kc: KubeConfig): string | undefined {
  const data = kc.getCurrentCluster()?.caData;
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}

/** Requests of `log[from..to)` in `namespace` (null: those outside any namespace), counted by `verb resource`. */
export function tally(log: readonly KubeRequest[], from: number, to: number, namespace: string | null): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = from; i < to; i++) {
    const r = log[i]!;
    if (r.namespace !== namespace) continue;
    const key = `${r.verb} ${r.resource}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export function add(into: Map<string, number>, from: Map<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

export const sum = (xs: Iterable<number>) => {
  let s = 0;
  for (const x of xs) s += x;
  return s;
};

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export const median = (xs: readonly number[]) => percentile(xs, 50);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Markdown-ish table, as read-path.bench.ts prints. */
export function table(title: string, header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return `\n${title}\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n`;
}

export interface Watched<T> {
  /** Resolves with the time (performance.now()) and the object when `test` first holds, or rejects on timeout. */
  done: Promise<{ at: number; object: T }>;
  stop(): void;
}

/**
 * Watches one object (by name, in a collection path) from `resourceVersion` (or from now, with the
 * objects that exist as ADDED), calling `onEvent` with each state and its arrival time; a watch that
 * idles out (client-node's 30 s) resumes from the last state seen. Resolves once the watch is open,
 * so nothing the caller does afterwards is missed.
 */
export async function watchObject<T extends { metadata?: { name?: string; resourceVersion?: string } }>(
  kc: KubeConfig,
  collectionPath: string,
  name: string,
  test: (object: T) => boolean,
  options: { resourceVersion?: string; timeoutMs?: number; onEvent?: (object: T, at: number) => void } = {},
): Promise<Watched<T>> {
  let resolve!: (v: { at: number; object: T }) => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<{ at: number; object: T }>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  done.catch(() => undefined);
  let finished = false;
  let controller: AbortController | null = null;
  let resourceVersion = options.resourceVersion;
  let last: T | null = null;
  const finish = (error: unknown, value?: { at: number; object: T }) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    controller?.abort();
    if (value) resolve(value);
    else reject(error);
  };
  const timeoutMs = options.timeoutMs ?? 90_000;
  const timer = setTimeout(() => finish(new Error(`${collectionPath}/${name}: no matching state within ${timeoutMs} ms; last seen: ${JSON.stringify((last as { status?: unknown } | null)?.status ?? null)}`)), timeoutMs);
  const open = async (): Promise<void> => {
    controller = await new Watch(kc).watch(
      collectionPath,
      { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: true, ...(resourceVersion ? { resourceVersion } : {}) },
      (type: string, object: T) => {
        if (finished) return;
        resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
        if (type === 'BOOKMARK' || type === 'DELETED') return;
        const at = performance.now();
        last = object;
        options.onEvent?.(object, at);
        if (test(object)) finish(null, { at, object });
      },
      (error: unknown) => {
        if (finished) return;
        if ((error as { name?: string } | null)?.name === 'TimeoutError') void open().catch((e: unknown) => finish(e));
        else finish(error ?? new Error(`${collectionPath}/${name}: the watch ended`));
      },
    );
    if (finished) controller.abort();
  };
  await open();
  return { done, stop: () => finish(new Error('stopped')) };
}

/** A CPU profile's time, in ms, by the part of the process that spent it. */
export interface ProfileSummary {
  /** By area (the product's API, the domain, the emulated API server, the kubelet simulator, Prisma, client-node …). */
  areas: Map<string, number>;
  /** By the nearest frame of the product's own code (apps/api, packages/domain) on the stack: `function file`. */
  frames: Map<string, number>;
  /** By the nearest frame of the emulated API server (what the product's requests cost it). */
  serverFrames: Map<string, number>;
  totalMs: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const REPO_AREAS: Array<[RegExp, string]> = [
  [/\/apps\/api\/src\/instance\//, 'api: instance reconciler'],
  [/\/apps\/api\/src\/selfconfig\//, 'api: SelfConfig controller'],
  [/\/apps\/api\/src\/drivers\//, 'api: drivers'],
  [/\/apps\/api\/src\/(services|worker\.ts|controller)\b/, 'api: services and worker'],
  [/\/apps\/api\//, 'api: other'],
  [/\/packages\/domain\//, 'domain'],
  [/\/packages\/kube-emulator\/src\/kubelet\//, 'kubelet simulator'],
  [/\/packages\/kube-emulator\//, 'emulated API server'],
  [/\/node_modules\/(@prisma|\.prisma)\//, 'Prisma'],
  [/\/node_modules\/pg(-[a-z]+)?\//, 'pg driver'],
  [/\/node_modules\/@kubernetes\/client-node\//, 'client-node'],
  [/\/node_modules\/(undici|node-fetch)\//, 'HTTP client (undici)'],
  [/\/node_modules\/(@electric-sql)\//, 'PGlite'],
  [/\/node_modules\/([^/]+)\//, 'other packages'],
  [/\/bench\/api\/kube-support\.ts/, 'the bench\u2019s recording proxy and watches'],
  [/\/bench\//, 'the bench itself'],
];

/**
 * Sums profiles by who spent the time: each sample goes to the nearest frame on its stack that is
 * a file of the repository or a package (so JSON.parse called by the emulator counts for the
 * emulator); samples with none are Node's own (GC, the event loop, idle).
 */
export function summarizeProfiles(profiles: ReadonlyArray<{ nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }>): ProfileSummary {
  const areas = new Map<string, number>();
  const frames = new Map<string, number>();
  const serverFrames = new Map<string, number>();
  let totalMs = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const owner = new Map<number, { area: string; frame: string | null; server: string | null }>();
    const resolve = (id: number): { area: string; frame: string | null; server: string | null } => {
      const known = owner.get(id);
      if (known) return known;
      let area: string | null = null;
      let frame: string | null = null;
      let server: string | null = null;
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const cf = byId.get(at)!.callFrame;
        const url = cf.url;
        // The profiler's own stop (serializing the profile) is no one's work.
        if (url === 'node:inspector' || url === 'node:inspector/promises') {
          area = '(profiler)';
          break;
        }
        if (!area && url && !url.startsWith('node:')) area = REPO_AREAS.find(([re]) => re.test(url))?.[1] ?? null;
        // Functions by name and file: line numbers of tsx's output are not the source's.
        if (!frame && /\/(apps\/api|packages\/domain)\//.test(url)) frame = `${cf.functionName || '(anonymous)'} ${url.replace(/^.*\/(apps|packages)\//, '$1/')}`;
        if (!server && /\/packages\/kube-emulator\/src\/(?!kubelet\/)/.test(url)) server = `${cf.functionName || '(anonymous)'} ${url.replace(/^.*\/packages\//, 'packages/')}`;
        if (area && frame && server) break;
      }
      const leaf = byId.get(id)!.callFrame.functionName;
      const result = { area: area ?? (leaf === '(idle)' ? '(idle)' : leaf === '(garbage collector)' ? '(garbage collector)' : 'Node internals'), frame, server };
      owner.set(id, result);
      return result;
    };
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      const ms = (deltas[i] ?? 0) / 1000;
      const { area, frame, server } = resolve(samples[i]!);
      if (area === '(idle)' || area === '(profiler)') continue;
      totalMs += ms;
      areas.set(area, (areas.get(area) ?? 0) + ms);
      if (frame) frames.set(frame, (frames.get(frame) ?? 0) + ms);
      if (server && area === 'emulated API server') serverFrames.set(server, (serverFrames.get(server) ?? 0) + ms);
    }
  }
  return { areas, frames, serverFrames, totalMs };
}

/** The V8 CPU profiler of this process (node:inspector), started and stopped around each measured window. */
export async function openProfiler(): Promise<{ start(): Promise<void>; stop(): Promise<{ nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }>; close(): void }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  return {
    start: async () => {
      await session.post('Profiler.start');
    },
    async stop() {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] } };
      return profile;
    },
    close: () => session.disconnect(),
  };
}

/** A SQL statement by its verb and first table: `SELECT AgentRevision`, `INSERT AuditEvent`, `BEGIN`. */
export function statementKind(sql: string): string {
  const text = sql.trim();
  const verb = (/^[A-Za-z]+/.exec(text)?.[0] ?? '?').toUpperCase();
  const table = /(?:FROM|INTO|UPDATE)\s+(?:"public"\.)?"?([A-Za-z_]+)"?/i.exec(text)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/**
 * Watches a collection from now (what exists arrives as ADDED), calling `onEvent` with each object
 * that is added or changes; a watch that idles out resumes from the last resourceVersion seen.
 * Cheaper for the server than listing again and again while waiting.
 */
export async function watchCollection<T extends { metadata?: { name?: string; resourceVersion?: string } }>(kc: KubeConfig, collectionPath: string, onEvent: (type: string, object: T) => void): Promise<{ stop(): void }> {
  let stopped = false;
  let controller: AbortController | null = null;
  let resourceVersion: string | undefined;
  const open = async (): Promise<void> => {
    controller = await new Watch(kc).watch(
      collectionPath,
      { allowWatchBookmarks: true, ...(resourceVersion ? { resourceVersion } : {}) },
      (type: string, object: T) => {
        resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
        if (!stopped && type !== 'BOOKMARK') onEvent(type, object);
      },
      (error: unknown) => {
        if (!stopped && (error as { name?: string } | null)?.name === 'TimeoutError') void open();
      },
    );
    if (stopped) controller.abort();
  };
  await open();
  return {
    stop() {
      stopped = true;
      controller?.abort();
    },
  };
}

/** A scratch database beside `serverUrl`'s, dropped by `drop` (each bench run makes its own). */
export async function scratchDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `occ_bench_${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(serverUrl, name),
    async drop() {
      const again = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

/** The embedded cluster a bench runs against: the emulator, its kubelet, the counting proxy, and a kubeconfig through it. */
export async function benchCluster(name: string) {
  const emulator = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
  const kubelet = await startKubeletSimulator(emulator.kubeConfig());
  const proxy = await recordingProxy(new URL(emulator.url), caOf(emulator.kubeConfig()));
  const dir = await mkdtemp(path.join(tmpdir(), `occ-${name}-bench-`));
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  const direct: KubeConfig = emulator.kubeConfig();
  const proxied = through(direct, proxy.url);
  await writeFile(kubeconfig, proxied.exportConfig());
  return {
    emulator,
    kubelet,
    proxy,
    dir,
    kubeconfig,
    direct,
    proxied,
    async close() {
      await kubelet.stop();
      await proxy.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Deployment as the deploy benches read it. */
export type Deployment = { metadata?: { name?: string; generation?: number; resourceVersion?: string }; spec?: { replicas?: number }; status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number; conditions?: Array<{ type?: string; status?: string }> } };

export const deploymentsPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;

/** The bare path's apply: server-side, as the product's field manager. */
export const ssa = (objects: KubernetesObjectApi, o: Record<string, unknown>) => objects.patch(o as KubernetesObject, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);

/** A rollout done as `kubectl rollout status` says it, and Available. */
export const rolledOut = (generation: number) => (d: Deployment) => {
  const s = d.status ?? {};
  const want = d.spec?.replicas ?? 1;
  return (
    (s.observedGeneration ?? 0) >= generation &&
    (s.updatedReplicas ?? 0) >= want &&
    (s.replicas ?? 0) <= (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) >= want &&
    (s.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True')
  );
};

/** Waits until this replica leads and its loops (`running`) have started: the benches measure the leader's work. */
export async function untilLeading(runtime: { leader: { isLeader(): boolean } }, running: ReadonlyArray<() => boolean>): Promise<void> {
  for (let waited = 0; !(runtime.leader.isLeader() && running.every((r) => r())); waited += 50) {
    if (waited > 30_000) throw new Error('this replica never led');
    await sleep(50);
  }
}

/** A namespace made through the service, once its Kubernetes namespace is provisioned (READY): its row. */
export async function readyNamespace(deps: Deps, actor: Actor, name: string) {
  const ns = await createNamespace(deps, actor, { name });
  for (const until = Date.now() + 60_000; ; await sleep(50)) {
    const row = await deps.db.namespace.findUniqueOrThrow({ where: { id: ns.id } });
    if (row.status === 'READY') return row;
    if (row.status === 'FAILED' || Date.now() > until) throw new Error(`namespace not ready: ${row.status} ${row.statusMessage ?? ''}`);
  }
}
