import { SpanKind, type Span } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.ts';
import type { RequestContext } from '../observability/request-context.ts';
import { incomingContext } from '../observability/tracing.ts';
import type { Deps } from '../services/deps.ts';

/** The routes metrics and access lines name; everything else is the console's files ("console"). */
const ROUTES: ReadonlySet<string> = new Set(['/graphql', '/auth/session', '/audit/events.ndjson', '/healthz', '/readyz']);

/** The route a request is counted under: a fixed set, or `console` for the console's files. */
function routeOf(req: IncomingMessage): string {
  const path = (req.url ?? '/').split('?')[0]!;
  return ROUTES.has(path) ? path : 'console';
}

/**
 * R6: the request's SERVER span when tracing is on, continuing the caller's traceparent; named by
 * method and route (a fixed set), renamed after the GraphQL operation once parsed. Its trace id
 * joins the request's log lines.
 */
export function requestSpan(deps: Deps, req: IncomingMessage, context: RequestContext): Span | null {
  const tracing = deps.tracing;
  if (!tracing?.enabled) return null;
  const route = routeOf(req);
  const span = tracing.tracer.startSpan(
    `${req.method ?? 'GET'} ${route}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? 'GET', 'http.route': route, 'occ.request_id': context.requestId } },
    incomingContext(req),
  );
  context.traceId = span.spanContext().traceId;
  return span;
}

/**
 * R6: one access line and one latency observation per request, by route (a fixed set: the raw
 * path and query are never logged, since a query string can carry a GraphQL document).
 */
export function observeRequest(deps: Deps, log: Logger, req: IncomingMessage, res: ServerResponse, context: RequestContext, started: number): void {
  const route = routeOf(req);
  const status = res.writableFinished ? String(res.statusCode) : 'aborted';
  const seconds = (performance.now() - started) / 1000;
  deps.metrics?.httpDuration.observe({ method: req.method ?? 'GET', route, status }, seconds);
  const probe = route === '/healthz' || route === '/readyz' || route === 'console';
  log[probe ? 'debug' : 'info']('request', {
    ...context,
    method: req.method,
    route,
    status: res.writableFinished ? res.statusCode : 'aborted',
    durationMs: Math.round(seconds * 10_000) / 10,
  });
}
