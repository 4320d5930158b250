import type { IncomingMessage } from 'node:http';
import { context, defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, SamplingDecision, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';
import { watchKubernetesRequests } from './metrics.ts';

// R6: OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (env.ts), off otherwise.
// Spans, all named and labelled from fixed sets, never from documents, variables, paths or values:
// - one SERVER span per HTTP request, continuing the caller's W3C traceparent, named by route and,
//   for GraphQL, by operation (`query Namespaces`), with the status code;
// - one CLIENT span per request to the Kubernetes API server (verb and resource, as the metrics
//   label them), a child of whatever was active when it was sent;
// - one CONSUMER span per work item attempt (kind, attempt).
// Lease polling (the leader election renewing its Lease every few seconds, R4) starts no trace of
// its own unless asked (OCC_TRACE_LEASES=true): it was a fifth of what an idle installation
// exported. A Lease call made inside a traced request or work item stays in that trace.
// Exported in batches over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`. Each runtime has its own
// provider (tests start several stacks in one process); the context manager is process-wide.

export interface Tracing {
  enabled: boolean;
  tracer: Tracer;
  /** Sends what is buffered (tests; shutdown does it too). */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT, validated by env.ts; null turns tracing off. */
  endpoint: string | null;
  serviceName: string;
  /** Resource attributes that identify this process (installation id, replica). */
  attributes?: Record<string, string>;
  /** OCC_TRACE_LEASES: trace Lease calls that start a trace of their own (off by default). */
  traceLeasePolling?: boolean;
}

/**
 * The root sampler: every new trace is recorded, except one that a Lease call would start (unless
 * asked). Children follow their parent (ParentBasedSampler), so nothing inside a trace is lost.
 */
export function leasePollingSampler(traceLeasePolling: boolean): Sampler {
  const root: Sampler = {
    shouldSample: (_context, _traceId, _name, _kind, attributes) => ({
      decision: !traceLeasePolling && attributes['k8s.resource'] === 'leases' ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
    }),
    toString: () => `LeasePollingSampler{traceLeasePolling=${traceLeasePolling}}`,
  };
  return new ParentBasedSampler({ root });
}

const propagator = new W3CTraceContextPropagator();
let contextManagerSet = false;

/** `<endpoint>/v1/traces`, as the OTLP exporter specification derives it from the base endpoint. */
export function tracesUrl(endpoint: string): string {
  return new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`).toString();
}

export function createTracing(options: TracingOptions): Tracing {
  if (!options.endpoint) {
    return { enabled: false, tracer: trace.getTracer('occ-disabled'), forceFlush: async () => {}, shutdown: async () => {} };
  }
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, ...options.attributes }),
    sampler: leasePollingSampler(options.traceLeasePolling ?? false),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl(options.endpoint), timeoutMillis: 10_000 }), scheduledDelayMillis: 1000 })],
  });
  return {
    enabled: true,
    tracer: provider.getTracer('openclaw-control-plane'),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The caller's trace (W3C traceparent and tracestate), or the root context. */
export function incomingContext(req: IncomingMessage): Context {
  return propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
}

/** Runs `fn` inside `span` (so spans started within are its children). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Ends a span with the given HTTP status: 5xx (or none: aborted) is an error. */
export function endWithStatus(span: Span, status: number | null): void {
  if (status === null) span.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted' });
  else {
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Names the active request's span after its GraphQL operation (type and name, never the document). */
export function nameOperation(type: string, name: string | undefined): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(name ? `${type} ${name}` : type);
  span.setAttribute('graphql.operation.type', type);
  if (name) span.setAttribute('graphql.operation.name', name);
}

/**
 * A CLIENT span for every request client-node sends to the API server at `serverUrl` (the same
 * requests metrics.ts times), a child of the request or work item that sent it. Returns the
 * unsubscribe.
 */
export function traceKubernetes(tracing: Tracing, serverUrl: string): () => void {
  if (!tracing.enabled) return () => {};
  const server = new URL(serverUrl);
  return watchKubernetesRequests(serverUrl, ({ method, verb, resource }) => {
    const span = tracing.tracer.startSpan(`kubernetes ${verb} ${resource}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'k8s.verb': verb,
        'k8s.resource': resource,
        'server.address': server.hostname,
        'server.port': Number(server.port || (server.protocol === 'https:' ? 443 : 80)),
      },
    });
    return (status) => endWithStatus(span, status);
  });
}
