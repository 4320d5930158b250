// The floor startup.bench.ts compares `npm start` with: a bare PGlite opened on the same data folder
// the product uses, served by pglite-socket on a Unix socket as the product serves it, and an HTTP
// server listening; plain Node, no TypeScript loader, nothing else. Prints `listening` when both
// answer. Not a bench itself (the runner takes only *.bench.ts). Usage: node startup-bare.mjs <pglite
// data folder> <socket folder>
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const [dataDir, socketDir] = process.argv.slice(2);
if (!dataDir || !socketDir) {
  process.stderr.write('usage: node startup-bare.mjs <pglite data folder> <socket folder>\n');
  process.exit(2);
}
const db = new PGlite(dataDir);
await db.waitReady;
await db.query('SELECT 1');
const socketPath = path.join(socketDir, '.s.PGSQL.5432');
// A socket file an earlier run left behind (its SIGINT can come before pglite-socket unlinks it)
// is removed first, as the product's clearStaleSocket does; else listen fails with EADDRINUSE.
await rm(socketPath, { force: true });
const sockets = new PGLiteSocketServer({ db, path: socketPath });
// pglite-socket leaves start() pending when listen fails after it began: fail with the error instead.
await new Promise((resolve, reject) => {
  sockets.addEventListener('error', (event) => reject(event.detail), { once: true });
  sockets.start().then(resolve, reject);
});
const http = createServer((_req, res) => res.end('ok'));
await new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(undefined)));
process.stdout.write('listening\n');
const stop = async () => {
  http.close();
  await sockets.stop();
  await db.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
