import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { startRuntime } from '../runtime.ts';
import { dropDatabase, recreateDatabase, testDatabaseMode } from '../test/database.ts';
import { waitFor } from '../test/operations.ts';
import { committedMigrations, MIGRATION_LOCK_KEY, MIGRATIONS_DIR, migrateDatabase, migrateDeploy, NOTHING_TO_MIGRATE, nothingToMigrate, SchemaBehindError } from './migrate.ts';

const logger = createLogger(() => {}, 'error');
const dirs: string[] = [];
const databases: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  for (const name of databases) await dropDatabase(process.env.DATABASE_URL!, name);
});

async function freshDatabase(): Promise<string> {
  const name = `occ_test_r2_${process.pid}_${databases.length}`;
  databases.push(name);
  return recreateDatabase(process.env.DATABASE_URL!, name);
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function appliedMigrations(client: pg.Client): Promise<string[] | null> {
  const exists = (await client.query<{ t: string | null }>(`SELECT to_regclass('_prisma_migrations')::text AS t`)).rows[0]?.t;
  if (!exists) return null;
  return (await client.query<{ m: string }>('SELECT migration_name AS m FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1')).rows.map((r) => r.m);
}

describe('R2 migrations', () => {
  // Seen on 20261206060000: "syntax error at or near "a"" from `migrate deploy`, for a comment that
  // read "… writes; a row …". The engine cuts the script at every semicolon, comments included, and
  // runs what follows as SQL; psql, which knows comments, ran the same file.
  it('R2 no committed migration has a semicolon inside a -- comment (the migration engine cuts the script there)', async () => {
    const found: string[] = [];
    for (const name of await committedMigrations()) {
      const lines = (await readFile(path.join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8')).split('\n');
      lines.forEach((line, i) => {
        const comment = line.indexOf('--');
        if (comment >= 0 && line.slice(comment).includes(';')) found.push(`${name}:${i + 1}`);
      });
    }
    expect(found).toEqual([]);
  });

  // PGlite is one PostgreSQL session whatever the number of sockets, so an advisory lock never
  // makes a second connection wait there: the lock is only observable on a real server.
  it.runIf(testDatabaseMode() === 'postgres')(
    'R2 db:migrate runs under the migration advisory lock: while another session holds it nothing is applied; then every committed migration is, and the lock is released (PostgreSQL only: PGlite has one session)',
    async () => {
      const url = await freshDatabase();
      await withClient(url, async (holder) => {
        await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
        const run = migrateDatabase(url);
        let settled = false;
        void run.finally(() => (settled = true)).catch(() => {});
        // The run is waiting for the lock: PostgreSQL shows its ungranted advisory lock request.
        await waitFor(
          async () =>
            settled ||
            Number((await holder.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0].n) === 1,
          'the migration run to wait for the lock',
        );
        expect(settled).toBe(false);
        expect(await appliedMigrations(holder)).toBeNull();
        await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
        await run;
        expect(await appliedMigrations(holder)).toEqual(await committedMigrations());
        // Released at the end of the run: another session takes it at once.
        expect((await holder.query('SELECT pg_try_advisory_lock($1) AS got', [MIGRATION_LOCK_KEY.toString()])).rows[0].got).toBe(true);
      });
    },
    120_000,
  );

  it('R2 a replica refuses to serve on an older schema, naming every missing migration, and starts once the migrations are applied', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'occ-r2-'));
    dirs.push(dataDir);
    const committed = await committedMigrations();
    if (testDatabaseMode() === 'postgres') {
      const url = await freshDatabase();
      const env = { dataDir, databaseUrl: url, kubeconfig: null, migrateAtStart: false };
      const refused = await startRuntime({ env, logger, inMemory: true }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SchemaBehindError);
      expect((refused as SchemaBehindError).missing).toEqual(committed);
      for (const name of committed) expect((refused as Error).message).toContain(name);
      // Nothing was created on the old schema.
      expect(await withClient(url, appliedMigrations)).toBeNull();

      // One migration behind: that one is named.
      await migrateDatabase(url);
      const last = committed[committed.length - 1]!;
      const record = await withClient(url, async (c) => {
        const row = (await c.query('SELECT * FROM _prisma_migrations WHERE migration_name = $1', [last])).rows[0];
        await c.query('DELETE FROM _prisma_migrations WHERE migration_name = $1', [last]);
        return row as Record<string, unknown>;
      });
      const behind = await startRuntime({ env, logger, inMemory: true }).catch((e: unknown) => e);
      expect(behind).toBeInstanceOf(SchemaBehindError);
      expect((behind as SchemaBehindError).missing).toEqual([last]);
      await withClient(url, (c) => {
        const columns = Object.keys(record);
        return c.query(`INSERT INTO _prisma_migrations (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(record));
      });
      const runtime = await startRuntime({ env, logger, inMemory: true });
      await runtime.close();
    } else {
      // The embedded database, told not to migrate at start: an empty schema is refused.
      const refused = await startRuntime({ env: { dataDir, databaseUrl: null, kubeconfig: null, migrateAtStart: false }, logger, inMemory: true }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SchemaBehindError);
      expect((refused as SchemaBehindError).missing).toEqual(committed);
    }
  }, 120_000);

  // A start of an installation that is current skips Prisma's CLI (about 12 s, 10 of them waiting on
  // its engine's timer); anything the CLI would act on or report still reaches it.
  it.runIf(testDatabaseMode() === 'postgres')(
    'R2 migrate deploy is skipped exactly when it has nothing to do: a fresh database runs it, a current one does not (PostgreSQL only)',
    async () => {
      const url = await freshDatabase();
      let runs = 0;
      const counted = (u: string) => {
        runs++;
        return migrateDeploy(u);
      };
      expect(await migrateDatabase(url, counted)).toMatch(/migrations have been successfully applied/);
      expect(runs).toBe(1);
      expect(await migrateDatabase(url, counted)).toBe(NOTHING_TO_MIGRATE);
      expect(runs).toBe(1);
      // The CLI agrees: run anyway, it finds nothing to apply.
      expect(await migrateDeploy(url)).toMatch(/No pending migrations to apply/);
    },
    120_000,
  );

  it.runIf(testDatabaseMode() === 'postgres')(
    'R2 every state but "all applied, unchanged" runs the CLI: a migration missing, edited, half-applied, rolled back, unknown to the build, or not yet applied (PostgreSQL only)',
    async () => {
      const url = await freshDatabase();
      await migrateDatabase(url);
      const dir = await mkdtemp(path.join(tmpdir(), 'occ-r2-migrations-'));
      dirs.push(dir);
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      const committed = await committedMigrations(dir);
      const last = committed[committed.length - 1]!;
      const cases: Array<{ state: string; change(c: pg.Client): Promise<void>; undo?(): Promise<void> }> = [
        { state: 'all applied, unchanged', change: async () => {} },
        { state: 'one applied row missing', change: async (c) => void (await c.query('DELETE FROM _prisma_migrations WHERE migration_name = $1', [last])) },
        { state: 'half-applied (started, not finished)', change: async (c) => void (await c.query('UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1', [last])) },
        { state: 'rolled back', change: async (c) => void (await c.query('UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = $1', [committed[0]])) },
        {
          state: 'applied by a newer build (unknown here)',
          change: async (c) =>
            void (await c.query(`INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('x', 'x', '29991231000000_newer', now(), now(), 1)`)),
        },
        {
          state: 'a committed migration edited after it was applied',
          change: async () => appendFile(path.join(dir, last, 'migration.sql'), '\n-- edited\n'),
          undo: async () => cp(path.join(MIGRATIONS_DIR, last, 'migration.sql'), path.join(dir, last, 'migration.sql')),
        },
        {
          state: 'a committed migration not yet applied',
          change: async () => {
            await mkdir(path.join(dir, '29991231000001_next'));
            await writeFile(path.join(dir, '29991231000001_next', 'migration.sql'), 'SELECT 1;\n');
          },
          undo: async () => rm(path.join(dir, '29991231000001_next'), { recursive: true }),
        },
      ];
      const answers: Record<string, boolean> = {};
      await withClient(url, async (c) => {
        for (const { state, change, undo } of cases) {
          await c.query('BEGIN');
          try {
            await change(c);
            answers[state] = await nothingToMigrate(c, dir);
          } finally {
            await c.query('ROLLBACK');
            await undo?.();
          }
        }
      });
      expect(answers).toEqual(Object.fromEntries(cases.map(({ state }) => [state, state === 'all applied, unchanged'])));
      // No table at all: a new database.
      await withClient(await freshDatabase(), async (c) => expect(await nothingToMigrate(c, dir)).toBe(false));
    },
    120_000,
  );
});
