import { GraphQLError } from 'graphql';
import { SpanKind, type Span } from '@opentelemetry/api';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AuditEventFilter } from '../services/audit-log.ts';
import { auditAnonymousRefusal } from '../services/audit.ts';
import { authenticateApiKey, authenticateSession, createSession, endSession } from '../services/authenticate.ts';
import type { Actor, Deps } from '../services/deps.ts';
import { LiveStreams, type LiveLimits } from '../graphql/live.ts';
import { PrincipalBudget } from '../graphql/principal-budget.ts';
import { createGraphQL, type RequestCaller, type Yoga } from '../graphql/yoga.ts';
import { currentRequest, requestIdFrom, runInRequest, type RequestContext } from '../observability/request-context.ts';
import { endWithStatus, incomingContext, withSpan } from '../observability/tracing.ts';
import { exportAuditEvents, exportFilter, ExportQueryError } from './audit-export.ts';
import { PayloadTooLargeError, readBody, RequestAbortedError } from './body.ts';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { corsHeaders, CROSS_ORIGIN_REFUSED, isCrossOrigin, isPreflight, preflightHeaders } from './origin.ts';
import { parseRequestTarget, type RequestTarget } from './request-target.ts';
import { API_CSP, consolePagePolicies, graphiqlCsp, SECURITY_HEADERS } from './security-headers.ts';
import { staticFiles } from './static-files.ts';
import { AuthThrottle, keyPrefixOf } from './throttle.ts';

export interface HttpAppOptions {
  deps: Deps;
  production: boolean;
  consoleDir: string;
  /** OCC_ALLOWED_ORIGINS: origins that may call the API from their pages, with credentials. None by default. */
  allowedOrigins?: readonly string[];
  /** Failed-authentication budget (P5); tests pass a small one. */
  throttle?: AuthThrottle;
  /**
   * P7: each principal's GraphQL cost budget and concurrent requests (graphql/principal-budget.ts);
   * the defaults unless given (cli/serve.ts passes the configured limits), null for none.
   */
  requestBudget?: PrincipalBudget | null;
  /** Subscription streams' bounds (graphql/live.ts); the defaults unless given (tests pass small ones). */
  liveLimits?: Partial<LiveLimits>;
  /**
   * More /readyz checks, each 'ok' or why not: `webhook` (SC5), until the webhook configuration
   * trusts the certificate this replica serves (kube/selfconfig-webhook-setup.ts).
   */
  readiness?: Readonly<Record<string, () => string>>;
}

export interface HttpApp {
  yoga: Yoga;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** R5: from now on /readyz fails and every answer closes its connection (shutdown.ts). */
  drain(): void;
}

export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_SESSION_BODY_BYTES = 4096;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/** /graphql answers its own refusals in GraphQL's response shape, so clients read one shape there. */
function graphqlRefusal(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { errors: [{ message, extensions: { code } }] });
}

function hasBearer(req: IncomingMessage): boolean {
  return (req.headers.authorization ?? '').startsWith('Bearer ');
}

/** What the request's credentials came to: a caller, nobody (none presented), or a failure. */
export type Authentication =
  | { actor: Actor; failed: false }
  | { actor: null; failed: false }
  | { actor: null; failed: true; presented: 'apiKey' | 'session'; keyPrefix: string | null };

/**
 * Resolves the caller. A bearer key wins; a session cookie is accepted only on requests a
 * browser cannot send cross-site without a preflight (JSON POST or GET), which with SameSite=Strict
 * is the CSRF defence. Cookie-authenticated requests from another origin never get here (P2, the
 * cross-origin check in createHttpApp runs first).
 */
export async function authenticateRequest(deps: Deps, request: Request): Promise<Authentication> {
  const authentication = await resolveCaller(deps, request);
  // R6: the request's log lines and its access line name the caller from here on.
  const context = currentRequest();
  if (context && authentication.actor) context.principalId = authentication.actor.principalId;
  return authentication;
}

async function resolveCaller(deps: Deps, request: Request): Promise<Authentication> {
  const auth = request.headers.get('authorization');
  if (auth?.startsWith('Bearer ')) {
    const key = auth.slice(7).trim();
    const actor = await authenticateApiKey(deps.db, key);
    return actor ? { actor, failed: false } : { actor: null, failed: true, presented: 'apiKey', keyPrefix: keyPrefixOf(key) };
  }
  const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE);
  if (!token) return { actor: null, failed: false };
  if (request.method === 'POST' && !(request.headers.get('content-type') ?? '').startsWith('application/json')) return { actor: null, failed: false };
  const actor = await authenticateSession(deps.db, token);
  return actor ? { actor, failed: false } : { actor: null, failed: true, presented: 'session', keyPrefix: null };
}

/** The peer's address as this server sees it; behind a proxy, the proxy's (README: P5). */
function clientAddressOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** The Node request as a Fetch request for yoga, with the body already read (and counted). */
function fetchInit(req: IncomingMessage, body: Buffer | undefined): RequestInit {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // Hop-by-hop and framing headers describe the connection, not the request; the body is whole.
    if (value === undefined || ['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return { method: req.method, headers, ...(body ? { body: new Uint8Array(body) } : {}) };
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { deps } = options;
  const allowedOrigins = options.allowedOrigins ?? [];
  const log = deps.logger.child({ component: 'http' });
  const pagePolicies = consolePagePolicies(options.consoleDir);
  const serveStatic = staticFiles(options.consoleDir, pagePolicies);
  const throttle = options.throttle ?? new AuthThrottle();

  /**
   * P5: a failed authentication spends the client's budget (and its key prefix's) and is audited
   * coalesced, per address and minute. Answers how long to wait (0: not throttled).
   */
  async function failedAuthentication(clientAddress: string, action: string, keyPrefix: string | null): Promise<number> {
    const wait = throttle.fail({ clientAddress, keyPrefix });
    await auditAnonymousRefusal(deps.db, { clientAddress, action, reason: wait > 0 ? 'THROTTLED' : 'UNAUTHENTICATED' });
    if (wait > 0) log.warn('failed authentication throttled', { clientAddress, keyPrefix, retryAfterSeconds: wait });
    return wait;
  }

  const TOO_MANY_FAILURES = 'TOO_MANY_FAILED_AUTHENTICATIONS';
  const tooManyFailures = (wait: number) => `Too many failed authentications from this client or for this key; retry after ${wait} seconds.`;

  // GraphQL resolves its caller while building the context, after the document passed its limits
  // (so a refused document costs no SQL). A refused key answers 401, a spent budget 429.
  const streams = new LiveStreams(options.liveLimits);
  const yoga = createGraphQL({
    deps,
    production: options.production,
    streams,
    budget: options.requestBudget === undefined ? new PrincipalBudget() : options.requestBudget,
    async authenticate(request, clientAddress): Promise<RequestCaller> {
      const authentication = await authenticateRequest(deps, request);
      if (!authentication.failed) return { actor: authentication.actor, clientAddress, authenticationFailed: false };
      const wait = await failedAuthentication(clientAddress, 'authenticate', authentication.keyPrefix);
      if (wait > 0) {
        throw new GraphQLError(tooManyFailures(wait), { extensions: { code: TOO_MANY_FAILURES, http: { status: 429, headers: { 'retry-after': String(wait) } } } });
      }
      // A script with a bad key fails loudly; a browser whose session expired is simply signed out.
      if (authentication.presented === 'apiKey') {
        throw new GraphQLError('That API key is not valid, or it was revoked.', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } } });
      }
      return { actor: null, clientAddress, authenticationFailed: true };
    },
  });

  /** P2: a request authenticated by the session cookie (no bearer key) sent from another origin. */
  function signedInFromElsewhere(req: IncomingMessage, method: string): boolean {
    const cookieAuthenticated = !hasBearer(req) && readCookie(req.headers.cookie, SESSION_COOKIE) !== null;
    return cookieAuthenticated && isCrossOrigin(req.headers, method, allowedOrigins);
  }

  async function graphql(req: IncomingMessage, res: ServerResponse, target: RequestTarget): Promise<void> {
    const method = req.method ?? 'GET';
    if (signedInFromElsewhere(req, method)) {
      graphqlRefusal(res, 403, CROSS_ORIGIN_REFUSED, 'A signed-in browser request must come from this origin.');
      return;
    }
    let body: Buffer | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      try {
        body = await readBody(req, MAX_BODY_BYTES);
      } catch (error) {
        if (!(error instanceof PayloadTooLargeError)) throw error;
        graphqlRefusal(res, 413, 'PAYLOAD_TOO_LARGE', error.message);
        return;
      }
    }
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    // yoga gets a Fetch Request built from the counted body: given the Node request, it would
    // buffer the whole stream itself before any limit applied (P3).
    const response = await yoga.fetch(`http://localhost${target.path}${target.search}`, { ...fetchInit(req, body), signal: aborted.signal }, { clientAddress: clientAddressOf(req) });
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers['set-cookie'] = cookies;
    if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
      // GraphiQL (outside production): its policy allows its CDN and its own inline scripts.
      const html = await response.text();
      res.writeHead(response.status, { ...headers, 'content-security-policy': graphiqlCsp(html) }).end(html);
      return;
    }
    const type = response.headers.get('content-type') ?? '';
    if (!response.body || type.startsWith('application/json') || type.startsWith('application/graphql-response+json')) {
      // A JSON answer is whole when yoga hands it over: one write, with its length, not a stream.
      const whole = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
      res.writeHead(response.status, { ...headers, ...(whole ? { 'content-length': String(whole.length) } : {}) }).end(whole);
      return;
    }
    // A stream (a subscription over SSE): a client that goes away cancels it, which ends the
    // subscription's source and frees its slot (graphql/live.ts); waiting for the next chunk would
    // hold both until something changed.
    res.writeHead(response.status, headers);
    const reader = response.body.getReader();
    res.once('close', () => void reader.cancel().catch(() => {}));
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
    res.end();
  }

  async function session(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Signing in and out change the browser's session, so another origin may not do either, with a
    // cookie or without (login CSRF would sign the admin's browser in as someone else).
    if ((req.method === 'POST' || req.method === 'DELETE') && isCrossOrigin(req.headers, req.method, allowedOrigins)) {
      json(res, 403, { code: CROSS_ORIGIN_REFUSED, message: 'Sign in and out from this origin.' });
      return;
    }
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (req.method === 'POST') {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        json(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send JSON: {"apiKey": "occ_…"}.' });
        return;
      }
      let apiKey: unknown;
      try {
        apiKey = (JSON.parse((await readBody(req, MAX_SESSION_BODY_BYTES)).toString('utf8')) as { apiKey?: unknown }).apiKey;
      } catch (error) {
        if (error instanceof PayloadTooLargeError || error instanceof RequestAbortedError) throw error;
        json(res, 400, { code: 'BAD_REQUEST', message: 'Send JSON: {"apiKey": "occ_…"}.' });
        return;
      }
      const presented = typeof apiKey === 'string' ? apiKey.trim() : '';
      const actor = presented ? await authenticateApiKey(deps.db, presented) : null;
      if (!actor) {
        const wait = await failedAuthentication(clientAddressOf(req), 'signIn', keyPrefixOf(presented));
        if (wait > 0) {
          json(res, 429, { code: TOO_MANY_FAILURES, message: tooManyFailures(wait) }, { 'retry-after': String(wait) });
          return;
        }
        log.info('sign-in refused');
        json(res, 401, { code: 'UNAUTHENTICATED', message: 'That API key is not valid, or it was revoked.' });
        return;
      }
      const created = await createSession(deps.db, actor);
      const context = currentRequest();
      if (context) context.principalId = actor.principalId;
      log.info('signed in', { principalId: actor.principalId });
      res.writeHead(204, { 'set-cookie': sessionCookie(created.token, created.expiresAt, options.production), 'cache-control': 'no-store' }).end();
      return;
    }
    if (req.method === 'DELETE') {
      if (cookie) await endSession(deps.db, cookie);
      res.writeHead(204, { 'set-cookie': clearedSessionCookie() }).end();
      return;
    }
    if (req.method === 'GET') {
      const actor = cookie ? await authenticateSession(deps.db, cookie) : null;
      if (!actor && cookie) {
        const wait = await failedAuthentication(clientAddressOf(req), 'session', null);
        if (wait > 0) return json(res, 429, { code: TOO_MANY_FAILURES, message: tooManyFailures(wait) }, { 'retry-after': String(wait) });
      }
      if (!actor) json(res, 401, { code: 'UNAUTHENTICATED', message: 'Not signed in.' });
      else json(res, 200, { principal: { id: actor.principalId, kind: actor.kind, name: actor.name } });
      return;
    }
    json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Use GET, POST or DELETE.' }, { allow: 'GET, POST, DELETE' });
  }

  /** The audit trail as NDJSON, for a bearer key or a same-origin signed-in browser. */
  async function auditExport(req: IncomingMessage, res: ServerResponse, target: RequestTarget): Promise<void> {
    if (req.method !== 'GET') return json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Use GET.' }, { allow: 'GET' });
    if (signedInFromElsewhere(req, 'GET')) {
      return json(res, 403, { code: CROSS_ORIGIN_REFUSED, message: 'A signed-in browser request must come from this origin.' });
    }
    const authentication = await authenticateRequest(deps, new Request(`http://localhost${target.path}`, fetchInit(req, undefined)));
    if (authentication.failed) {
      const wait = await failedAuthentication(clientAddressOf(req), 'auditExport', authentication.keyPrefix);
      if (wait > 0) return json(res, 429, { code: TOO_MANY_FAILURES, message: tooManyFailures(wait) }, { 'retry-after': String(wait) });
    }
    if (!authentication.actor) return json(res, 401, { code: 'UNAUTHENTICATED', message: 'A valid API key or session is required.' });
    let filter: AuditEventFilter;
    try {
      filter = exportFilter(new URLSearchParams(target.search));
    } catch (error) {
      if (!(error instanceof ExportQueryError)) throw error;
      return json(res, 400, { code: 'BAD_REQUEST', parameter: error.parameter, message: error.message });
    }
    await exportAuditEvents(deps, authentication.actor, filter, res);
  }

  let draining = false;

  async function ready(res: ServerResponse): Promise<void> {
    if (draining) return json(res, 503, { status: 'draining', checks: {} });
    const checks: Record<string, string> = {};
    await deps.db.$queryRaw`SELECT 1`.then(
      () => (checks.database = 'ok'),
      () => (checks.database = 'unreachable'),
    );
    await deps.namespaceDriver.ping().then(
      () => (checks.kubernetes = 'ok'),
      () => (checks.kubernetes = 'unreachable'),
    );
    for (const [name, check] of Object.entries(options.readiness ?? {})) checks[name] = check();
    const ok = Object.values(checks).every((v) => v === 'ok');
    json(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', checks });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = parseRequestTarget(req.url);
    if (!target) return json(res, 400, { code: 'MALFORMED_PATH', message: 'The request path is not a valid, percent-encoded path.' });
    const { path } = target;
    const api = path === '/graphql' || path === '/auth/session';
    if (api) {
      if (isPreflight(req.method ?? '', req.headers)) {
        const headers = preflightHeaders(req.headers, allowedOrigins);
        if (headers) res.writeHead(204, headers).end();
        else json(res, 403, { code: CROSS_ORIGIN_REFUSED, message: 'This origin may not call the API.' }, corsHeaders(req.headers, allowedOrigins));
        return;
      }
      for (const [name, value] of Object.entries(corsHeaders(req.headers, allowedOrigins))) res.setHeader(name, value);
    }
    if (path === '/graphql') return graphql(req, res, target);
    if (path === '/auth/session') return session(req, res);
    if (path === '/audit/events.ndjson') return auditExport(req, res, target);
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/readyz') return ready(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Not allowed.' });
    return serveStatic(req, res);
  }

  /**
   * R6: the request's SERVER span when tracing is on, continuing the caller's traceparent; named by
   * method and route (a fixed set), renamed after the GraphQL operation once parsed. Its trace id
   * joins the request's log lines.
   */
  function requestSpan(req: IncomingMessage, context: RequestContext): Span | null {
    const tracing = options.deps.tracing;
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

  /** The route a request is counted under: a fixed set, or `console` for the console's files. */
  function routeOf(req: IncomingMessage): string {
    const path = (req.url ?? '/').split('?')[0]!;
    return ROUTES.has(path) ? path : 'console';
  }

  /**
   * R6: one access line and one latency observation per request, by route (a fixed set: the raw
   * path and query are never logged, since a query string can carry a GraphQL document).
   */
  function observe(req: IncomingMessage, res: ServerResponse, context: RequestContext, started: number): void {
    const route = routeOf(req);
    const status = res.writableFinished ? String(res.statusCode) : 'aborted';
    const seconds = (performance.now() - started) / 1000;
    options.deps.metrics?.httpDuration.observe({ method: req.method ?? 'GET', route, status }, seconds);
    const probe = route === '/healthz' || route === '/readyz' || route === 'console';
    log[probe ? 'debug' : 'info']('request', {
      ...context,
      method: req.method,
      route,
      status: res.writableFinished ? res.statusCode : 'aborted',
      durationMs: Math.round(seconds * 10_000) / 10,
    });
  }

  return {
    yoga,
    drain() {
      draining = true;
      streams.end();
    },
    handle(req, res) {
      const started = performance.now();
      const context: RequestContext = { requestId: requestIdFrom(req.headers['x-request-id']) };
      res.setHeader('x-request-id', context.requestId);
      const span = requestSpan(req, context);
      res.once('close', () => {
        observe(req, res, context, started);
        if (span) endWithStatus(span, res.writableFinished ? res.statusCode : null);
      });
      runInRequest(context, () => (span ? withSpan(span, () => serve(req, res)) : serve(req, res)));
    },
  };

  function serve(req: IncomingMessage, res: ServerResponse): void {
    // Set before routing, so every answer carries them: pages, API, 404, 413 and 500 alike (P2).
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('content-security-policy', API_CSP);
    // An answer given before the body was read whole (413, a refusal, a route that reads no
    // body) closes the connection: Node would otherwise read and discard the rest, however long.
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      // Draining (R5), an answer ends its connection, so a shutdown waits for no idle keep-alive.
      if (!req.complete || draining) this.setHeader('connection', 'close');
      return writeHead.apply(this, args);
    } as ServerResponse['writeHead'];
    route(req, res).catch((error: unknown) => {
      if (error instanceof RequestAbortedError) return void res.destroy();
      const status = (error as { status?: number }).status ?? 500;
      if (status === 500) log.error('request failed', { path: req.url?.split('?')[0], error });
      if (!res.headersSent) json(res, status, { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL', message: 'The request failed.' });
      else res.end();
    });
  }
}

/** The routes metrics and access lines name; everything else is the console's files ("console"). */
const ROUTES: ReadonlySet<string> = new Set(['/graphql', '/auth/session', '/audit/events.ndjson', '/healthz', '/readyz']);

export interface ListenOptions {
  /** The whole request head must arrive within this (slow-loris headers). */
  headersTimeoutMs?: number;
  /** The whole request, body included, must arrive within this (slow bodies). */
  requestTimeoutMs?: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs?: number;
}

export function listen(app: HttpApp, host: string, port: number, options: ListenOptions = {}): Promise<Server> {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      // How often Node checks the two timeouts above: a fraction of the shorter one.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => app.handle(req, res),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
