import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../env.ts';
import { CREATE_NAMESPACE, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createTracing, leasePollingSampler, tracesUrl } from './tracing.ts';

// R6: OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set. A real OTLP/HTTP receiver
// (JSON, as the exporter sends it) collects what the product exports; the product runs whole.

const CANARY = 'CANARY_otel_5b2e9c41d7';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

let receiver: Server;
const bodies: string[] = [];
const paths: string[] = [];
let stack: TestStack;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  // A collector behind a path prefix, to check the /v1/traces join.
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/collector`;
  stack = await startTestStack({ env: { otlpEndpoint: endpoint, serviceName: 'occ-trace-test' } });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await new Promise<void>((r) => receiver?.close(() => r()));
});

/** The hex form, whichever the exporter used (OTLP/JSON ids are hex; base64 in some versions). */
const hex = (id: string | undefined) => (id === undefined || /^[0-9a-f]*$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));

function exported(): { spans: OtlpSpan[]; resources: Array<Record<string, unknown>> } {
  const spans: OtlpSpan[] = [];
  const resources: Array<Record<string, unknown>> = [];
  for (const body of bodies) {
    const doc = JSON.parse(body) as { resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
    for (const rs of doc.resourceSpans) {
      resources.push(Object.fromEntries((rs.resource.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])));
      for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, traceId: hex(s.traceId)!, spanId: hex(s.spanId)!, parentSpanId: hex(s.parentSpanId) || undefined });
    }
  }
  return { spans, resources };
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

async function flushedSpans(find: (spans: OtlpSpan[]) => boolean, what: string): Promise<OtlpSpan[]> {
  return waitFor(async () => {
    await stack.runtime.tracing.forceFlush();
    const { spans } = exported();
    return find(spans) ? spans : undefined;
  }, what);
}

describe('R6 OpenTelemetry tracing', () => {
  it('R6 posts OTLP/JSON to <endpoint>/v1/traces, with the service name and the installation on the resource', async () => {
    await stack.request('/healthz');
    await flushedSpans((spans) => spans.some((s) => s.name === 'GET /healthz'), 'the /healthz span');
    expect(paths[0]).toBe('POST /collector/v1/traces application/json');
    const { resources } = exported();
    expect(resources[0]).toMatchObject({ 'service.name': 'occ-trace-test', 'occ.installation.id': stack.runtime.installation.installationId });
    expect(String(resources[0]!['service.instance.id'])).toMatch(/-\d+$/);
  });

  it('R6 a GraphQL request is a SERVER span continuing the caller\'s traceparent, named by its operation; its Kubernetes calls are its CLIENT children; the work it enqueues is a CONSUMER span with its own calls; no value or document is exported', async () => {
    const created = await stack.gql(CREATE_NAMESPACE, { input: { name: `otel-${Date.now().toString(36)}` } });
    const namespaceId = created.body.data!.createNamespace.namespace.id as string;
    await waitFor(async () => {
      const r = await stack.gql('query($id: ID!) { namespace(id: $id) { status } }', { id: namespaceId });
      return r.body.data!.namespace.status === 'READY' ? true : undefined;
    }, 'the namespace ready');
    // The provisioning ran in the worker: its own span, with the Kubernetes calls it made beneath.
    const afterProvision = await flushedSpans((spans) => spans.some((s) => s.name === 'work namespace.provision'), 'the work item span');
    const work = afterProvision.find((s) => s.name === 'work namespace.provision')!;
    expect(work.kind).toBe(CONSUMER);
    expect(attr(work, 'occ.work_item.outcome')).toBe('done');
    const workCalls = afterProvision.filter((s) => s.parentSpanId === work.spanId && s.kind === CLIENT);
    expect(workCalls.map((s) => s.name)).toContain('kubernetes create namespaces');

    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const res = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}`, traceparent: `00-${traceId}-${parentId}-01` },
      body: JSON.stringify({
        query: 'mutation CreateSecret($input: CreateSecretInput!) { createSecret(input: $input) { __typename } }',
        variables: { input: { namespaceId, name: 'otel-canary', value: CANARY } },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { createSecret: { __typename: string } } }).data.createSecret.__typename).toBe('CreateSecretSuccess');
    const spans = await flushedSpans((all) => all.some((s) => s.traceId === traceId && s.kind === SERVER), 'the request span');
    const server = spans.find((s) => s.traceId === traceId && s.kind === SERVER)!;
    expect(server).toMatchObject({ name: 'mutation CreateSecret', parentSpanId: parentId });
    expect(attr(server, 'http.route')).toBe('/graphql');
    expect(attr(server, 'graphql.operation.name')).toBe('CreateSecret');
    expect(Number(attr(server, 'http.response.status_code'))).toBe(200);
    const children = spans.filter((s) => s.parentSpanId === server.spanId);
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) {
      expect(child.kind).toBe(CLIENT);
      expect(child.traceId).toBe(traceId);
      expect(child.name).toMatch(/^kubernetes \w+ \w+$/);
    }
    expect(children.some((s) => attr(s, 'k8s.resource') === 'secrets')).toBe(true);
    // P1: nothing exported carries the value, the document, or the request's paths.
    const all = bodies.join('\n');
    expect(all).not.toContain(CANARY);
    expect(all).not.toContain('createSecret(input');
    expect(all).not.toContain('/api/v1/namespaces/');
  });

  it('R6 log lines written while serving a traced request carry its trace id', async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`, 'x-request-id': 'otel-log-1' },
      body: JSON.stringify({ query: 'query TracedViewer { viewer { id } }' }),
    });
    await res.text();
    const line = await waitFor(async () => stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === 'otel-log-1' && l.msg === 'request'), 'the access line');
    expect(line.traceId).toBe(traceId);
  });
});

describe('R6 Lease polling left out of traces', () => {
  it('R6 R4 the leader election\'s Lease calls start no trace unless OCC_TRACE_LEASES asks; a Lease call inside a traced operation stays in its trace', async () => {
    // The stack's elector got its Lease (get, create or update calls to the API server) while
    // tracing was on: none of those calls is exported.
    await waitFor(async () => stack.runtime.leader.isLeader(), 'the stack to lead', 60_000);
    await stack.runtime.tracing.forceFlush();
    const { spans } = exported();
    expect(spans.some((s) => s.kind === CLIENT)).toBe(true);
    expect(spans.filter((s) => attr(s, 'k8s.resource') === 'leases').map((s) => s.name)).toEqual([]);

    const decide = (traceLeases: boolean, resource: string, parent = ROOT_CONTEXT) =>
      leasePollingSampler(traceLeases).shouldSample(parent, randomBytes(16).toString('hex'), `kubernetes update ${resource}`, SpanKind.CLIENT, { 'k8s.resource': resource }, []).decision;
    const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.SAMPLED });
    expect(decide(false, 'leases')).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(false, 'secrets')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(false, 'leases', traced)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(true, 'leases')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(readEnv({}).traceLeases).toBe(false);
    expect(readEnv({ OCC_TRACE_LEASES: 'true' }).traceLeases).toBe(true);
  });
});

describe('R6 tracing off', () => {
  it('R6 without an endpoint no provider exists and nothing is exported; the traces URL follows the OTLP base-URL rule', async () => {
    const off = createTracing({ endpoint: null, serviceName: 'x' });
    expect(off.enabled).toBe(false);
    const span = off.tracer.startSpan('nothing');
    expect(span.isRecording()).toBe(false);
    span.end();
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://gw.example/otlp')).toBe('https://gw.example/otlp/v1/traces');
  });
});
