import type { AddressInfo } from 'node:net';
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_NAMESPACE, waitFor } from '../test/operations.ts';
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMetrics, kubernetesVerb } from './metrics.ts';
import { KNOWN_OPERATION_NAMES } from './operation-names.ts';
import { listenMetrics } from './metrics-server.ts';

// R6: JSON logs with a request id, operation name, principal id and duration (never documents or
// values), and Prometheus metrics on their own listener.

const CANARY = 'CANARY_r6_7d3f0a91c2';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { leaderLeaseSeconds: 1 } });
}, 180_000);
afterAll(async () => {
  await stack?.close();
});

type Line = Record<string, unknown>;
const lines = (): Line[] => stack.logs.map((l) => JSON.parse(l) as Line);

describe('R6 request ids and log lines', () => {
  it('R6 every answer carries a request id: the caller\'s X-Request-Id when it is a plain token, a new one otherwise', async () => {
    const given = await stack.request('/healthz', { headers: { 'x-request-id': 'lb-7f3a.2:9_x' } });
    expect(given.headers.get('x-request-id')).toBe('lb-7f3a.2:9_x');
    const made = [await stack.request('/healthz'), await stack.request('/healthz')].map((r) => r.headers.get('x-request-id'));
    for (const id of made) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(made[0]).not.toBe(made[1]);
    // Not plain tokens: echoed in a header and written to logs, so replaced.
    for (const bad of ['has space', 'quote"d', 'x'.repeat(129), '']) {
      const res = await stack.request('/healthz', { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Every answer: refusals and errors too.
    const refused = await stack.request('/graphql', { method: 'PUT', headers: { 'x-request-id': 'refused-1' } });
    expect(refused.headers.get('x-request-id')).toBe('refused-1');
  });

  it('R6 a GraphQL request\'s access line names its request id, operation name, principal id, status and duration, never its document or variables', async () => {
    const viewer = await stack.gql('{ viewer { id } }');
    const principalId = viewer.body.data!.viewer.id as string;
    const res = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}`, 'x-request-id': 'r6-access-1' },
      body: JSON.stringify({ query: `query Viewer($note: String) { viewer { id } namespaces(first: 1, namePrefix: $note) { totalCount } }`, variables: { note: CANARY } }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const access = await waitFor(async () => lines().find((l) => l.requestId === 'r6-access-1' && l.msg === 'request'), 'the access line');
    expect(access).toMatchObject({ level: 'info', method: 'POST', route: '/graphql', status: 200, operationName: 'Viewer', principalId });
    expect(typeof access.durationMs).toBe('number');
    expect(typeof access.time).toBe('string');
    const all = stack.logs.join('\n');
    expect(all).not.toContain(CANARY);
    expect(all).not.toContain('viewer { id }');
  });

  it('R6 every line written while serving a request carries its id and operation name (the error policy\'s line here)', async () => {
    const res = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}`, 'x-request-id': 'r6-errors-1' },
      body: JSON.stringify({ query: `query Viewer { viewer { id noSuchField } }` }),
    });
    await res.text();
    const errorLine = await waitFor(async () => lines().find((l) => l.requestId === 'r6-errors-1' && l.msg === 'graphql request answered with errors'), 'the error line');
    expect(errorLine).toMatchObject({ operationName: 'Viewer', component: 'graphql' });
    expect(errorLine.principalId).toBeUndefined(); // refused before the context (and so the caller) was built
  });
});

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

/** The value of one sample, by metric name and exact labels (order as prom-client prints them). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return undefined;
}

/** The sum of every sample of one metric whose labels include these (e.g. across statuses). */
function total(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((w) => have.includes(w))) sum += Number(match[3]);
  }
  return sum;
}

describe('R6 /metrics', () => {
  it('R6 /metrics on its own listener: HTTP and GraphQL latency, errors by code, Kubernetes calls by verb and status, queue depth and age, pool use', async () => {
    const metricsServer = await listenMetrics(stack.runtime.metrics.registry, '127.0.0.1', 0);
    const url = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
    try {
      const created = await stack.gql(CREATE_NAMESPACE.replace('mutation(', 'mutation CreateNamespace('), { input: { name: 'r6-metrics' } });
      expect(created.status).toBe(200);
      const failed = await stack.gql('query Broken { viewer { noSuchField } }');
      const code = failed.body.errors![0]!.extensions!.code as string;
      await waitFor(async () => (sample(await scrape(url), 'occ_kubernetes_request_duration_seconds_count', { verb: 'create', resource: 'namespaces', status: '201' }) ?? 0) >= 1, 'the namespace create to be counted');
      await waitFor(async () => stack.runtime.leader.isLeader(), 'this replica to lead (it has read the Lease)');

      const text = await scrape(url);
      expect(sample(text, 'occ_http_request_duration_seconds_count', { method: 'POST', route: '/graphql', status: '200' })).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'occ_graphql_request_duration_seconds_count', { operation_type: 'mutation', operation_name: 'CreateNamespace' })).toBe(1);
      expect(sample(text, 'occ_graphql_request_duration_seconds_count', { operation_type: 'query', operation_name: '_other' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'occ_graphql_errors_total', { code })).toBeGreaterThanOrEqual(1);
      // The elector's Lease calls are counted by the same observer. Its first read answers 404 (no
      // Lease yet) and later ones 200, and which of them has happened by now depends on timing, so
      // the reads are counted whatever their status.
      expect(total(text, 'occ_kubernetes_request_duration_seconds_count', { verb: 'get', resource: 'leases' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'occ_work_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
      expect(text).toContain('# TYPE occ_work_queue_depth gauge');
      expect(sample(text, 'occ_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'occ_db_pool_max')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'occ_process_resident_memory_bytes')).toBeGreaterThan(0);
      // Labels never carry values: the namespace's name is not a label.
      expect(text).not.toContain('r6-metrics');

      // The API's own port does not serve them.
      const onApiPort = await stack.request('/metrics');
      expect(onApiPort.status).toBe(404);
      expect(await onApiPort.text()).not.toContain('occ_http_request_duration_seconds');
    } finally {
      await new Promise<void>((r) => metricsServer.close(() => r()));
    }
  });

  it('R6 the queue depth counts items waiting, and a lost leader Lease is counted as a lease loss', async () => {
    const metricsServer = await listenMetrics(stack.runtime.metrics.registry, '127.0.0.1', 0);
    const url = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
    try {
      await stack.runtime.db.workItem.create({ data: { id: 'wrk_r6-waiting', kind: 'r6.unknown', idempotencyKey: 'r6:waiting', nextAttemptAt: new Date(Date.now() + 3_600_000), createdAt: new Date(Date.now() - 120_000) } });
      const text = await scrape(url);
      expect(sample(text, 'occ_work_queue_depth', { state: 'PENDING' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'occ_work_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(119);

      // Another holder takes the Lease over (as a replica would after a partition).
      await waitFor(async () => stack.runtime.leader.isLeader(), 'this replica to lead');
      const leases = stack.kubeConfig.makeApiClient(CoordinationV1Api);
      const name = `occ-leader-${stack.runtime.installation.installationId}`;
      await waitFor(async () => {
        const lease = await leases.readNamespacedLease({ name, namespace: 'default' });
        const spec = { ...lease.spec, holderIdentity: 'another-replica', leaseDurationSeconds: 60, renewTime: new V1MicroTime() };
        return leases.replaceNamespacedLease({ name, namespace: 'default', body: { ...lease, spec } }).then(() => true, () => false);
      }, 'the Lease to be taken over');
      await waitFor(async () => (sample(await scrape(url), 'occ_lease_losses_total', { lease: 'leader' }) ?? 0) >= 1, 'the loss to be counted');
    } finally {
      await new Promise<void>((r) => metricsServer.close(() => r()));
    }
  });

  it('R6 Kubernetes calls are named by the API server\'s verbs', () => {
    const cases: Array<[string, string, string | undefined, string, string]> = [
      ['GET', '/api/v1/namespaces', undefined, 'list', 'namespaces'],
      ['GET', '/api/v1/namespaces/occ-1', undefined, 'get', 'namespaces'],
      ['GET', '/api/v1/namespaces/occ-1/secrets?labelSelector=a%3Db', undefined, 'list', 'secrets'],
      ['GET', '/api/v1/namespaces/occ-1/secrets?watch=true', undefined, 'watch', 'secrets'],
      ['GET', '/api/v1/namespaces/occ-1/secrets/s1', undefined, 'get', 'secrets'],
      ['POST', '/api/v1/namespaces/occ-1/secrets', undefined, 'create', 'secrets'],
      ['PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l', undefined, 'update', 'leases'],
      ['PATCH', '/apis/openclaw.rocks/v1alpha1/namespaces/n/openclawinstances/i', 'application/apply-patch+yaml', 'apply', 'openclawinstances'],
      ['PATCH', '/apis/apps/v1/namespaces/n/deployments/d', 'application/merge-patch+json', 'patch', 'deployments'],
      ['DELETE', '/api/v1/namespaces/occ-1/secrets/s1', undefined, 'delete', 'secrets'],
      ['DELETE', '/api/v1/namespaces/occ-1/secrets', undefined, 'deletecollection', 'secrets'],
      ['GET', '/apis/apps/v1/namespaces/n/deployments/d/status', undefined, 'get', 'deployments'],
      ['GET', '/version', undefined, 'list', 'discovery'],
    ];
    for (const [method, path, contentType, verb, resource] of cases) expect(kubernetesVerb(method, path, contentType), `${method} ${path}`).toEqual({ verb, resource });
  });

  it('R6 an operation name the product does not send is never a label value: _other, however many callers mint', () => {
    const metrics = createMetrics();
    expect(metrics.operationLabel('Op0')).toBe('_other');
    for (let i = 0; i < 50; i++) expect(metrics.operationLabel(`${CANARY}${i}`)).toBe('_other');
    expect(metrics.operationLabel('Viewer')).toBe('Viewer');
    expect(metrics.operationLabel(undefined)).toBe('_anonymous');
  });

  it('R6 every operation the console sends keeps its own label (the known names follow apps/console/lib)', async () => {
    const dir = fileURLToPath(new URL('../../../console/lib/', import.meta.url));
    const names = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const mod = (await import(/* @vite-ignore */ pathToFileURL(dir + file).href)) as Record<string, unknown>;
      for (const value of Object.values(mod)) {
        const name = typeof value === 'string' ? /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(value)?.[1] : undefined;
        if (name) names.add(name);
      }
    }
    expect(names.size).toBeGreaterThan(20);
    expect([...KNOWN_OPERATION_NAMES].sort()).toEqual([...names].sort());
  });

  it('R6 an anonymous caller naming its operations mints no label value and no log field', async () => {
    for (let i = 0; i < 5; i++) await stack.gql(`query ${CANARY}_op${i} { viewer { id } noSuchField }`, {}, { key: null });
    const metrics = await stack.runtime.deps.metrics!.registry.metrics();
    expect(metrics).not.toContain(CANARY);
    expect(metrics).toMatch(/operation_name="_other"/);
    expect(stack.logs.join('\n')).not.toContain(CANARY);
  });
});
