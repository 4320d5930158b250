import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Yoga } from '../graphql/yoga.ts';
import { PayloadTooLargeError, readBody } from './body.ts';
import { CROSS_ORIGIN_REFUSED, signedInFromElsewhere } from './origin.ts';
import type { RequestTarget } from './request-target.ts';
import { graphqlRefusal } from './respond.ts';
import { graphiqlCsp } from './security-headers.ts';
import { clientAddressOf } from './throttle.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The Node request as a Fetch request for yoga, with the body already read (and counted). */
export function fetchInit(req: IncomingMessage, body: Buffer | undefined): RequestInit {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // Hop-by-hop and framing headers describe the connection, not the request; the body is whole.
    if (value === undefined || ['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return { method: req.method, headers, ...(body ? { body: new Uint8Array(body) } : {}) };
}

/** /graphql: the body read within its limit (P3), handed to yoga as a Fetch request, its answer written back whole or streamed. */
export function graphqlRoute(yoga: Yoga, allowedOrigins: readonly string[]): (req: IncomingMessage, res: ServerResponse, target: RequestTarget) => Promise<void> {
  return async (req, res, target) => {
    const method = req.method ?? 'GET';
    if (signedInFromElsewhere(req, method, allowedOrigins)) {
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
    await writeResponse(res, response);
  };
}

/** yoga's answer onto the Node response: GraphiQL's page with its own policy, JSON in one write, a stream chunk by chunk. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
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
