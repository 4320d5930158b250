import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { committedMigrations, MIGRATIONS_DIR } from '../db/migrate.ts';
import { dropDatabase, recreateDatabase, testDatabaseMode } from './database.ts';

// A migration's backfill, tested as it runs on an upgrade: a new database gets the migrations
// before it as plain SQL, the test writes rows as the old schema held them, then runs it.

const sql = (migration: string) => readFile(path.join(MIGRATIONS_DIR, migration, 'migration.sql'), 'utf8');

/** Registers the database's removal after the file's tests; `run` gets a client and the migration to call when its old rows are written. */
export function backfillDatabase(migration: string, name: string) {
  afterAll(() => (testDatabaseMode() === 'postgres' ? dropDatabase(process.env.DATABASE_URL!, name) : undefined));
  return async (run: (client: pg.Client, migrate: () => Promise<unknown>) => Promise<void>): Promise<void> => {
    const migrations = await committedMigrations();
    const at = migrations.indexOf(migration);
    if (at <= 0) throw new Error(`${migration} is not a committed migration after the first`);
    const client = new pg.Client({ connectionString: await recreateDatabase(process.env.DATABASE_URL!, name) });
    await client.connect();
    try {
      for (const m of migrations.slice(0, at)) await client.query(await sql(m));
      await run(client, async () => client.query(await sql(migration)));
    } finally {
      await client.end();
    }
  };
}
