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

/** Tries per file before an install gives up (the page registers the worker again on its next load), with pauses of 0.5, 1, 2 and 4 s. */
const ATTEMPTS = 5;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // One file that fails once (a dropped connection, a busy server) does not cost the whole install.
      try {
        await Promise.all([...MANIFEST.pages, ...MANIFEST.files].map((path) => store(cache, path)));
      } catch (error) {
        // A failed install keeps nothing: the next one starts from an empty cache of this version.
        await caches.delete(CACHE);
        throw error;
      }
      await self.skipWaiting();
    })(),
  );
});

/** Fetches one file of this build and stores it, retrying a failure after a short pause. */
async function store(cache, path) {
  for (let attempt = 1; ; attempt++) {
    try {
      // "no-cache": revalidated, so a page the HTTP cache held from an earlier build is not stored as this one's.
      const response = await fetch(new Request(path, { cache: 'no-cache' }));
      if (!response.ok) throw new Error(`${path} answered ${response.status}`);
      return await cache.put(path, response);
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

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
