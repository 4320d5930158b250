import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../env.ts';

/**
 * R2: the one key every migration run locks (session-level pg_advisory_lock), so replicas,
 * `npm run db:migrate` and Jobs never run `prisma migrate deploy` at the same time. Prisma's own
 * engine lock only covers one run's statements; this one spans the whole run, checks included.
 */
export const MIGRATION_LOCK_KEY = 0x6f63635f6d6967n; // "occ_mig"

export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma/migrations');

/**
 * Applies prisma/migrations with `prisma migrate deploy` (Prisma's Wasm schema engine through the
 * adapter in prisma.config.ts). Asynchronous on purpose: with the embedded database, the PGlite
 * socket server runs on this process's event loop and must keep answering while the CLI runs.
 * Unlocked: call migrateDatabase, which holds the migration lock around it.
 */
export function migrateDeploy(databaseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${REPO_ROOT}/node_modules/prisma/build/index.js`, 'migrate', 'deploy'], {
      cwd: REPO_ROOT,
      // eslint-disable-next-line no-restricted-properties -- the CLI inherits this process's environment
      env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`prisma migrate deploy exited with ${code}:\n${output}`));
    });
  });
}

/**
 * R2: runs the migrations while holding the migration lock on a connection of its own for the
 * whole run; a second caller waits for the first to finish, then finds nothing to apply. The
 * lock is released when the run ends, and by PostgreSQL if this process dies.
 */
export async function migrateDatabase(databaseUrl: string, run: (url: string) => Promise<string> = migrateDeploy): Promise<string> {
  return withMigrationLock(databaseUrl, async (client) => ((await nothingToMigrate(client)) ? NOTHING_TO_MIGRATE : run(databaseUrl)));
}

export const NOTHING_TO_MIGRATE = 'No pending migrations to apply: every committed migration is applied, unchanged (checked before starting Prisma).\n';

/**
 * Whether `prisma migrate deploy` would find nothing to do: every committed migration is applied,
 * finished and not rolled back, with Prisma's checksum (the SHA-256 of its migration.sql), no
 * migration is half-applied, and none applied is unknown to this build. Anything else, and the
 * CLI runs as before and says what it says (a failed migration, an edited file, a newer database).
 * Skipping it saves every start of an installation that is current about 12 s: the CLI answers in
 * about 1.5 s and then waits about 10 s on a timer of its Wasm schema engine before it exits.
 */
export async function nothingToMigrate(client: pg.Client, dir = MIGRATIONS_DIR): Promise<boolean> {
  const rows = await migrationRows(client);
  if (rows === null) return false;
  if (rows.some((r) => !r.finished && !r.rolled_back)) return false;
  const applied = new Map(rows.filter((r) => r.finished && !r.rolled_back).map((r) => [r.migration_name, r.checksum]));
  const committed = await committedMigrations(dir);
  if (applied.size !== committed.length) return false;
  for (const name of committed) {
    const sql = await readFile(path.join(dir, name, 'migration.sql'));
    if (applied.get(name) !== createHash('sha256').update(sql).digest('hex')) return false;
  }
  return true;
}

/**
 * R2: runs `fn` holding the migration lock on a connection of its own (handed to `fn`), released
 * when it ends, and by PostgreSQL if this process dies. The database migrations and the
 * Kubernetes object migrations (upgrade/kube-migrations.ts) both run under it.
 */
export async function withMigrationLock<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      return await fn(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    await client.end();
  }
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished: boolean;
  rolled_back: boolean;
}

/** Prisma's record of every migration run, ordered by name; null before `_prisma_migrations` exists. */
async function migrationRows(client: pg.Client): Promise<MigrationRow[] | null> {
  const table = await client.query<{ exists: boolean }>(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists`);
  if (!table.rows[0]?.exists) return null;
  return (
    await client.query<MigrationRow>(
      'SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations ORDER BY migration_name',
    )
  ).rows;
}

/** The migrations Prisma finished and did not roll back, by name; none before `_prisma_migrations` exists. */
export async function appliedMigrations(client: pg.Client): Promise<string[]> {
  return ((await migrationRows(client)) ?? []).filter((r) => r.finished && !r.rolled_back).map((r) => r.migration_name);
}

/** The committed migrations, by directory name, in the order Prisma applies them. */
export async function committedMigrations(dir = MIGRATIONS_DIR): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

export class SchemaBehindError extends Error {
  override name = 'SchemaBehindError';
  readonly code = 'SCHEMA_BEHIND';
  constructor(readonly missing: string[]) {
    super(
      `The database schema is older than this build: ${missing.length} committed migration(s) not applied: ${missing.join(', ')}. ` +
        'Run `npm run db:migrate` (prisma migrate deploy under the migration lock) before starting replicas.',
    );
  }
}

/**
 * R2: a replica refuses to serve on an older schema. Compares Prisma's `_prisma_migrations`
 * (finished, not rolled back) with prisma/migrations and names what is missing.
 */
export async function assertSchemaCurrent(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<void> {
  const expected = await committedMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let applied: Set<string>;
  try {
    applied = new Set(await appliedMigrations(client));
  } finally {
    await client.end();
  }
  const missing = expected.filter((name) => !applied.has(name));
  if (missing.length > 0) throw new SchemaBehindError(missing);
}
