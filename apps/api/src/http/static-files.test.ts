import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../env.ts';
import { consolePagePolicies, SERVICE_WORKER_CSP, WORKER_SCRIPT_CSP } from './security-headers.ts';
import { staticFiles } from './static-files.ts';

// The console's files through sirv, on an export made here, given its service worker and
// precompressed by the console's own build steps (apps/console/service-worker/build.mjs,
// apps/console/scripts/precompress.mjs).

const INLINE = 'self.__next_f=self.__next_f||[];self.__next_f.push([0])';
const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const page = (title: string, script: string) => `<!DOCTYPE html><html><head><title>${title}</title></head><body>${'<p>console</p>'.repeat(200)}<script>${script}</script><script src="/_next/static/chunks/app.js"></script></body></html>`;
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'occ-static-'));
  mkdirSync(path.join(root, '_next/static/chunks'), { recursive: true });
  mkdirSync(path.join(root, 'secrets'));
  writeFileSync(path.join(root, 'index.html'), page('home', INLINE));
  writeFileSync(path.join(root, 'secrets.html'), page('secrets', 'window.secretsPage=1'));
  writeFileSync(path.join(root, '404.html'), page('404', 'window.notFound=1'));
  writeFileSync(path.join(root, '_next/static/chunks/app.js'), SCRIPT);
  writeFileSync(path.join(root, '_next/static/chunks/turbopack-worker-abc123.js'), 'importScripts("/_next/static/chunks/app.js")');
  writeFileSync(path.join(root, 'tiny.txt'), 'small');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'apps/console/service-worker/build.mjs'), root]);
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'apps/console/scripts/precompress.mjs'), root]);
  const serve = staticFiles(root, consolePagePolicies(root));
  // As server.ts does: every response starts with the API's strict default policy, which a page's
  // own policy replaces.
  server = createServer((req, res) => {
    res.setHeader('content-security-policy', "default-src 'none'");
    serve(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

/** node:http, not fetch: fetch would decode the body and hide Content-Encoding's effect. */
function get(urlPath: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${urlPath}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console\'s static files (sirv)', () => {
  it('P2 each page is served with its own CSP, holding its inline scripts\' hashes, in every encoding', async () => {
    for (const encoding of ['br', 'gzip', 'identity']) {
      const home = await get('/', { 'accept-encoding': encoding });
      expect(home.status).toBe(200);
      expect(home.headers['content-security-policy']).toContain(sha(INLINE));
      expect(home.headers['content-type']).toMatch(/^text\/html/);
      const secrets = await get('/secrets', { 'accept-encoding': encoding });
      expect(secrets.status).toBe(200);
      expect(secrets.headers['content-security-policy']).toContain(sha('window.secretsPage=1'));
      expect(secrets.headers['content-security-policy']).not.toContain(sha(INLINE));
    }
    const missing = await get('/no/such/page');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-security-policy']).toContain(sha('window.notFound=1'));
  });

  it('P2 the service worker is served as a script with its own CSP (fetches from this origin only), revalidated, in every encoding', async () => {
    for (const encoding of ['br', 'gzip', 'identity']) {
      const worker = await get('/sw.js', { 'accept-encoding': encoding });
      expect(worker.status).toBe(200);
      expect(worker.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      // The API's default-src 'none' would stand for connect-src too: the worker could fetch nothing.
      expect(worker.headers['content-security-policy']).toBe(SERVICE_WORKER_CSP);
      expect(SERVICE_WORKER_CSP).toContain("connect-src 'self'");
      expect(worker.headers['cache-control']).toBe('no-cache');
      const body = encoding === 'br' ? brotliDecompressSync(worker.body) : encoding === 'gzip' ? gunzipSync(worker.body) : worker.body;
      expect(body.toString()).toContain('"pages":["/404","/","/secrets"]');
    }
    // Any other script keeps the API's policy.
    expect((await get('/_next/static/chunks/app.js')).headers['content-security-policy']).toBe("default-src 'none'");
  });

  it('P2 a dedicated worker’s entry script may load this origin’s scripts, and only that', async () => {
    const worker = await get('/_next/static/chunks/turbopack-worker-abc123.js');
    expect(worker.status).toBe(200);
    expect(worker.headers['content-security-policy']).toBe(WORKER_SCRIPT_CSP);
    expect(WORKER_SCRIPT_CSP).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(WORKER_SCRIPT_CSP).not.toContain('connect-src');
  });

  it('serves the brotli or gzip file the build wrote, by Accept-Encoding, and the plain one otherwise', async () => {
    const br = await get('/_next/static/chunks/app.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(br.body.length).toBeLessThan(SCRIPT.length / 10);
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.headers['content-type']).toMatch(/^text\/javascript/);
    const gz = await get('/_next/static/chunks/app.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const plain = await get('/_next/static/chunks/app.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    // Too small to gain: no copies written, the file itself is sent.
    expect((await get('/tiny.txt', { 'accept-encoding': 'br' })).headers['content-encoding']).toBeUndefined();
  });

  it('answers HEAD without a body, and a matching If-None-Match with 304; hashed build assets are immutable, pages revalidate', async () => {
    const head = await get('/secrets', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    const first = await get('/secrets');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await get('/secrets', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await get('/_next/static/chunks/app.js')).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  // A browser merges a 304's headers into the page it cached (RFC 9111 4.3.4), so a 304 that
  // carries other headers than the 200 changes the page on its next visit: a 304 with the API's
  // default CSP blanked every revisited console page (CI, stop 15). Every file of the export, by
  // every name it answers to, in every encoding.
  it('P2 a 304 carries the same CSP, Cache-Control and Vary as the 200 it revalidates, for every file, name and encoding', async () => {
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile() && !/\.(br|gz)$/.test(f.name))
      .map((f) => `/${path.relative(root, path.join(f.parentPath, f.name)).split(path.sep).join('/')}`);
    const names = files.flatMap((f) => (f.endsWith('/index.html') ? [f, f.slice(0, -'index.html'.length)] : f.endsWith('.html') ? [f, f.slice(0, -5)] : [f]));
    expect(names).toEqual(expect.arrayContaining(['/', '/secrets', '/404', '/_next/static/chunks/app.js', '/tiny.txt']));
    const compared = ['content-security-policy', 'cache-control', 'vary'] as const;
    for (const name of names) {
      for (const encoding of ['br', 'gzip', 'identity']) {
        const first = await get(name, { 'accept-encoding': encoding });
        expect(first.status, name).toBe(200);
        const again = await get(name, { 'accept-encoding': encoding, 'if-none-match': first.headers.etag as string });
        expect(again.status, `${name} ${encoding}`).toBe(304);
        for (const header of compared) expect(again.headers[header], `${header} of ${name} (${encoding})`).toEqual(first.headers[header]);
      }
    }
  });

  it('never leaves the export: traversal and encoded traversal are 404', async () => {
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/_next/../../etc/passwd']) expect((await get(p)).status, p).toBe(404);
  });
});
