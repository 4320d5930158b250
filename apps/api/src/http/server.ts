import { GraphQLError } from 'graphql';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AuditEventFilter } from '../services/audit-log.ts';
import { authenticateApiKey, authenticateSession } from '../services/authenticate.ts';
import type { Actor, Deps } from '../services/deps.ts';
import { LiveStreams, type LiveLimits } from '../graphql/live.ts';
import { PrincipalBudget } from '../graphql/principal-budget.ts';
import { createGraphQL, type RequestCaller, type Yoga } from '../graphql/yoga.ts';
import { currentRequest, requestIdFrom, runInRequest, type RequestContext } from '../observability/request-context.ts';
import { endWithStatus, withSpan } from '../observability/tracing.ts';
import { exportAuditEvents, exportFilter, ExportQueryError } from './audit-export.ts';
import { RequestAbortedError } from './body.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { answerThrottled, failedAuthentications, TOO_MANY_FAILURES, tooManyFailures } from './failed-authentication.ts';
import { fetchInit, graphqlRoute } from './graphql-route.ts';
import { corsHeaders, CROSS_ORIGIN_REFUSED, isPreflight, preflightHeaders, signedInFromElsewhere } from './origin.ts';
import { observeRequest, requestSpan } from './request-observation.ts';
import { parseRequestTarget, type RequestTarget } from './request-target.ts';
import { json } from './respond.ts';
import { API_CSP, consolePagePolicies, SECURITY_HEADERS } from './security-headers.ts';
import { sessionRoute } from './session-route.ts';
import { staticFiles } from './static-files.ts';
import { AuthThrottle, clientAddressOf, keyPrefixOf } from './throttle.ts';

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

export { MAX_BODY_BYTES } from './graphql-route.ts';

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

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { deps } = options;
  const allowedOrigins = options.allowedOrigins ?? [];
  const log = deps.logger.child({ component: 'http' });
  const pagePolicies = consolePagePolicies(options.consoleDir);
  const serveStatic = staticFiles(options.consoleDir, pagePolicies);
  const failedAuthentication = failedAuthentications(deps, options.throttle ?? new AuthThrottle(), log);

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
  const graphql = graphqlRoute(yoga, allowedOrigins);
  const session = sessionRoute({ deps, log, production: options.production, allowedOrigins, failedAuthentication });

  /** The audit trail as NDJSON, for a bearer key or a same-origin signed-in browser. */
  async function auditExport(req: IncomingMessage, res: ServerResponse, target: RequestTarget): Promise<void> {
    if (req.method !== 'GET') return json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Use GET.' }, { allow: 'GET' });
    if (signedInFromElsewhere(req, 'GET', allowedOrigins)) {
      return json(res, 403, { code: CROSS_ORIGIN_REFUSED, message: 'A signed-in browser request must come from this origin.' });
    }
    const authentication = await authenticateRequest(deps, new Request(`http://localhost${target.path}`, fetchInit(req, undefined)));
    if (authentication.failed) {
      const wait = await failedAuthentication(clientAddressOf(req), 'auditExport', authentication.keyPrefix);
      if (wait > 0) return answerThrottled(res, wait);
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
      const span = requestSpan(deps, req, context);
      res.once('close', () => {
        observeRequest(deps, log, req, res, context, started);
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
