import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { operationLabel } from './operation-names.ts';

// R6: the Prometheus metrics of one installation process. One registry per runtime (not
// prom-client's global one), so tests that start several stacks in one process keep them apart.
// Labels are bounded: routes are a fixed set, GraphQL operation names are the product's own or
// `_other` (operation-names.ts), Kubernetes calls are labelled by verb, resource and status only.

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  graphqlDuration: Histogram<'operation_type' | 'operation_name'>;
  /** Every GraphQL error answered, by its extensions.code (always set: graphql/error-policy.ts). */
  graphqlErrors: Counter<'code'>;
  kubernetesDuration: Histogram<'verb' | 'resource' | 'status'>;
  leaseLosses: Counter<'lease'>;
  /** The label for a client-chosen operation name: a known one, `_anonymous` or `_other`. */
  operationLabel(name: string | undefined): string;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'occ_' });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'occ_http_request_duration_seconds',
      help: 'HTTP requests by method, route (a fixed set) and status, from the first byte read to the last written.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    graphqlDuration: new Histogram({
      name: 'occ_graphql_request_duration_seconds',
      help: 'GraphQL requests by operation type and name (the console\'s operation names; any other is _other).',
      labelNames: ['operation_type', 'operation_name'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    graphqlErrors: new Counter({
      name: 'occ_graphql_errors_total',
      help: 'GraphQL errors answered, by extensions.code.',
      labelNames: ['code'],
      registers: [registry],
    }),
    kubernetesDuration: new Histogram({
      name: 'occ_kubernetes_request_duration_seconds',
      help: 'Requests to the Kubernetes API server by verb, resource and HTTP status (or "error" when no answer came).',
      labelNames: ['verb', 'resource', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    leaseLosses: new Counter({
      name: 'occ_lease_losses_total',
      help: 'Leases lost while held: the leader Lease (lease="leader") or a work item\'s lease (lease="work_item").',
      labelNames: ['lease'],
      registers: [registry],
    }),
    operationLabel,
  };
}

/** Queue depth and the age of the oldest waiting item, read from the work queue at each scrape. */
export function observeQueue(metrics: Metrics, read: () => Promise<Array<{ state: string; count: number; oldest: Date | null }>>): void {
  // prom-client collects every metric of a scrape at once: both gauges share one query.
  let reading: ReturnType<typeof read> | null = null;
  const readOnce = () => (reading ??= read().finally(() => (reading = null)));
  new Gauge({
    name: 'occ_work_queue_depth',
    help: 'Work items by state (PENDING, RUNNING).',
    labelNames: ['state'],
    registers: [metrics.registry],
    async collect() {
      const rows = await readOnce();
      for (const state of ['PENDING', 'RUNNING']) this.set({ state }, rows.find((r) => r.state === state)?.count ?? 0);
    },
  });
  new Gauge({
    name: 'occ_work_queue_oldest_age_seconds',
    help: 'Age of the oldest work item not yet finished (0 when none).',
    registers: [metrics.registry],
    async collect() {
      const oldest = Math.min(...(await readOnce()).map((r) => r.oldest?.getTime() ?? Infinity));
      this.set(Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
    },
  });
}

/** The database pool: connections open, idle, and requests waiting for one. */
export function observePool(metrics: Metrics, pool: pg.Pool): void {
  new Gauge({
    name: 'occ_db_pool_connections',
    help: 'Database pool connections by state: total (open), idle, waiting (requests queued for a connection).',
    labelNames: ['state'],
    registers: [metrics.registry],
    collect() {
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
  new Gauge({ name: 'occ_db_pool_max', help: 'The pool\'s maximum number of connections.', registers: [metrics.registry], collect() { this.set(pool.options.max ?? 10); } });
}

/**
 * The Kubernetes verb of a request to the API server, and its resource, from method and path
 * (`/api/v1/namespaces/ns/secrets/name`, `/apis/group/version/…`), as the API server's own
 * metrics name them.
 */
export function kubernetesVerb(method: string, path: string, contentType?: string): { verb: string; resource: string } {
  const [pathname = '', search = ''] = path.split('?');
  const segments = pathname.split('/').filter(Boolean);
  let rest = segments[0] === 'api' ? segments.slice(2) : segments[0] === 'apis' ? segments.slice(3) : [];
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const resource = rest[0] ?? 'discovery';
  const named = rest.length >= 2;
  const watch = /(^|&)watch=(true|1)(&|$)/.test(search);
  switch (method.toUpperCase()) {
    case 'GET':
      return { verb: watch ? 'watch' : named ? 'get' : 'list', resource };
    case 'POST':
      return { verb: 'create', resource };
    case 'PUT':
      return { verb: 'update', resource };
    case 'PATCH':
      return { verb: (contentType ?? '').includes('apply-patch') ? 'apply' : 'patch', resource };
    case 'DELETE':
      return { verb: named ? 'delete' : 'deletecollection', resource };
    default:
      return { verb: method.toLowerCase(), resource };
  }
}

interface UndiciRequest {
  origin?: string | URL;
  method?: string;
  path?: string;
  headers?: string | string[] | Record<string, string>;
}

function headerOf(headers: UndiciRequest['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (headers[i]!.toLowerCase() === name) return headers[i + 1];
    return undefined;
  }
  if (typeof headers === 'string') return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1]?.trim();
  return Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
}

/** One request to the API server, as `watchKubernetesRequests` reports it. */
export interface KubernetesCall {
  method: string;
  verb: string;
  resource: string;
}

/**
 * Calls `onStart` for every request client-node sends to the API server at `serverUrl`, through
 * undici's diagnostics channels (client-node 2 fetches through undici): nothing wraps the clients,
 * so every driver, the elector and future controllers are seen alike. `create` is published in
 * the sender's async context (tracing.ts relies on it). The function `onStart` returns is called
 * once with the answer's status, or null when no answer came. Requests to other origins (the
 * tests' own fetches in the same process) are not reported. Returns the unsubscribe.
 */
export function watchKubernetesRequests(serverUrl: string, onStart: (call: KubernetesCall) => (status: number | null) => void): () => void {
  const origin = new URL(serverUrl).origin;
  const pending = new WeakMap<object, (status: number | null) => void>();
  const onCreate = (message: unknown) => {
    const request = (message as { request: UndiciRequest }).request;
    if (!request?.origin || new URL(String(request.origin)).origin !== origin) return;
    const method = request.method ?? 'GET';
    const { verb, resource } = kubernetesVerb(method, request.path ?? '/', headerOf(request.headers, 'content-type'));
    pending.set(request, onStart({ method, verb, resource }));
  };
  const finish = (request: object, status: number | null) => {
    const done = pending.get(request);
    if (!done) return;
    pending.delete(request);
    done(status);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    finish(request, response.statusCode);
  };
  const onError = (message: unknown) => finish((message as { request: object }).request, null);
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:error', onError);
  return () => {
    unsubscribe('undici:request:create', onCreate);
    unsubscribe('undici:request:headers', onHeaders);
    unsubscribe('undici:request:error', onError);
  };
}

/** Times every request to the API server by verb, resource and status ("error" when none came). */
export function observeKubernetes(metrics: Metrics, serverUrl: string): () => void {
  return watchKubernetesRequests(serverUrl, ({ verb, resource }) => {
    const at = performance.now();
    return (status) => metrics.kubernetesDuration.observe({ verb, resource, status: status === null ? 'error' : String(status) }, (performance.now() - at) / 1000);
  });
}
