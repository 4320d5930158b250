// The worker thread of embedded-postgres.ts (`thread: true`): opens PGlite on the data folder and
// serves it on the Unix socket it is given, says so, and closes both when told. PGlite executes
// every statement synchronously in WebAssembly; here that work runs beside the product's event
// loop instead of in its turns, and at start-up it opens while the product loads its modules.

import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface PostgresThreadData {
  dataDir: string;
  socketPath: string;
  maxConnections: number;
}

type FromPostgresThread = { type: 'ready' } | { type: 'failed'; message: string } | { type: 'closed' };

const port = parentPort;
if (!port) throw new Error('embedded-postgres-thread.ts runs as a worker thread (embedded-postgres.ts starts it)');
const options = workerData as PostgresThreadData;
const say = (message: FromPostgresThread) => port.postMessage(message);
// PGlite's own errors name files and settings, never a row (no statement has run yet).
const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error));

let db: PGlite | undefined;
let server: PGLiteSocketServer | undefined;
try {
  db = new PGlite(options.dataDir);
  await db.waitReady;
  server = new PGLiteSocketServer({ db, path: options.socketPath, maxConnections: options.maxConnections });
  await server.start();
  say({ type: 'ready' });
} catch (error) {
  await db?.close().catch(() => undefined);
  say({ type: 'failed', message: describe(error) });
  port.close();
}

port.on('message', (message: { type: string }) => {
  if (message.type !== 'close') return;
  void (async () => {
    try {
      await server?.stop();
      await db?.close();
      say({ type: 'closed' });
    } catch (error) {
      say({ type: 'failed', message: describe(error) });
    } finally {
      port.close();
    }
  })();
});
