import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { startRuntime } from '../runtime.ts';
import { KUBE_MIGRATIONS } from './kube-migrations.ts';
import { RELEASE } from './release.ts';
import { StateFromNewerReleaseError } from './stored-state.ts';

// Downgrades: an older release started on state a newer one migrated refuses, naming both releases,
// and changes nothing. This build plays the older release: the newer one's marks are planted as a
// newer release would leave them (a database migration and a Kubernetes object migration this build
// does not know, and its ReleaseStart row), on the embedded defaults `npm start` uses.

const logger = createLogger(() => {}, 'error');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Every file under the data folder with its content hash: what "changes nothing" is checked on. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = `${(await stat(file)).size}:${createHash('sha256').update(await readFile(file)).digest('hex')}`;
  }
  return out;
}

async function withPglite<T>(dataDir: string, fn: (db: PGlite) => Promise<T>): Promise<T> {
  const db = new PGlite(path.join(dataDir, 'pglite'));
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe('stored state from a newer release', () => {
  it('R2 a start on state that holds a database migration, or a Kubernetes object migration, this release does not know refuses, naming both releases, and changes nothing', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'occ-newer-state-'));
    dirs.push(dataDir);
    const env = { dataDir, databaseUrl: null, kubeconfig: null };
    const first = await startRuntime({ env, logger, startWorker: false });
    const installationId = first.installation.installationId;
    await first.close();
    for (const kind of ['database', 'kubernetes'] as const) await refusedOnce(dataDir, env, installationId, kind);
    // Three starts of the embedded defaults on disk (PGlite's data folder, the cluster's data file):
    // about 30 s on a quiet machine, more beside a CI run.
  }, 180_000);
});

async function refusedOnce(dataDir: string, env: { dataDir: string; databaseUrl: null; kubeconfig: null }, installationId: string, kind: 'database' | 'kubernetes'): Promise<void> {
    const newer = '2099.01.01';
    await withPglite(dataDir, async (db) => {
      await db.query(`DELETE FROM _prisma_migrations WHERE id = 'future'`);
      await db.query(`DELETE FROM "KubernetesMigration" WHERE release = $1`, [newer]);
      await db.query(`DELETE FROM "ReleaseStart" WHERE release = $1`, [newer]);
      const recorded = await db.query<{ release: string }>('SELECT release FROM "ReleaseStart"');
      expect(recorded.rows.map((r) => r.release)).toEqual([RELEASE]);
      expect((await db.query<{ id: string }>('SELECT id FROM "KubernetesMigration" ORDER BY id')).rows.map((r) => r.id)).toEqual(KUBE_MIGRATIONS.map((m) => m.id));
      if (kind === 'database') {
        await db.query(
          `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('future', 'x', '20990101000000_future', now(), now(), 1)`,
        );
      } else {
        await db.query(`INSERT INTO "KubernetesMigration" (id, release, examined, changed) VALUES ('2099-01-01-future-shape', $1, 0, 0)`, [newer]);
      }
      await db.query(`INSERT INTO "ReleaseStart" (release, "databaseMigration") VALUES ($1, '20990101000000_future')`, [newer]);
    });
    const before = await fingerprint(dataDir);
    const rows = (db: PGlite) => Promise.all(['ReleaseStart', 'KubernetesMigration', 'Installation', 'AuditEvent', 'ApiKey'].map(async (t) => (await db.query(`SELECT * FROM "${t}" ORDER BY 1`)).rows));
    const rowsBefore = await withPglite(dataDir, rows);

    const refused = await startRuntime({ env, logger, startWorker: false }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateFromNewerReleaseError);
    const message = (refused as Error).message;
    expect(message).toContain(`release ${newer}`);
    expect(message).toContain(`this release ${RELEASE}`);
    expect(message).toContain(kind === 'database' ? '20990101000000_future' : '2099-01-01-future-shape');
    expect(message).toMatch(/Nothing was changed\.$/);

    // PGlite rewrites its own files when it opens and closes a data folder (WAL, control file); the
    // rows and the embedded cluster's objects are what must not change.
    const after = await fingerprint(dataDir);
    expect(after['kube/objects.json']).toBe(before['kube/objects.json']);
    expect(after['kubeconfig.yaml']).toBe(before['kubeconfig.yaml']);
    expect(await withPglite(dataDir, rows)).toEqual(rowsBefore);
    await withPglite(dataDir, async (db) => {
      expect((await db.query<{ release: string }>('SELECT release FROM "ReleaseStart" ORDER BY release')).rows.map((r) => r.release)).toEqual([RELEASE, newer].sort());
      expect((await db.query<{ installationId: string }>('SELECT "installationId" FROM "Installation"')).rows).toEqual([{ installationId }]);
    });
}
