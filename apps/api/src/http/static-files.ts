import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the console's static export: /x → x, x.html or x/index.html; unknown paths → 404.html.
 * `decodedPath` is the request path already percent-decoded (request-target.ts), so nothing here
 * can throw on a malformed encoding. An HTML page gets its own CSP (its inline scripts' hashes).
 */
export async function serveStatic(
  root: string,
  decodedPath: string,
  pagePolicies: ReadonlyMap<string, string>,
  res: ServerResponse,
): Promise<void> {
  const rel = path.normalize(decodedPath).replace(/^(\.\.(\/|\\|$))+/, '');
  const base = path.join(root, rel);
  if (!base.startsWith(root)) {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'BAD_PATH', message: 'The path leaves the console.' }));
    return;
  }
  const candidates = [base, `${base}.html`, path.join(base, 'index.html')];
  for (const file of candidates) {
    if (await isFile(file)) {
      const immutable = rel.startsWith('/_next/static/');
      const policy = pagePolicies.get(file);
      if (policy) res.setHeader('content-security-policy', policy);
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      createReadStream(file).pipe(res);
      return;
    }
  }
  const notFound = path.join(root, '404.html');
  if (await isFile(notFound)) {
    const policy = pagePolicies.get(notFound);
    if (policy) res.setHeader('content-security-policy', policy);
    res.writeHead(404, { 'content-type': TYPES['.html']! });
    createReadStream(notFound).pipe(res);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found. (Is the console built? Expected files in ${root})`);
}
