import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

// The embedded default: PGlite (PostgreSQL 17 in Wasm) served on loopback by pglite-socket, so the
// product and Prisma's migrations use the same node-postgres code path as with a real server.
// PGlite runs one session; pglite-socket queues queries and keeps a transaction's queries on the
// connection that opened it, so other connections wait until it ends.
export interface EmbeddedPostgres {
  url: string;
  close(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Data directory; omitted means in memory (tests). */
  dataDir?: string;
  host?: string;
  port?: number;
  /** Must cover the pool sizes of every client (the app's pool plus the migration run). */
  maxConnections?: number;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const db = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
  await db.waitReady;
  const host = options.host ?? '127.0.0.1';
  const server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: options.maxConnections ?? 32 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    url: `postgresql://postgres@${host}:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
