import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** Serves the console's static export: /x → x.html or x/index.html; unknown paths → 404.html. */
export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const rel = path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.(\/|\\|$))+/, '');
  const base = path.join(root, rel);
  if (!base.startsWith(root)) {
    res.writeHead(400).end();
    return;
  }
  const candidates = [base, `${base}.html`, path.join(base, 'index.html')];
  for (const file of candidates) {
    if (await isFile(file)) {
      const immutable = rel.startsWith('/_next/static/');
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      createReadStream(file).pipe(res);
      return;
    }
  }
  const notFound = path.join(root, '404.html');
  if (await isFile(notFound)) {
    res.writeHead(404, { 'content-type': TYPES['.html']! });
    createReadStream(notFound).pipe(res);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found. (Is the console built? Expected files in ${root})`);
}
