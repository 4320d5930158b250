import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { REPO_ROOT } from '../env.ts';

// Test databases. With DATABASE_URL (CI, and these machines) each test file gets its own
// database cloned from a template that the global setup migrated with `prisma migrate deploy`.
// Without it, or with TEST_DATABASE=pglite, each file gets an in-memory PGlite that the runtime
// starts, with the committed migration SQL applied directly.

/** Each test run migrates its own template (named by the global setup), so concurrent runs never share one. */
export function templateDatabaseName(runId: string): string {
  return `occ_test_template_${runId}`;
}

export { repeatsOnSecondDatabase, testDatabaseMode } from './database-mode.ts';

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createDatabaseFromTemplate(serverUrl: string, template: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `occ_test_${randomBytes(6).toString('hex')}`;
  // PostgreSQL refuses to copy a template while another session is connected to it, which a
  // parallel test file's CREATE DATABASE … TEMPLATE briefly is (SQLSTATE 55006): retry.
  for (let attempt = 1; ; attempt++) {
    try {
      await admin(serverUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 150));
    }
  }
  return {
    url: withDatabase(serverUrl, name),
    drop: () => admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function recreateDatabase(serverUrl: string, name: string): Promise<string> {
  await admin(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${name}"`);
  });
  return withDatabase(serverUrl, name);
}

/** The committed migrations' SQL, in order. */
async function migrationSql(): Promise<string[]> {
  const dir = path.join(REPO_ROOT, 'prisma/migrations');
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(entries.map((entry) => readFile(path.join(dir, entry, 'migration.sql'), 'utf8')));
}

/** Applies prisma/migrations/*\/migration.sql in order (the fast path for in-memory PGlite). */
/** A PGlite data-folder image with every committed migration applied (the PGlite runs' template). */
export async function migratedPgliteImage(): Promise<Blob> {
  const db = new PGlite();
  try {
    for (const sql of await migrationSql()) await db.exec(sql);
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}
