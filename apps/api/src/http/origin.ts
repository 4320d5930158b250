import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { readCookie, SESSION_COOKIE } from './cookies.ts';

// P2, same origin only. Two separate questions: may another origin read our answers (CORS: only
// the origins listed in OCC_ALLOWED_ORIGINS, none by default), and may a browser request that
// carries the session cookie act at all when it comes from elsewhere (never, unless listed).

export const CROSS_ORIGIN_REFUSED = 'CROSS_ORIGIN_REFUSED';

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null; // `Origin: null` (sandboxed frames, some redirects) and anything unparsable
  }
}

/**
 * True when a browser sent this request from a page that is not this server's origin.
 *
 * "This server's origin" is the request's Host header, not the configured listen address: a
 * browser sets Host from the URL it fetched and no page can change it, so it names the origin the
 * page and its cookie belong to, however the server was reached (127.0.0.1, localhost, a proxy's
 * public name that forwards Host). The scheme is not compared: behind a TLS-terminating proxy the
 * server cannot know it, and an http page of the same host does not receive the https page's
 * SameSite=Strict cookie anyway (browsers apply schemeful same-site). A proxy that rewrites Host
 * must list the public origin in OCC_ALLOWED_ORIGINS, which counts as this origin.
 *
 * Sec-Fetch-Site is the browser's own verdict and is checked first; Origin covers browsers that do
 * not send it. A request with neither is not a browser's cross-origin request (every browser sends
 * Origin on cross-origin POSTs) and passes.
 */
export function isCrossOrigin(headers: IncomingHttpHeaders, method: string, allowedOrigins: readonly string[]): boolean {
  const origin = headers.origin;
  if (origin !== undefined && allowedOrigins.includes(origin)) return false;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    // `none`: the user typed or bookmarked the URL; harmless only for a page that is read.
    const navigation = site === 'none' && (method === 'GET' || method === 'HEAD');
    if (!navigation) return true;
  }
  if (origin !== undefined && hostOf(origin) !== (headers.host ?? '').toLowerCase()) return true;
  return false;
}

/** Response headers that let a listed origin read the answer; none for any other origin. */
export function corsHeaders(headers: IncomingHttpHeaders, allowedOrigins: readonly string[]): Record<string, string> {
  if (allowedOrigins.length === 0) return {};
  const origin = headers.origin;
  if (origin === undefined || !allowedOrigins.includes(origin)) return { vary: 'Origin' };
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

/** A CORS preflight (OPTIONS with Access-Control-Request-Method). */
export function isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
}

/** The preflight answer's headers for a listed origin, or null to refuse it. */
export function preflightHeaders(headers: IncomingHttpHeaders, allowedOrigins: readonly string[]): Record<string, string> | null {
  const cors = corsHeaders(headers, allowedOrigins);
  if (!cors['access-control-allow-origin']) return null;
  return {
    ...cors,
    'access-control-allow-methods': 'GET, POST, DELETE',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-max-age': '600',
  };
}

function hasBearer(req: IncomingMessage): boolean {
  return (req.headers.authorization ?? '').startsWith('Bearer ');
}

/** P2: a request authenticated by the session cookie (no bearer key) sent from another origin. */
export function signedInFromElsewhere(req: IncomingMessage, method: string, allowedOrigins: readonly string[]): boolean {
  const cookieAuthenticated = !hasBearer(req) && readCookie(req.headers.cookie, SESSION_COOKIE) !== null;
  return cookieAuthenticated && isCrossOrigin(req.headers, method, allowedOrigins);
}
