import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.ts';
import { currentRequest } from '../observability/request-context.ts';
import { authenticateApiKey, authenticateSession, createSession, endSession } from '../services/authenticate.ts';
import type { Deps } from '../services/deps.ts';
import { PayloadTooLargeError, readBody, RequestAbortedError } from './body.ts';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { answerThrottled, type FailedAuthentication } from './failed-authentication.ts';
import { CROSS_ORIGIN_REFUSED, isCrossOrigin } from './origin.ts';
import { json } from './respond.ts';
import { clientAddressOf, keyPrefixOf } from './throttle.ts';

const MAX_SESSION_BODY_BYTES = 4096;

interface SessionRouteOptions {
  deps: Deps;
  log: Logger;
  production: boolean;
  allowedOrigins: readonly string[];
  failedAuthentication: FailedAuthentication;
}

/** /auth/session: POST signs in with an API key (a session cookie back), DELETE signs out, GET says who is signed in. */
export function sessionRoute(options: SessionRouteOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { deps, log, allowedOrigins, failedAuthentication } = options;

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
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
      if (wait > 0) return answerThrottled(res, wait);
      log.info('sign-in refused');
      json(res, 401, { code: 'UNAUTHENTICATED', message: 'That API key is not valid, or it was revoked.' });
      return;
    }
    const created = await createSession(deps.db, actor);
    const context = currentRequest();
    if (context) context.principalId = actor.principalId;
    log.info('signed in', { principalId: actor.principalId });
    res.writeHead(204, { 'set-cookie': sessionCookie(created.token, created.expiresAt, options.production), 'cache-control': 'no-store' }).end();
  }

  async function whoIsSignedIn(req: IncomingMessage, res: ServerResponse, cookie: string | null): Promise<void> {
    const actor = cookie ? await authenticateSession(deps.db, cookie) : null;
    if (!actor && cookie) {
      const wait = await failedAuthentication(clientAddressOf(req), 'session', null);
      if (wait > 0) return answerThrottled(res, wait);
    }
    if (!actor) json(res, 401, { code: 'UNAUTHENTICATED', message: 'Not signed in.' });
    else json(res, 200, { principal: { id: actor.principalId, kind: actor.kind, name: actor.name } });
  }

  return async (req, res) => {
    // Signing in and out change the browser's session, so another origin may not do either, with a
    // cookie or without (login CSRF would sign the admin's browser in as someone else).
    if ((req.method === 'POST' || req.method === 'DELETE') && isCrossOrigin(req.headers, req.method, allowedOrigins)) {
      json(res, 403, { code: CROSS_ORIGIN_REFUSED, message: 'Sign in and out from this origin.' });
      return;
    }
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (req.method === 'POST') return signIn(req, res);
    if (req.method === 'DELETE') {
      if (cookie) await endSession(deps.db, cookie);
      res.writeHead(204, { 'set-cookie': clearedSessionCookie() }).end();
      return;
    }
    if (req.method === 'GET') return whoIsSignedIn(req, res, cookie);
    json(res, 405, { code: 'METHOD_NOT_ALLOWED', message: 'Use GET, POST or DELETE.' }, { allow: 'GET, POST, DELETE' });
  };
}
