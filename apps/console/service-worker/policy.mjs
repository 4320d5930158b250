// What the console's service worker does with one request: a pure function of the request and the
// build's manifest, so that it is tested without a browser (test/service-worker.test.ts) and the
// worker (runtime.js) holds no decision of its own. build.mjs copies this file into out/sw.js.
//
// The worker keeps the console's own files only: the pages and the files of the static export
// (the manifest lists them, built from out/). GraphQL, the session, the audit export, anything not
// GET, anything of another origin passes through untouched: nothing a user reads or types is ever
// stored by it.

/**
 * The page a navigation to `pathname` is answered with when the network fails: `/agents/`,
 * `/agents.html` and `/agents` are all `/agents`; null when the console has no such page.
 */
export function routeKey(pathname, manifest) {
  let key = pathname.replace(/\/+$/, '').replace(/\.html$/, '').replace(/\/index$/, '');
  if (key === '') key = '/';
  return manifest.pages.includes(key) ? key : null;
}

/**
 * `pass` (the browser's own handling), `page` (a navigation: the network first, the cached page
 * on failure), `cache-first` (build assets, named by their content hash: never changed under one
 * name) or `network-first` (the export's other files: route payloads, the icon).
 */
export function strategyFor(request, manifest) {
  if (request.method !== 'GET' || request.url.origin !== request.origin) return 'pass';
  const path = request.url.pathname;
  if (request.mode === 'navigate') return routeKey(path, manifest) ? 'page' : 'pass';
  if (!manifest.files.includes(path)) return 'pass';
  return path.startsWith('/_next/static/') ? 'cache-first' : 'network-first';
}
