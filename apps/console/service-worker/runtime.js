// The console's service worker (registered by components/layout/ServiceWorker.tsx; built into
// out/sw.js by build.mjs after MANIFEST and the functions of policy.mjs). It keeps the console
// whole when the server cannot be reached: a reload or a link opened while the API is down still
// shows the frame and each region's error with "Try again", instead of the browser's error page.
//
// - install: stores every page and file of this build (MANIFEST) in a cache named by its version;
// - activate: deletes the caches of earlier builds and takes over the open pages;
// - fetch: strategyFor decides; GraphQL, the session and the audit export are never touched.
/* global MANIFEST, strategyFor, routeKey */

const CACHE = `occ-console-${MANIFEST.version}`;
const MATCH = { ignoreVary: true, ignoreSearch: true };

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // "no-cache": revalidated, so a page the HTTP cache held from an earlier build is not stored as this one's.
      await cache.addAll([...MANIFEST.pages, ...MANIFEST.files].map((path) => new Request(path, { cache: 'no-cache' })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith('occ-console-') && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  const strategy = strategyFor({ method: event.request.method, url, origin: self.location.origin, mode: event.request.mode }, MANIFEST);
  if (strategy === 'pass') return;
  event.respondWith(answer(strategy, event.request, url));
});

async function answer(strategy, request, url) {
  const cache = await caches.open(CACHE);
  if (strategy === 'cache-first') return (await cache.match(url.pathname, MATCH)) ?? fetch(request);
  try {
    return await fetch(request);
  } catch (error) {
    const stored = await cache.match(strategy === 'page' ? routeKey(url.pathname, MANIFEST) : url.pathname, MATCH);
    if (stored) return stored;
    throw error;
  }
}
