import pg from 'pg';
import { appliedMigrations, committedMigrations } from '../db/migrate.ts';
import { KUBE_MIGRATIONS, type KubeMigration } from './kube-migrations.ts';
import { RELEASE } from './release.ts';

// Downgrades are refused, cleanly. A release started on state a newer release has
// migrated would run against tables and objects it does not know, and its own migrations could
// not undo the newer ones. So before anything is migrated or written, the start reads what the
// state holds: database migrations and Kubernetes object migrations this build does not know mean
// a newer release wrote it. The start then stops, naming both releases, and changes nothing.

export class StateFromNewerReleaseError extends Error {
  override name = 'StateFromNewerReleaseError';
  readonly code = 'STATE_FROM_NEWER_RELEASE';
  constructor(
    readonly newerRelease: string | null,
    readonly unknownDatabaseMigrations: string[],
    readonly unknownKubernetesMigrations: string[],
  ) {
    const what = [
      unknownDatabaseMigrations.length ? `database migration(s) ${unknownDatabaseMigrations.join(', ')}` : null,
      unknownKubernetesMigrations.length ? `Kubernetes object migration(s) ${unknownKubernetesMigrations.join(', ')}` : null,
    ].filter(Boolean);
    super(
      `This state was written by ${newerRelease ? `release ${newerRelease}` : 'a newer release'}, newer than this release ${RELEASE}: it holds ${what.join(' and ')} that ${RELEASE} does not know. ` +
        `A downgrade is not supported: start ${newerRelease ? `release ${newerRelease}` : 'the newer release'} (or a later one) on this state, or restore a backup taken before the upgrade. Nothing was changed.`,
    );
  }
}

async function tableExists(client: pg.Client, table: string): Promise<boolean> {
  return (await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [`"${table}"`])).rows[0]?.exists ?? false;
}

/** Reads only: throws StateFromNewerReleaseError when the state holds migrations this build does not know. */
export async function assertStateNotNewer(databaseUrl: string, known: { databaseMigrations?: string[]; kubeMigrations?: readonly KubeMigration[] } = {}): Promise<void> {
  const committed = new Set(known.databaseMigrations ?? (await committedMigrations()));
  const kube = new Set((known.kubeMigrations ?? KUBE_MIGRATIONS).map((m) => m.id));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const appliedDatabase = await appliedMigrations(client);
    const appliedKube = (await tableExists(client, 'KubernetesMigration')) ? (await client.query<{ id: string }>('SELECT id FROM "KubernetesMigration" ORDER BY id')).rows.map((r) => r.id) : [];
    const unknownDatabase = appliedDatabase.filter((name) => !committed.has(name));
    const unknownKube = appliedKube.filter((id) => !kube.has(id));
    if (unknownDatabase.length === 0 && unknownKube.length === 0) return;
    const newer = (await tableExists(client, 'ReleaseStart'))
      ? ((await client.query<{ release: string }>('SELECT release FROM "ReleaseStart" WHERE release <> $1 ORDER BY "databaseMigration" DESC, "firstStartedAt" DESC LIMIT 1', [RELEASE])).rows[0]?.release ?? null)
      : null;
    throw new StateFromNewerReleaseError(newer, unknownDatabase, unknownKube);
  } finally {
    await client.end();
  }
}

/** After a start has migrated: this release started on this state, knowing migrations up to the newest committed one. */
export async function recordReleaseStart(databaseUrl: string, databaseMigrations?: string[]): Promise<void> {
  const newest = (databaseMigrations ?? (await committedMigrations())).at(-1) ?? '';
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO "ReleaseStart" (release, "databaseMigration") VALUES ($1, $2)
       ON CONFLICT (release) DO UPDATE SET "lastStartedAt" = CURRENT_TIMESTAMP, "databaseMigration" = EXCLUDED."databaseMigration"`,
      [RELEASE, newest],
    );
  } finally {
    await client.end();
  }
}
