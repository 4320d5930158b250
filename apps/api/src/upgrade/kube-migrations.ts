import { KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type pg from 'pg';
import { classifyKubeError } from '../kube/errors.ts';
import type { Logger } from '../log.ts';
import { withMigrationLock } from '../db/migrate.ts';
import { RELEASE } from './release.ts';
import { installationLabelsMigration } from './migrations/installation-labels.ts';
import { podSecurityLabelsMigration } from './migrations/pod-security-labels.ts';

// Kubernetes objects migrate with the schema. What the product writes into Kubernetes
// changes between releases as its tables do: a label an identity check (D3) now requires, an
// annotation, a new shape of a child object. Each such change comes with a numbered, idempotent
// step here that brings what earlier releases wrote to the new shape. The steps run at start,
// after the database migrations, under the same advisory lock (R2), in id order; each finished
// step is recorded ("KubernetesMigration") with the release that ran it and what it did. A step
// that stops half-way (a crash, a lost connection) is not recorded and runs again from the start
// at the next start: every step skips what is already in the new shape, so that resumes it.

export interface SkippedObject {
  kind: string;
  namespace: string;
  name: string;
  /** Why the step left it as it was: never a value, only names, labels and uids. */
  reason: string;
}

export interface KubeMigrationReport {
  examined: number;
  changed: number;
  skipped: SkippedObject[];
}

export interface KubeMigrationContext {
  objects: KubernetesObjectApi;
  installationId: string;
  /** Reads the database through the connection that holds the migration lock. */
  query: <T extends pg.QueryResultRow>(text: string, params?: unknown[]) => Promise<T[]>;
  logger: Logger;
  /** Called before every write; tests stop a step half-way through it. */
  beforeWrite: (object: { kind: string; namespace: string; name: string }) => Promise<void>;
}

export interface KubeMigration {
  /** Sorts in the order the steps run: the date of the release that brought it, then a name. */
  id: string;
  /** One sentence for the log, the record and CHANGELOG.md. */
  summary: string;
  run(context: KubeMigrationContext): Promise<KubeMigrationReport>;
}

export const KUBE_MIGRATIONS: readonly KubeMigration[] = [installationLabelsMigration, podSecurityLabelsMigration];

export interface AppliedKubeMigration {
  id: string;
  release: string;
  report: KubeMigrationReport;
}

/** Merge patches carry metadata.resourceVersion: a concurrent writer makes the write a 409, never lost. */
export const mergePatch = PatchStrategy.MergePatch;

/**
 * Runs the steps not yet recorded, under the migration lock, and records each. A second caller
 * waits on the lock, then finds them recorded and does nothing.
 */
export async function migrateKubernetesObjects(options: {
  databaseUrl: string;
  kubeConfig: KubeConfig;
  installationId: string;
  logger: Logger;
  migrations?: readonly KubeMigration[];
  beforeWrite?: KubeMigrationContext['beforeWrite'];
}): Promise<AppliedKubeMigration[]> {
  const migrations = [...(options.migrations ?? KUBE_MIGRATIONS)].sort((a, b) => a.id.localeCompare(b.id));
  const applied: AppliedKubeMigration[] = [];
  await withMigrationLock(options.databaseUrl, async (client) => {
    const done = new Set((await client.query<{ id: string }>('SELECT id FROM "KubernetesMigration"')).rows.map((r) => r.id));
    const context: KubeMigrationContext = {
      objects: KubernetesObjectApi.makeApiClient(options.kubeConfig),
      installationId: options.installationId,
      query: async (text, params) => (await client.query(text, params)).rows,
      logger: options.logger,
      beforeWrite: options.beforeWrite ?? (async () => {}),
    };
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      const started = Date.now();
      options.logger.info('migrating Kubernetes objects', { migration: migration.id, summary: migration.summary });
      const report = await migration.run(context);
      await client.query(
        `INSERT INTO "KubernetesMigration" (id, release, examined, changed, skipped) VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT (id) DO NOTHING`,
        [migration.id, RELEASE, report.examined, report.changed, JSON.stringify(report.skipped)],
      );
      options.logger.info('migrated Kubernetes objects', {
        migration: migration.id,
        examined: report.examined,
        changed: report.changed,
        skipped: report.skipped.length,
        ms: Date.now() - started,
      });
      for (const s of report.skipped) options.logger.warn('an object was left as it was by a Kubernetes migration', { migration: migration.id, ...s });
      applied.push({ id: migration.id, release: RELEASE, report });
    }
  });
  return applied;
}

/** Reads one object; null when it (or its kind, or its namespace) does not exist. */
export async function readObject<T extends KubernetesObject>(objects: KubernetesObjectApi, header: { apiVersion: string; kind: string; namespace?: string; name: string }): Promise<T | null> {
  try {
    return (await objects.read({ apiVersion: header.apiVersion, kind: header.kind, metadata: { name: header.name, ...(header.namespace ? { namespace: header.namespace } : {}) } })) as T;
  } catch (error) {
    const failure = classifyKubeError(error);
    if (failure.kind === 'object-not-found' || failure.kind === 'namespace-not-found') return null;
    throw error;
  }
}

/** Lists one kind in a namespace; empty when the kind is not served (a CRD not installed). */
export async function listObjects(objects: KubernetesObjectApi, apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubernetesObject[]> {
  try {
    const items: KubernetesObject[] = [];
    let next: string | undefined;
    do {
      const page = await objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector, 500, next);
      items.push(...page.items);
      next = page.metadata?._continue || undefined;
    } while (next);
    return items;
  } catch (error) {
    const failure = classifyKubeError(error);
    if (failure.kind === 'object-not-found' || failure.kind === 'namespace-not-found') return [];
    // client-node resolves a kind through discovery first and throws this when no group serves it.
    if (error instanceof Error && /Unrecognized API version and kind/i.test(error.message)) return [];
    throw error;
  }
}
