import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { authenticateApiKey, authenticateSession, createSession, endSession } from '../services/authenticate.ts';
import type { Actor, Deps } from '../services/deps.ts';
import { createGraphQL, type Yoga } from '../graphql/yoga.ts';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { serveStatic } from './static-files.ts';

export interface HttpAppOptions {
  deps: Deps;
  production: boolean;
  consoleDir: string;
}

export interface HttpApp {
  yoga: Yoga;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

const MAX_BODY_BYTES = 1024 * 1024;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Resolves the caller. A bearer key wins; a session cookie is accepted only on requests a
 * browser cannot send cross-site without a preflight (JSON POST or GET), which with SameSite=Strict
 * is the CSRF defence.
 */
export async function authenticateRequest(deps: Deps, request: Request): Promise<Actor | null> {
  const auth = request.headers.get('authorization');
  if (auth?.startsWith('Bearer ')) return authenticateApiKey(deps.db, auth.slice(7).trim());
  const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE);
  if (!token) return null;
  if (request.method === 'POST' && !(request.headers.get('content-type') ?? '').startsWith('application/json')) return null;
  return authenticateSession(deps.db, token);
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { deps } = options;
  const log = deps.logger.child({ component: 'http' });
  const yoga = createGraphQL({ deps, production: options.production, authenticate: (r) => authenticateRequest(deps, r) });

  async function session(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (req.method === 'POST') {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        json(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send JSON: {"apiKey": "occ_…"}.' });
        return;
      }
      let apiKey: unknown;
      try {
        apiKey = (JSON.parse(await readBody(req, 4096)) as { apiKey?: unknown }).apiKey;
      } catch {
        json(res, 400, { code: 'BAD_REQUEST', message: 'Send JSON: {"apiKey": "occ_…"}.' });
        return;
      }
      const actor = typeof apiKey === 'string' ? await authenticateApiKey(deps.db, apiKey.trim()) : null;
      if (!actor) {
        log.info('sign-in refused');
        json(res, 401, { code: 'UNAUTHENTICATED', message: 'That API key is not valid, or it was revoked.' });
        return;
      }
      const created = await createSession(deps.db, actor);
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
      if (!actor) json(res, 401, { code: 'UNAUTHENTICATED', message: 'Not signed in.' });
      else json(res, 200, { principal: { id: actor.principalId, kind: actor.kind, name: actor.name } });
      return;
    }
    json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Use GET, POST or DELETE.' }, { allow: 'GET, POST, DELETE' });
  }

  async function ready(res: ServerResponse): Promise<void> {
    const checks: Record<string, string> = {};
    await deps.db.$queryRaw`SELECT 1`.then(
      () => (checks.database = 'ok'),
      () => (checks.database = 'unreachable'),
    );
    await deps.namespaceDriver.ping().then(
      () => (checks.kubernetes = 'ok'),
      () => (checks.kubernetes = 'unreachable'),
    );
    const ok = Object.values(checks).every((v) => v === 'ok');
    json(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', checks });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/graphql') {
      if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
        json(res, 413, { errors: [{ message: 'The request is too large.', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
        return;
      }
      await yoga.requestListener(req, res);
      return;
    }
    if (path === '/auth/session') return session(req, res);
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/readyz') return ready(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Not allowed.' });
    return serveStatic(options.consoleDir, req, res);
  }

  return {
    yoga,
    handle(req, res) {
      route(req, res).catch((error: unknown) => {
        const status = (error as { status?: number }).status ?? 500;
        if (status === 500) log.error('request failed', { path: req.url?.split('?')[0], error });
        if (!res.headersSent) json(res, status, { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL', message: 'The request failed.' });
        else res.end();
      });
    },
  };
}

export function listen(app: HttpApp, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => app.handle(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
