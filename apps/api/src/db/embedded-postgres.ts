import { mkdir, mkdtemp, rm, unlink } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { threadConversation, workerModule } from '@occ/kube-emulator/thread';
import type { PostgresThreadData } from './embedded-postgres-thread.ts';

// The embedded default: PGlite (PostgreSQL 17 in Wasm) served by pglite-socket, so the product and
// Prisma's migrations use the same node-postgres code path as with a real server. PGlite runs one
// session; pglite-socket queues queries and keeps a transaction's queries on the connection that
// opened it, so other connections wait until it ends.
//
// P8: it has no password, so it listens on no TCP port: a Unix socket in a folder only this user
// may enter (the data folder's `run/`, 0700, or a fresh 0700 temporary folder when that path is
// too long for a socket or the database is in memory). Another local user can neither sign in nor
// hold a transaction that would stall the product.
export interface EmbeddedPostgres {
  url: string;
  /** The socket's path (node-postgres: host = its folder, port = the number in its name). */
  socketPath: string;
  close(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Data directory; omitted means in memory (tests). */
  dataDir?: string;
  /** The folder the socket goes in (made 0700); omitted: `<dataDir>/../run`, or a temporary one. */
  socketDir?: string;
  /** In memory only: start from this data-folder image (`PGlite.dumpDataDir`) rather than initdb. */
  image?: Blob;
  /** Must cover the pool sizes of every client (the app's pool plus the migration run). */
  maxConnections?: number;
  /**
   * With a data folder: PGlite and its socket server run on a worker thread of their own
   * (embedded-postgres-thread.ts), so its statements do not take turns of this thread's event loop.
   */
  thread?: boolean;
}

/** Linux's sun_path holds 108 bytes with its terminating NUL. */
const SOCKET_PATH_MAX = 107;
/** The name libpq and node-postgres look for in the host folder. */
const SOCKET_NAME = '.s.PGSQL.5432';

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  return (await launchEmbeddedPostgres(options)).started;
}

/**
 * startEmbeddedPostgres in two steps: resolves as soon as PGlite is starting (with `thread`, once
 * its thread exists), with the promise of it started. A caller about to load many modules waits for
 * this first: while modules load, this thread's event loop does not turn, and the steps before the
 * thread is made would wait for them.
 */
export async function launchEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<{ started: Promise<EmbeddedPostgres> }> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  let socketDir = options.socketDir ?? (options.dataDir ? path.join(path.dirname(options.dataDir), 'run') : null);
  let temporary = false;
  if (!socketDir || Buffer.byteLength(path.join(socketDir, SOCKET_NAME)) > SOCKET_PATH_MAX) {
    socketDir = await mkdtemp(path.join(tmpdir(), 'occ-pg-')); // 0700
    temporary = true;
  } else {
    await mkdir(socketDir, { recursive: true, mode: 0o700 });
  }
  const socketPath = path.join(socketDir, SOCKET_NAME);
  if (!temporary) await clearStaleSocket(socketPath);
  const maxConnections = options.maxConnections ?? 32;
  const folder = socketDir;
  const removeSocket = () => (temporary ? rm(folder, { recursive: true, force: true }) : unlink(socketPath).catch(() => {}));
  const started = (options.thread && options.dataDir ? startOnThread({ dataDir: options.dataDir, socketPath, maxConnections }) : startHere(options, socketPath, maxConnections)).then(
    (stop): EmbeddedPostgres => ({
      url: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(folder)}`,
      socketPath,
      async close() {
        await stop();
        await removeSocket();
      },
    }),
  );
  return { started };
}

/** PGlite and its socket server in this thread; returns what stops them. */
async function startHere(options: EmbeddedPostgresOptions, socketPath: string, maxConnections: number): Promise<() => Promise<void>> {
  const db = options.dataDir ? new PGlite(options.dataDir) : new PGlite(options.image ? { loadDataDir: options.image } : {});
  await db.waitReady;
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  await server.start();
  return async () => {
    await server.stop();
    await db.close();
  };
}

/** The same on a worker thread (embedded-postgres-thread.ts), made before this returns a promise; resolves to what stops it. */
function startOnThread(data: PostgresThreadData): Promise<() => Promise<void>> {
  const { url, execArgv } = workerModule(import.meta.url, 'embedded-postgres-thread');
  const worker = new Worker(url, { workerData: data, ...(execArgv ? { execArgv } : {}) });
  const thread = threadConversation<{ type: 'ready' }>(worker, 'the embedded database thread');
  return thread.ready.then(
    () => thread.close,
    async (error: unknown) => {
      await worker.terminate();
      throw error;
    },
  );
}

/**
 * A socket file left by a process that died is removed; one that answers belongs to a running
 * product on the same data folder, and two PGlite instances on one folder would corrupt it.
 */
async function clearStaleSocket(socketPath: string): Promise<void> {
  const answered = await new Promise<boolean>((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (answered) throw new Error(`Another process serves the embedded database at ${socketPath}: is \`npm start\` already running on this data folder?`);
  await unlink(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}
