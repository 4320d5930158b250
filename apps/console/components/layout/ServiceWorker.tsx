'use client';

import { useEffect } from 'react';

// Registers the console's service worker (service-worker/runtime.js, built into out/sw.js), which
// keeps the console's own pages and files so that a reload or a link opened while the server is
// unreachable still shows the frame and each region's error. Where the browser has service
// workers; a refusal (no sw.js under `next dev`, a private window, a policy) leaves the console as
// it is without one.
export function ServiceWorker() {
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
  }, []);
  return null;
}
