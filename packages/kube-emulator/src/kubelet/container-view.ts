// The simulator's view of the containers it runs (E3), for tests: each running container's
// environment and mounted files as resolved when it started. It lives in the simulator's memory
// and leaves it only through the simulator's interface: `containers()` in the same process, and a
// loopback HTTP endpoint (`serveContainerView`) for tests in other processes (vitest workers while
// the simulator runs in globalSetup). None of it is written to a Kubernetes object, an Event or a
// log line. The endpoint's URL carries a random path token, so other local users cannot read it.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningContainer {
  pod: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  container: string;
  env: Record<string, string>;
  files: Record<string, string>;
}

export interface ContainerFilter {
  /** Every label must match (equality). */
  labelSelector?: Record<string, string>;
  podName?: string;
}

interface PodEntry {
  namespace: string;
  pod: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  containers: Map<string, { env: Record<string, string>; files: Record<string, string> }>;
}

interface PodIdentity {
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** How many deleted Pods' uids are remembered, so that a late evaluation cannot bring one back. */
const GONE_REMEMBERED = 10_000;

/** Running containers by Pod uid, in the order they started. */
export class ContainerView {
  private readonly pods = new Map<string, PodEntry>();
  private readonly gone = new Set<string>();

  has(uid: string, container: string): boolean {
    return this.pods.get(uid)?.containers.has(container) ?? false;
  }

  /** The Pod was deleted (an evaluation that listed it before may still be running). */
  isGone(uid: string): boolean {
    return this.gone.has(uid);
  }

  /** A container started: what it was started with. */
  record(pod: PodIdentity, container: string, resolved: { env: Record<string, string>; files: Record<string, string> }): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.gone.has(uid)) return;
    const entry = this.pods.get(uid) ?? {
      namespace: pod.metadata?.namespace ?? '',
      pod: pod.metadata?.name ?? '',
      uid,
      labels: {},
      annotations: {},
      containers: new Map(),
    };
    this.pods.set(uid, entry);
    this.refresh(pod);
    entry.containers.set(container, { env: { ...resolved.env }, files: { ...resolved.files } });
  }

  /** The Pod's labels and annotations as they are now (they may change while it runs). */
  refresh(pod: PodIdentity): void {
    const entry = this.pods.get(pod.metadata?.uid ?? '');
    if (!entry) return;
    entry.labels = { ...(pod.metadata?.labels ?? {}) };
    entry.annotations = { ...(pod.metadata?.annotations ?? {}) };
  }

  /** The Pod is gone. */
  forget(uid: string): void {
    this.pods.delete(uid);
    this.gone.add(uid);
    if (this.gone.size > GONE_REMEMBERED) this.gone.delete(this.gone.values().next().value as string);
  }

  containers(namespace: string, filter: ContainerFilter = {}): RunningContainer[] {
    const out: RunningContainer[] = [];
    const pods = [...this.pods.values()].filter(
      (p) =>
        p.namespace === namespace &&
        (filter.podName === undefined || p.pod === filter.podName) &&
        Object.entries(filter.labelSelector ?? {}).every(([key, value]) => p.labels[key] === value),
    );
    pods.sort((a, b) => a.pod.localeCompare(b.pod));
    for (const p of pods) {
      for (const [container, resolved] of p.containers) {
        out.push({ pod: p.pod, uid: p.uid, labels: { ...p.labels }, annotations: { ...p.annotations }, container, env: { ...resolved.env }, files: { ...resolved.files } });
      }
    }
    return out;
  }
}

/** `GET /containers?namespace=…&labelSelector=k%3Dv,…&podName=…`: the query both sides spell. */
export function containersQuery(namespace: string, filter: ContainerFilter = {}): string {
  const query = new URLSearchParams({ namespace });
  const selector = Object.entries(filter.labelSelector ?? {}).map(([key, value]) => `${key}=${value}`);
  if (selector.length > 0) query.set('labelSelector', selector.join(','));
  if (filter.podName !== undefined) query.set('podName', filter.podName);
  return `/containers?${query.toString()}`;
}

function parseQuery(query: URLSearchParams): { namespace: string; filter: ContainerFilter } | null {
  const namespace = query.get('namespace');
  if (!namespace) return null;
  const filter: ContainerFilter = {};
  const selector = query.get('labelSelector');
  if (selector) {
    filter.labelSelector = {};
    for (const term of selector.split(',')) {
      const eq = term.indexOf('=');
      if (eq <= 0) return null;
      filter.labelSelector[term.slice(0, eq)] = term.slice(eq + 1);
    }
  }
  const podName = query.get('podName');
  if (podName !== null) filter.podName = podName;
  return { namespace, filter };
}

export interface ServedView {
  /** Base URL (with its access token); fetchContainers(url, …) appends the query. */
  url: string;
  close(): Promise<void>;
}

/** Serves the view on 127.0.0.1, a random port, under a random path token. */
export async function serveContainerView(view: Pick<ContainerView, 'containers'>): Promise<ServedView> {
  const token = randomBytes(24).toString('base64url');
  const prefix = `/${token}`;
  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const given = Buffer.from(url.pathname.slice(0, prefix.length));
    const allowed = given.length === prefix.length && timingSafeEqual(given, Buffer.from(prefix));
    if (!allowed || url.pathname.slice(prefix.length) !== '/containers') return send(response, 404, { message: 'not found' });
    if (request.method !== 'GET') return send(response, 405, { message: 'only GET' });
    const parsed = parseQuery(url.searchParams);
    if (!parsed) return send(response, 400, { message: 'namespace is required; labelSelector is key=value,…' });
    send(response, 200, view.containers(parsed.namespace, parsed.filter));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
