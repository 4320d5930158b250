import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../db/client.ts';
import { readEnv } from '../env.ts';
import { CREATE_NAMESPACE } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHttpApp, listen, MAX_BODY_BYTES, type HttpAppOptions, type ListenOptions } from './server.ts';

// P2 (same origin only, security headers, no anonymous introspection in production), P3 (bodies
// counted on the stream, header and request timeouts) and P4 (malformed paths and cookies) at the
// HTTP edge, over real sockets against the real stack.
// FC_SEED replays a generated run (fast-check prints the seed and path of a failure); FC_NUM_RUNS widens it.

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 60;

let stack: TestStack;
let consoleDir: string;
const servers: Server[] = [];

const PAGE_SCRIPT = 'self.__boot=1';
const NOT_FOUND_SCRIPT = 'self.__missing=1';

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  // A console export in miniature: pages with inline scripts (as Next.js writes them) and an asset.
  consoleDir = mkdtempSync(path.join(tmpdir(), 'occ-console-'));
  writeFileSync(path.join(consoleDir, 'index.html'), `<!doctype html><html><head><script src="/_next/static/app.js"></script></head><body><script>${PAGE_SCRIPT}</script></body></html>`);
  writeFileSync(path.join(consoleDir, '404.html'), `<!doctype html><html><body><script>${NOT_FOUND_SCRIPT}</script></body></html>`);
  mkdirSync(path.join(consoleDir, '_next/static'), { recursive: true });
  writeFileSync(path.join(consoleDir, '_next/static/app.js'), 'console.log(1)');
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await stack?.close();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

interface App {
  url: string;
  port: number;
  server: Server;
  sockets: Socket[];
}

/** Another listener on the same runtime, for the options the shared test stack does not use. */
async function startApp(options: Partial<HttpAppOptions> = {}, listenOptions: ListenOptions = {}): Promise<App> {
  const app = createHttpApp({ deps: stack.runtime.deps, production: false, consoleDir, ...options });
  const server = await listen(app, '127.0.0.1', 0, listenOptions);
  servers.push(server);
  const sockets: Socket[] = [];
  server.on('connection', (s: Socket) => sockets.push(s));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, server, sockets };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** node:http rather than fetch: Origin, Host and Sec-Fetch-Site are sent exactly as given. */
function send(base: string, target: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + target, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** One request written byte for byte (latin1), read to the end of the connection. */
function raw(port: number, head: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: status ? Number(status[1]) : 0, text });
    });
    socket.write(head, 'latin1');
  });
}

async function signIn(base = stack.baseUrl): Promise<string> {
  const res = await send(base, '/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: stack.bootstrapKey }) });
  expect(res.status).toBe(204);
  return String(res.headers['set-cookie']).split(';')[0]!;
}

async function counts(): Promise<Record<string, number>> {
  const db = stack.runtime.db;
  return { namespaces: await db.namespace.count(), audit: await db.auditEvent.count(), sessions: await db.session.count() };
}

const createNamespaceBody = (name: string) => JSON.stringify({ query: CREATE_NAMESPACE, variables: { input: { name } } });

describe('P2: same origin only', () => {
  const FOREIGN = ['http://127.0.0.1:1', 'http://evil.example', 'null', 'https://127.0.0.1'];

  it('P2: a preflight from any origin gets no allow-origin and no allow-credentials', async () => {
    const self = stack.baseUrl;
    for (const origin of [...FOREIGN, self]) {
      for (const target of ['/graphql', '/auth/session']) {
        const res = await send(self, target, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        expect(res.headers['access-control-allow-origin'], `${origin} ${target}`).toBeUndefined();
        expect(res.headers['access-control-allow-credentials'], `${origin} ${target}`).toBeUndefined();
      }
      // and an actual request from there carries none either
      const res = await send(self, '/graphql', { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('P2: with OCC_ALLOWED_ORIGINS set, exactly the listed origin gets CORS', async () => {
    const listed = 'http://console.example:8080';
    const { allowedOrigins } = readEnv({ OCC_ALLOWED_ORIGINS: ` ${listed} , https://other.example` });
    expect(allowedOrigins).toEqual([listed, 'https://other.example']);
    const app = await startApp({ allowedOrigins });
    const preflight = (origin: string, target: string) =>
      send(app.url, target, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    for (const target of ['/graphql', '/auth/session']) {
      const ok = await preflight(listed, target);
      expect(ok.status).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe(listed);
      expect(ok.headers['access-control-allow-credentials']).toBe('true');
      for (const near of ['http://console.example:8081', `${listed}/`, 'https://console.example:8080', 'http://console.example', 'http://evil.example', 'null']) {
        const res = await preflight(near, target);
        expect(res.status, near).toBe(403);
        expect(res.headers['access-control-allow-origin'], near).toBeUndefined();
        expect(res.headers['access-control-allow-credentials'], near).toBeUndefined();
      }
    }
    const actual = await send(app.url, '/graphql', { method: 'POST', headers: { origin: listed, 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' });
    expect(actual.headers['access-control-allow-origin']).toBe(listed);
  });

  it('P2: OCC_ALLOWED_ORIGINS accepts only exact origins, and says which value is wrong', () => {
    expect(readEnv({}).allowedOrigins).toEqual([]);
    for (const bad of ['*', 'console.example', 'https://console.example/', 'https://console.example/path', 'ftp://console.example', 'https://a.example,,']) {
      expect(() => readEnv({ OCC_ALLOWED_ORIGINS: bad }), bad).toThrow(/OCC_ALLOWED_ORIGINS must be a comma-separated list of exact origins/);
    }
  });

  // Each way a browser tells us the page is not ours, on each route a cookie can act through.
  const FOREIGN_BROWSER_HEADERS: Array<[string, (self: string) => Record<string, string>]> = [
    ['Origin of another port', () => ({ origin: 'http://127.0.0.1:1' })],
    ['Origin of another host', () => ({ origin: 'http://evil.example' })],
    ['Origin null', () => ({ origin: 'null' })],
    ['Sec-Fetch-Site cross-site', () => ({ 'sec-fetch-site': 'cross-site' })],
    ['Sec-Fetch-Site same-site', () => ({ 'sec-fetch-site': 'same-site' })],
    ['same Origin but Sec-Fetch-Site same-site', (self) => ({ origin: self, 'sec-fetch-site': 'same-site' })],
  ];

  it('P2: a cookie-authenticated request from another origin is refused before it runs, and writes nothing', async () => {
    const cookie = await signIn();
    const self = stack.baseUrl;
    for (const [label, headersOf] of FOREIGN_BROWSER_HEADERS) {
      const before = await counts();
      const attempts: Array<[string, Promise<Answer>]> = [
        ['POST /graphql', send(self, '/graphql', { method: 'POST', headers: { ...headersOf(self), cookie, 'content-type': 'application/json' }, body: createNamespaceBody(`p2-${before.namespaces}`) })],
        ['GET /graphql', send(self, `/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { ...headersOf(self), cookie, accept: 'application/json' } })],
        ['POST /auth/session', send(self, '/auth/session', { method: 'POST', headers: { ...headersOf(self), cookie, 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: stack.bootstrapKey }) })],
        ['DELETE /auth/session', send(self, '/auth/session', { method: 'DELETE', headers: { ...headersOf(self), cookie } })],
      ];
      for (const [route, pending] of attempts) {
        const res = await pending;
        expect(res.status, `${label}: ${route}`).toBe(403);
        expect(res.text, `${label}: ${route}`).toContain('"CROSS_ORIGIN_REFUSED"');
        expect(res.headers['set-cookie'], `${label}: ${route}`).toBeUndefined();
      }
      expect(await counts(), label).toEqual(before);
    }
    // Sec-Fetch-Site none (a typed URL) may read a page, never send a POST.
    const typedPost = await send(self, '/graphql', { method: 'POST', headers: { 'sec-fetch-site': 'none', cookie, 'content-type': 'application/json' }, body: createNamespaceBody('p2-typed') });
    expect(typedPost.status).toBe(403);
    // The session survived every refused sign-out.
    expect((await stack.gql('{ viewer { name } }', {}, { key: null, cookie })).body.data?.viewer?.name).toBe('bootstrap');
  });

  it('P2: a cookie-authenticated request from this origin, or with no browser headers, works', async () => {
    const cookie = await signIn();
    const self = stack.baseUrl;
    const sameOrigin: Array<Record<string, string>> = [{ origin: self, 'sec-fetch-site': 'same-origin' }, { origin: self }, { 'sec-fetch-site': 'same-origin' }, {}];
    for (const [i, headers] of sameOrigin.entries()) {
      const res = await send(self, '/graphql', { method: 'POST', headers: { ...headers, cookie, 'content-type': 'application/json' }, body: createNamespaceBody(`p2-same-${i}`) });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).data.createNamespace.__typename, JSON.stringify(headers)).toBe('CreateNamespaceSuccess');
    }
    // A typed or bookmarked URL (Sec-Fetch-Site none) may read a page.
    const typed = await send(self, `/graphql?query=${encodeURIComponent('{ viewer { name } }')}`, { headers: { 'sec-fetch-site': 'none', cookie, accept: 'application/json' } });
    expect(JSON.parse(typed.text).data.viewer.name).toBe('bootstrap');
  });

  it('P2: a bearer-key request from another origin is unaffected', async () => {
    for (const [label, headersOf] of FOREIGN_BROWSER_HEADERS) {
      const res = await send(stack.baseUrl, '/graphql', {
        method: 'POST',
        headers: { ...headersOf(stack.baseUrl), authorization: `Bearer ${stack.bootstrapKey}`, 'content-type': 'application/json' },
        body: createNamespaceBody(`p2-bearer-${FOREIGN_BROWSER_HEADERS.findIndex(([l]) => l === label)}`),
      });
      expect(JSON.parse(res.text).data.createNamespace.__typename, label).toBe('CreateNamespaceSuccess');
    }
  });

  it('P2: a listed origin may act with the cookie; an unlisted one still may not', async () => {
    const listed = 'http://console.example:8080';
    const app = await startApp({ allowedOrigins: [listed] });
    const cookie = await signIn(app.url);
    const viewer = (origin: string) =>
      send(app.url, '/graphql', { method: 'POST', headers: { origin, 'sec-fetch-site': 'cross-site', cookie, 'content-type': 'application/json' }, body: '{"query":"{ viewer { name } }"}' });
    expect(JSON.parse((await viewer(listed)).text).data.viewer.name).toBe('bootstrap');
    expect((await viewer('http://console.example:8081')).status).toBe(403);
  });

  it('P2: every response carries the security headers, whatever the route and status', async () => {
    const dev = await startApp();
    const prod = await startApp({ production: true });
    // An unreachable database: the honest way to get a 500 out of a route.
    const broken = await startApp({ deps: { ...stack.runtime.deps, db: createDb('postgresql://postgres@127.0.0.1:1/none', { poolSize: 1 }) } });
    const cookie = await signIn(dev.url);
    const json = { 'content-type': 'application/json' };
    const cases: Array<[string, number, () => Promise<Answer>]> = [
      ['console page', 200, () => send(dev.url, '/')],
      ['console asset', 200, () => send(dev.url, '/_next/static/app.js')],
      ['unknown page', 404, () => send(dev.url, '/no/such/page')],
      ['graphql', 200, () => send(dev.url, '/graphql', { method: 'POST', headers: json, body: '{"query":"{__typename}"}' })],
      ['graphql syntax error', 200, () => send(dev.url, '/graphql', { method: 'POST', headers: json, body: '{"query":"{"}' })],
      ['graphql syntax error, graphql-response', 400, () => send(dev.url, '/graphql', { method: 'POST', headers: { ...json, accept: 'application/graphql-response+json' }, body: '{"query":"{"}' })],
      ['graphiql', 200, () => send(dev.url, '/graphql', { headers: { accept: 'text/html' } })],
      ['graphql in production', 200, () => send(prod.url, '/graphql', { method: 'POST', headers: json, body: '{"query":"{__typename}"}' })],
      ['graphql too large', 413, () => send(dev.url, '/graphql', { method: 'POST', headers: json, body: 'x'.repeat(MAX_BODY_BYTES + 1) })],
      ['graphql cross-origin', 403, () => send(dev.url, '/graphql', { method: 'POST', headers: { ...json, cookie, origin: 'http://evil.example' }, body: '{"query":"{__typename}"}' })],
      ['preflight refused', 403, () => send(dev.url, '/graphql', { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } })],
      ['sign-in', 204, () => send(dev.url, '/auth/session', { method: 'POST', headers: json, body: JSON.stringify({ apiKey: stack.bootstrapKey }) })],
      ['sign-in refused', 401, () => send(dev.url, '/auth/session', { method: 'POST', headers: json, body: '{"apiKey":"occ_wrong"}' })],
      ['sign-in not JSON', 415, () => send(dev.url, '/auth/session', { method: 'POST', body: 'apiKey=x' })],
      ['sign-in malformed', 400, () => send(dev.url, '/auth/session', { method: 'POST', headers: json, body: '{' })],
      ['sign-in too large', 413, () => send(dev.url, '/auth/session', { method: 'POST', headers: json, body: 'x'.repeat(5000) })],
      ['session', 200, () => send(dev.url, '/auth/session', { headers: { cookie } })],
      ['session method', 405, () => send(dev.url, '/auth/session', { method: 'PUT' })],
      ['healthz', 200, () => send(dev.url, '/healthz')],
      ['readyz', 200, () => send(dev.url, '/readyz')],
      ['readyz, database down', 503, () => send(broken.url, '/readyz')],
      ['session, database down', 500, () => send(broken.url, '/auth/session', { headers: { cookie } })],
      ['method on a page', 405, () => send(dev.url, '/', { method: 'POST' })],
      ['malformed path', 400, () => send(dev.url, '/%E0%A4%A')],
    ];
    for (const [label, status, go] of cases) {
      const res = await go();
      expect(res.status, label).toBe(status);
      expect(res.headers['x-content-type-options'], label).toBe('nosniff');
      expect(res.headers['referrer-policy'], label).toBe('strict-origin');
      expect(res.headers['cross-origin-opener-policy'], label).toBe('same-origin');
      const csp = String(res.headers['content-security-policy']);
      expect(csp, label).toContain("frame-ancestors 'none'");
      const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
      expect(scriptSrc, label).not.toContain("'unsafe-inline'");
      expect(scriptSrc, label).not.toContain("'unsafe-eval'");
      if (!String(res.headers['content-type']).startsWith('text/html')) expect(csp, label).toContain("default-src 'none'");
    }
  });

  it('P2: a console page is allowed exactly its own inline scripts, by hash', async () => {
    const app = await startApp();
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const page = await send(app.url, '/');
    expect(page.headers['content-security-policy']).toContain(hash(PAGE_SCRIPT));
    expect(page.headers['content-security-policy']).not.toContain(hash(NOT_FOUND_SCRIPT));
    const missing = await send(app.url, '/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-security-policy']).toContain(hash(NOT_FOUND_SCRIPT));
    // GraphiQL (development only) gets the hashes of its own inline scripts too.
    const graphiql = await send(app.url, '/graphql', { headers: { accept: 'text/html' } });
    const inline = [...graphiql.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline.length).toBeGreaterThan(0);
    for (const s of inline) expect(graphiql.headers['content-security-policy']).toContain(hash(s));
  });

  it('P2: in production an anonymous introspection query is refused; signed-in callers and development keep it', async () => {
    const prod = await startApp({ production: true });
    const dev = await startApp();
    const queries = [
      '{ __schema { queryType { name } } }',
      '{ __type(name: "Query") { name } }',
      'query { ...F } fragment F on Query { __schema { types { name } } }',
      '{ viewer { id } a: __type(name: "Namespace") { fields { name } } }',
    ];
    const post = (base: string, query: string, headers: Record<string, string> = {}) =>
      send(base, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
    for (const query of queries) {
      const anonymous = JSON.parse((await post(prod.url, query)).text);
      expect(anonymous.errors?.[0]?.extensions?.code, query).toBe('UNAUTHENTICATED');
      expect(anonymous.data ?? null, query).toBeNull();
      const signedIn = JSON.parse((await post(prod.url, query, { authorization: `Bearer ${stack.bootstrapKey}` })).text);
      expect(signedIn.errors, query).toBeUndefined();
      const development = JSON.parse((await post(dev.url, query)).text);
      expect(development.data?.__schema ?? development.data?.__type ?? development.data?.a, query).toBeTruthy();
    }
    // __typename is not introspection.
    expect(JSON.parse((await post(prod.url, '{ __typename }')).text).data).toEqual({ __typename: 'Query' });
  });
});

describe('P3: bounded requests at the HTTP layer', () => {
  /**
   * Streams `total` bytes as chunked encoding, as an attacker would: it goes on sending after the
   * answer, and stops only when everything is sent or the server closes the connection. Returns
   * the answer and how many bytes the server read off its socket.
   */
  async function chunkedUpload(app: App, target: string, headers: string, total: number): Promise<{ status: number; body: string; serverRead: number }> {
    const known = app.sockets.length;
    const socket = connect(app.port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    await expect.poll(() => app.sockets.length).toBe(known + 1);
    const serverSocket = app.sockets.at(-1)!;
    let response = '';
    socket.on('data', (c: Buffer) => (response += c.toString('utf8')));
    let closed = false;
    const gone = new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.on('error', () => resolve());
    });
    void gone.then(() => (closed = true));
    socket.write(`POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n${headers}\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let sent = 0; sent < total && !closed; sent += chunk.length) {
      const ok = socket.write(`${chunk.length.toString(16)}\r\n`) && socket.write(chunk) && socket.write('\r\n');
      if (!ok) await Promise.race([new Promise((r) => socket.once('drain', r)), gone]);
    }
    if (!closed) {
      socket.write('0\r\n\r\n');
      // A server that read it all keeps the connection: stop once its answer is here.
      await expect.poll(() => response.includes('\r\n\r\n') || closed).toBe(true);
    }
    socket.destroy();
    await gone;
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
    return { status, body: response.slice(response.indexOf('\r\n\r\n') + 4), serverRead: serverSocket.bytesRead };
  }

  it('P3: a chunked body over the limit is refused with 413, and the server stops reading at the limit', async () => {
    const app = await startApp();
    const total = 16 * MAX_BODY_BYTES;
    for (const [target, headers, limit] of [
      ['/graphql', 'Content-Type: application/json\r\n', MAX_BODY_BYTES],
      ['/graphql', `Content-Type: application/json\r\nAuthorization: Bearer ${stack.bootstrapKey}\r\n`, MAX_BODY_BYTES],
      ['/auth/session', 'Content-Type: application/json\r\n', 4096],
    ] as const) {
      const { status, body, serverRead } = await chunkedUpload(app, target, headers, total);
      expect(status, target).toBe(413);
      expect(body, target).toContain('PAYLOAD_TOO_LARGE');
      // What the server read off the socket: the limit plus what was in flight, not the body.
      expect(serverRead, target).toBeLessThan(limit + 2 * 1024 * 1024);
      expect(serverRead, target).toBeLessThan(total / 4);
    }
    // Routes that read no body answer at once and close the connection rather than read and
    // discard what follows (Node alone would discard about 4 MiB before it gives up).
    for (const [target, status] of [['/', 405], ['/healthz', 200], ['/%', 400]] as const) {
      const answer = await chunkedUpload(app, target, '', total);
      expect(answer.status, target).toBe(status);
      expect(answer.serverRead, target).toBeLessThan(2 * 1024 * 1024);
    }
  });

  it('P3: a chunked body within the limit is read whole, and the connection stays usable', async () => {
    const app = await startApp();
    const query = JSON.stringify({ query: '{ __typename }', variables: { padding: 'x'.repeat(200_000) } });
    const socket = connect(app.port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const half = Math.floor(query.length / 2);
    const req = (body: string) =>
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${Buffer.byteLength(body.slice(0, half)).toString(16)}\r\n${body.slice(0, half)}\r\n${Buffer.byteLength(body.slice(half)).toString(16)}\r\n${body.slice(half)}\r\n0\r\n\r\n`;
    socket.write(req(query) + req(query));
    await expect.poll(() => text.match(/"__typename":"Query"/g)?.length ?? 0).toBe(2);
    expect(text).not.toMatch(/connection: close/i);
    socket.destroy();
  });

  it('P3: the server is listening with header, request and keep-alive timeouts', async () => {
    const app = await startApp();
    expect(app.server.headersTimeout).toBeGreaterThan(0);
    expect(app.server.headersTimeout).toBeLessThanOrEqual(10_000);
    expect(app.server.requestTimeout).toBeGreaterThan(0);
    expect(app.server.requestTimeout).toBeLessThanOrEqual(30_000);
    expect(app.server.keepAliveTimeout).toBeGreaterThan(0);
    expect(app.server.keepAliveTimeout).toBeLessThanOrEqual(5_000);
  });

  /** Writes `head` one byte every 50 ms (a slow-loris client) until the server closes the connection. */
  function trickle(port: number, head: string): Promise<{ closedBeforeDone: boolean; answer: string }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let i = 0;
      const timer = setInterval(() => {
        if (i < head.length) socket.write(head[i++]!);
        else {
          clearInterval(timer);
          socket.destroy();
          resolve({ closedBeforeDone: false, answer });
        }
      }, 50);
      socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ closedBeforeDone: i < head.length, answer });
      });
    });
  }

  it('P3: a client that never finishes its headers, or its body, is cut off', async () => {
    const app = await startApp({}, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
    // 200 header bytes at one every 50 ms would take 10 s; the header timeout ends it first.
    const slowHeaders = await trickle(app.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`);
    expect(slowHeaders.closedBeforeDone).toBe(true);
    expect(slowHeaders.answer).toMatch(/^HTTP\/1\.1 408|^$/);
    const body = JSON.stringify({ query: `{ __typename } #${'a'.repeat(200)}` });
    const slowBody = await trickle(
      app.port,
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(slowBody.closedBeforeDone).toBe(true);
  }, 30_000);
});

describe('P4: malformed paths and cookies at the HTTP layer', () => {
  it('P4: a malformed percent-encoding in the path answers 400 naming the path', async () => {
    const app = await startApp();
    for (const target of ['/%E0%A4%A', '/%', '/graphql/%', '/auth/%zz', '/_next/static/%C0', '/a%00b', 'http://x/%', '*']) {
      const res = await raw(app.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(res.status, target).toBe(400);
      expect(res.text, target).toContain('"MALFORMED_PATH"');
    }
    // `new URL('//[', base)` throws (it reads a host); the path is only a page that does not exist.
    expect((await raw(app.port, 'GET //[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).status).toBe(404);
  });

  it('P4: a malformed session cookie is no session: the request goes on unauthenticated', async () => {
    for (const cookie of ['occ_session=%', 'occ_session=%E0%A4%A', 'a=1; occ_session=%zz; b=2']) {
      const viewer = await send(stack.baseUrl, '/graphql', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{"query":"{ viewer { id } }"}' });
      expect(viewer.status, cookie).toBe(200);
      expect(JSON.parse(viewer.text).data.viewer, cookie).toBeNull();
      expect((await send(stack.baseUrl, '/auth/session', { headers: { cookie } })).status, cookie).toBe(401);
      expect((await send(stack.baseUrl, '/auth/session', { method: 'DELETE', headers: { cookie } })).status, cookie).toBe(204);
    }
  });

  // Pieces a hostile path or cookie is made of: encodings cut short, overlong and invalid UTF-8,
  // separators, dot segments, NUL, and raw bytes above 0x7f.
  const piece = fc.oneof(
    fc.constantFrom('%', '%E0', '%A4', '%A', '%zz', '%00', '%2F', '%2e%2e', '%C0%AF', '%FF', '/', '//', '..', '.', '?', '#', ';', '=', ',', '[', ']', '\\', 'graphql', 'auth', 'session', 'occ_session'),
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,6}$/),
    fc.integer({ min: 0x21, max: 0xff }).map((b) => String.fromCharCode(b)),
  );
  const hostile = fc.array(piece, { minLength: 1, maxLength: 12 }).map((parts) => parts.join(''));

  it('P4: generated paths and cookie headers never answer 500', async () => {
    const app = await startApp();
    await fc.assert(
      fc.asyncProperty(hostile, hostile, fc.constantFrom('GET', 'POST', 'DELETE'), async (pathTail, cookieValue, method) => {
        const cookie = `occ_session=${cookieValue.replace(/[\r\n]/g, '')}`;
        const body = method === 'POST' ? '{"query":"{ viewer { id } }"}' : '';
        for (const target of [`/${pathTail}`, '/graphql', '/auth/session']) {
          const res = await raw(
            app.port,
            `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          );
          expect(res.status, `${method} ${JSON.stringify(target)} with ${JSON.stringify(cookie)}`).toBeGreaterThanOrEqual(200);
          expect(res.status, `${method} ${JSON.stringify(target)} with ${JSON.stringify(cookie)}`).toBeLessThan(500);
        }
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 120_000);
});
