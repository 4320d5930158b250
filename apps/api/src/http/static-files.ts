import { existsSync, createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import sirv from 'sirv';

// The console's static export, served by sirv: HEAD, ETag and 304, ranges, and the brotli or gzip
// file the build wrote beside each large one (apps/console/scripts/precompress.mjs), chosen by
// Accept-Encoding. /x is x, x.html or x/index.html; anything else is 404.html. Every HTML page gets
// its own CSP (its inline scripts' hashes, security-headers.ts), whichever encoding is sent.

export type StaticHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The page a request path is answered with, in sirv's order of lookup (for its CSP). */
function pageCandidates(root: string, pathname: string): string[] {
  const uri = pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return [uri, `${uri}.html`, `${uri}/index.html`].map((p) => path.join(root, p));
}

export function staticFiles(root: string, pagePolicies: ReadonlyMap<string, string>): StaticHandler {
  const notFound = path.join(root, '404.html');
  const answerNotFound = (res: ServerResponse) => {
    if (existsSync(notFound)) {
      const policy = pagePolicies.get(notFound);
      if (policy) res.setHeader('content-security-policy', policy);
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
      createReadStream(notFound).pipe(res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found. (Is the console built? Expected files in ${root})`);
  };
  // sirv lists the directory once, at start (the export does not change while the process runs).
  if (!existsSync(root)) return (_req, res) => answerNotFound(res);
  const serve = sirv(root, { dev: false, etag: true, brotli: true, gzip: true, extensions: ['html'] });
  return (req, res) => {
    // Set before sirv runs, not in its setHeaders hook: sirv answers a matching If-None-Match with
    // 304 before calling that hook, and a browser merges a 304's headers into its cached page. A 304
    // carrying the server's default CSP (default-src 'none') turned every revisited page into a blank
    // one with no script and no style (CI, stop 15).
    const pathname = requestPathname(req.url);
    if (pathname !== null) {
      // Next.js names its build assets by content hash: they never change under one name.
      res.setHeader('cache-control', pathname.startsWith('/_next/static/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      const policy = pageCandidates(root, pathname).map((p) => pagePolicies.get(p)).find(Boolean);
      if (policy) res.setHeader('content-security-policy', policy);
      // sirv sets Vary only on a 200; a 304 must name it too, or a cache may reuse the wrong encoding.
      res.setHeader('vary', 'Accept-Encoding');
    }
    serve(req, res, () => answerNotFound(res));
  };
}

/** The path of a request URL decoded as sirv decodes it; null when it cannot be decoded. */
function requestPathname(url: string | undefined): string | null {
  const raw = (url ?? '/').split('?', 1)[0]!.split('#', 1)[0]!;
  try {
    return decodeURI(raw);
  } catch {
    return null;
  }
}
