import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript modules of the build (no declarations)
import { manifestOf, workerSource } from '../service-worker/build.mjs';
// @ts-expect-error plain JavaScript modules of the build (no declarations)
import { routeKey, strategyFor } from '../service-worker/policy.mjs';

// The console's service worker keeps the console's own pages and files for when the server cannot
// be reached, and nothing else: never a GraphQL answer, the session, the audit export, a non-GET
// or another origin's request. Its manifest comes from the static export; its decisions are a pure
// function (policy.mjs) checked here over a matrix of requests. The browser side (install, the
// frame shown with the network cut) is e2e/tests/offline-service-worker.spec.ts.

interface Manifest {
  version: string;
  pages: string[];
  files: string[];
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function fakeExport(files: Record<string, string>): string {
  const out = mkdtempSync(path.join(tmpdir(), 'sw-export-'));
  dirs.push(out);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(out, name)), { recursive: true });
    writeFileSync(path.join(out, name), content);
  }
  return out;
}

const EXPORT = {
  'index.html': '<html>home</html>',
  'secrets.html': '<html>secrets</html>',
  'selfconfig.html': '<html>selfconfig</html>',
  'selfconfig/approvals.html': '<html>approvals</html>',
  '404.html': '<html>404</html>',
  'secrets.txt': 'rsc',
  'secrets/__next.secrets.__PAGE__.txt': 'segment',
  '_next/static/chunks/app-1a2b.js': 'js',
  '_next/static/css/site.css': 'css',
  'favicon.svg': '<svg/>',
  // Never listed: compressed twins, source maps, the worker itself.
  'secrets.html.br': 'x',
  'secrets.html.gz': 'x',
  '_next/static/chunks/app-1a2b.js.map': 'x',
  'sw.js': 'old worker',
};

describe('the service worker’s manifest (service-worker/build.mjs)', () => {
  it('lists every page by its route and every other file by its path, and nothing else', () => {
    const manifest: Manifest = manifestOf(fakeExport(EXPORT));
    expect(manifest.pages.sort()).toEqual(['/', '/404', '/secrets', '/selfconfig', '/selfconfig/approvals']);
    expect(manifest.files.sort()).toEqual(['/_next/static/chunks/app-1a2b.js', '/_next/static/css/site.css', '/favicon.svg', '/secrets.txt', '/secrets/__next.secrets.__PAGE__.txt']);
  });

  it('has a version that changes with any listed file’s content or name, and with nothing else', () => {
    const base = manifestOf(fakeExport(EXPORT)).version;
    expect(manifestOf(fakeExport(EXPORT)).version).toBe(base);
    for (const name of Object.keys(EXPORT)) {
      const changed = manifestOf(fakeExport({ ...EXPORT, [name]: `${EXPORT[name as keyof typeof EXPORT]} changed` })).version;
      const listed = !/\.(br|gz|map)$|(^|\/)sw\.js$/.test(name);
      expect(changed !== base, name).toBe(listed);
    }
    expect(manifestOf(fakeExport({ ...EXPORT, 'users.html': '<html>users</html>' })).version).not.toBe(base);
  });

  it('builds a worker that parses and runs its policy, with no module syntax left', () => {
    const manifest: Manifest = manifestOf(fakeExport(EXPORT));
    const source: string = workerSource(manifest);
    expect(source).not.toMatch(/^export /m);
    const listeners: Record<string, unknown> = {};
    const self = { addEventListener: (type: string, fn: unknown) => (listeners[type] = fn), location: { origin: 'https://occ.example' } };
    const context = { self, caches: {}, URL, Request: class {}, console };
    runInNewContext(`${source}\nthis.result = { strategyFor, routeKey, MANIFEST, CACHE };`, context);
    const result = (context as unknown as { result: { strategyFor: typeof strategyFor; MANIFEST: Manifest; CACHE: string } }).result;
    expect(Object.keys(listeners).sort()).toEqual(['activate', 'fetch', 'install']);
    expect(result.MANIFEST).toEqual(manifest);
    expect(result.CACHE).toBe(`occ-console-${manifest.version}`);
    expect(result.strategyFor({ method: 'GET', url: new URL('https://occ.example/secrets?namespace=ns_1'), origin: 'https://occ.example', mode: 'navigate' }, manifest)).toBe('page');
  });
});

describe('what the service worker does with a request (service-worker/policy.mjs)', () => {
  const manifest: Manifest = { version: 'v', pages: ['/', '/404', '/secrets', '/selfconfig', '/selfconfig/approvals'], files: ['/_next/static/chunks/app.js', '/secrets.txt', '/favicon.svg'] };
  const origin = 'https://occ.example';
  const API = ['/graphql', '/graphql/stream', '/auth/session', '/audit/events.ndjson', '/healthz', '/readyz', '/sw.js', '/webhooks/selfconfig', '/no/such/page'];
  const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'];
  const MODES = ['navigate', 'cors', 'same-origin', 'no-cors'];
  const ORIGINS = [origin, 'https://other.example', 'http://occ.example'];
  const KNOWN = [...manifest.pages, ...manifest.files, '/secrets/', '/secrets.html', '/index.html', '/selfconfig/approvals/'];

  it('P2 keeps nothing but the console’s own files: every API path, method, mode and origin passes through', () => {
    let cases = 0;
    for (const p of [...API, ...KNOWN]) {
      for (const method of METHODS) {
        for (const mode of MODES) {
          for (const o of ORIGINS) {
            for (const search of ['', '?namespace=ns_1', '?query=%7B%7D']) {
              const strategy = strategyFor({ method, url: new URL(`${o}${p}${search}`), origin, mode }, manifest);
              cases++;
              const own = method === 'GET' && o === origin;
              if (!own || API.includes(p)) {
                expect(strategy, `${method} ${o}${p}${search} ${mode}`).toBe('pass');
                continue;
              }
              if (mode === 'navigate') expect(strategy, `${p} ${mode}`).toBe(routeKey(p, manifest) ? 'page' : 'pass');
              else if (p.startsWith('/_next/static/')) expect(strategy).toBe('cache-first');
              else expect(strategy, `${p} ${mode}`).toBe(manifest.files.includes(p) ? 'network-first' : 'pass');
            }
          }
        }
      }
    }
    expect(cases).toBe((API.length + KNOWN.length) * METHODS.length * MODES.length * ORIGINS.length * 3);
  });

  it('never answers a path outside the manifest, for generated paths', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const parts = ['graphql', 'auth', 'session', 'audit', 'secrets', 'x', '_next', 'static', '..', '%2e', 'index', 'sw.js', 'events.ndjson', ''];
    for (let i = 0; i < 2_000; i++) {
      const p = `/${Array.from({ length: 1 + random(4) }, () => parts[random(parts.length)]).join('/')}`;
      const url = new URL(`${origin}${p}`);
      for (const mode of MODES) {
        const strategy = strategyFor({ method: 'GET', url, origin, mode }, manifest);
        if (strategy === 'pass') continue;
        const key = mode === 'navigate' ? routeKey(url.pathname, manifest) : url.pathname;
        expect(mode === 'navigate' ? manifest.pages : manifest.files, `${p} ${mode}`).toContain(key);
      }
    }
  });

  it('maps a navigation to the page that answers it: trailing slash, .html and index are the same page', () => {
    expect(routeKey('/', manifest)).toBe('/');
    expect(routeKey('/index.html', manifest)).toBe('/');
    expect(routeKey('/secrets/', manifest)).toBe('/secrets');
    expect(routeKey('/secrets.html', manifest)).toBe('/secrets');
    expect(routeKey('/selfconfig/approvals/', manifest)).toBe('/selfconfig/approvals');
    expect(routeKey('/graphql', manifest)).toBeNull();
    expect(routeKey('/secrets/x', manifest)).toBeNull();
  });
});
