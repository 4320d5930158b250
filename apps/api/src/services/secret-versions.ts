import type { AccessRequest } from '@occ/domain/access';
import type { SecretBackendRef } from '@occ/domain/secret-driver';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { audit } from './audit.ts';
import type { Deps } from './deps.ts';
import { lockNamespace, lockSecret } from './locks.ts';

// V1 V3 V5: a secret's versions, each its own immutable Kubernetes Secret. A version object is
// kept while a revision that runs or is on its way holds it, and, once none does, for the
// retention window after it was last delivered: a revision superseded or stopped within the
// window is a rollback candidate (V7), and its versions stay deliverable. The current version is
// never retired. Retirement deletes the object (uid precondition) and keeps the row, with
// retiredAt, for exposure (V5).

/** V3: the retention window's default (OCC_SECRET_VERSION_RETENTION_SECONDS). */
export const DEFAULT_SECRET_VERSION_RETENTION_SECONDS = 24 * 60 * 60;

/** Revision states whose frozen versions must stay: running, or on their way to running. */
const HOLDING = ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING', 'ACTIVE'] as const;

type Candidate = { secretId: string; number: number; namespaceId: string };

async function candidates(db: Db | Tx, cutoff: Date, secretId: string | null): Promise<Candidate[]> {
  return db.$queryRaw<Candidate[]>`
    SELECT v."secretId", v.number, s."namespaceId"
    FROM "SecretVersion" v JOIN "Secret" s ON s.id = v."secretId"
    WHERE v."retiredAt" IS NULL AND v.number <> s.version
      AND (${secretId}::text IS NULL OR v."secretId" = ${secretId})
      AND (v."lastDeliveredAt" IS NULL OR v."lastDeliveredAt" < ${cutoff})
      AND NOT EXISTS (
        SELECT 1 FROM "AgentRevisionSecret" rs JOIN "AgentRevision" r ON r.id = rs."revisionId"
        WHERE rs."secretId" = v."secretId" AND rs.version = v.number AND r.state::text = ANY(${HOLDING as unknown as string[]}::text[]))
    ORDER BY v."secretId", v.number`;
}

export interface RetiredVersion {
  secretId: string;
  number: number;
  result: 'deleted' | 'missing' | 'shared';
}

/**
 * V3: retires every version no running or pending revision holds and no rollback candidate within
 * the window needs. Each secret is retired under the namespace and secret locks (the order
 * updateSecret and deployAgent take them in), so a deploy freezing a version and its retirement
 * never cross; the candidates are read again under them. Leader only (the instance reconciler's
 * resync); `now` comes from its clock.
 */
export async function retireSecretVersions(deps: Pick<Deps, 'db' | 'secretDriver' | 'logger'>, options: { now: Date; retentionMs: number }): Promise<RetiredVersion[]> {
  const cutoff = new Date(options.now.getTime() - options.retentionMs);
  const found = await candidates(deps.db, cutoff, null);
  const secrets = new Map<string, string>();
  for (const c of found) secrets.set(c.secretId, c.namespaceId);
  const retired: RetiredVersion[] = [];
  for (const [secretId, namespaceId] of secrets) {
    try {
      retired.push(...(await transaction(deps.db as Db, (tx) => retireOne(deps, tx, { secretId, namespaceId }, cutoff, options.now))));
    } catch (error) {
      // One secret's failure (Kubernetes unreachable, say) leaves its versions for the next sweep.
      deps.logger.warn('could not retire secret versions', { error, secretId });
    }
  }
  return retired;
}

async function retireOne(deps: Pick<Deps, 'secretDriver' | 'logger'>, tx: Tx, secret: { secretId: string; namespaceId: string }, cutoff: Date, now: Date): Promise<RetiredVersion[]> {
  if (!(await lockNamespace(tx, secret.namespaceId)) || !(await lockSecret(tx, secret.secretId))) return [];
  const due = await candidates(tx, cutoff, secret.secretId);
  if (due.length === 0) return [];
  const numbers = due.map((c) => c.number);
  const [versions, row] = await Promise.all([
    tx.secretVersion.findMany({ where: { secretId: secret.secretId, retiredAt: null } }),
    tx.secret.findUniqueOrThrow({ where: { id: secret.secretId }, select: { backendUid: true, name: true } }),
  ]);
  // An object an earlier release wrote may back several versions (RC4 records a change outside
  // the product as a new version of the same object): it goes only with the last of them.
  const kept = new Set([row.backendUid, ...versions.filter((v) => !numbers.includes(v.number)).map((v) => v.backendUid)]);
  const retired: RetiredVersion[] = [];
  for (const v of versions.filter((v) => numbers.includes(v.number))) {
    const ref: SecretBackendRef = { k8sNamespace: v.backendNamespace, name: v.backendName, key: v.backendKey, uid: v.backendUid };
    const result = kept.has(v.backendUid) ? 'shared' : await deps.secretDriver.delete(ref);
    kept.add(v.backendUid);
    await tx.secretVersion.update({ where: { secretId_number: { secretId: v.secretId, number: v.number } }, data: { retiredAt: now } });
    retired.push({ secretId: v.secretId, number: v.number, result });
  }
  await audit(tx, {
    actorId: null,
    system: 'reconciler',
    action: 'secret.versionsRetired',
    resourceKind: 'secret',
    resourceId: secret.secretId,
    namespaceId: secret.namespaceId,
    outcome: 'SUCCESS',
    reason: 'RETENTION',
    details: { name: row.name, versions: retired.map((r) => ({ number: r.number, object: r.result })) },
  });
  deps.logger.info('secret versions retired', { secretId: secret.secretId, versions: retired.map((r) => r.number) });
  return retired;
}

/** V5: one version's window; never a value, never a locator (S4). */
export interface SecretVersionView {
  secretId: string;
  number: number;
  current: boolean;
  createdAt: Date;
  firstDeliveredAt: Date | null;
  lastDeliveredAt: Date | null;
  retiredAt: Date | null;
}

/** V5: an agent whose running revision holds a version, since its revision became active. */
export interface VersionExposure {
  secretId: string;
  version: number;
  agentId: string;
  agentName: string | null;
  namespaceId: string;
  revisionId: string;
  revisionNumber: number;
  envNames: string[];
  /** When the revision became active. */
  since: Date;
}

export interface SecretExposure {
  /** Agents the caller may not read: counted, not named. */
  hiddenCount: number;
  items: VersionExposure[];
}

/** V5: the versions of many secrets in one statement, newest first (request loaders). */
export async function versionsOfSecrets(db: Db | Tx, secretIds: readonly string[]): Promise<Map<string, SecretVersionView[]>> {
  const ids = [...new Set(secretIds)];
  const result = new Map<string, SecretVersionView[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return result;
  const rows = await db.$queryRaw<SecretVersionView[]>`
    SELECT v."secretId", v.number, v.number = s.version AS current, v."createdAt", v."firstDeliveredAt", v."lastDeliveredAt", v."retiredAt"
    FROM "SecretVersion" v JOIN "Secret" s ON s.id = v."secretId"
    WHERE v."secretId" = ANY(${ids}::text[])
    ORDER BY v."secretId", v.number DESC`;
  for (const row of rows) result.get(row.secretId)!.push(row);
  return result;
}

/**
 * V5: the exposure matrix of many secrets (agents × versions): each running revision and the
 * version it holds of each secret (exact, V2), one statement whatever their number.
 */
export async function exposureOfSecrets(
  db: Db | Tx,
  mayRead: (request: Omit<AccessRequest, 'subjectId'>) => boolean,
  secretIds: readonly string[],
): Promise<Map<string, SecretExposure>> {
  const ids = [...new Set(secretIds)];
  const all = new Map<string, VersionExposure[]>(ids.map((id) => [id, []]));
  if (ids.length > 0) {
    const rows = await db.$queryRaw<Array<Omit<VersionExposure, 'envNames'> & { envNames: string[] }>>`
      SELECT rs."secretId", rs.version, r."agentId", a.name AS "agentName", r."namespaceId", r.id AS "revisionId", r.number AS "revisionNumber",
             array_agg(rs."envName" ORDER BY rs."envName") AS "envNames", COALESCE(r."activatedAt", r."updatedAt") AS since
      FROM "AgentRevisionSecret" rs
      JOIN "AgentRevision" r ON r.id = rs."revisionId"
      LEFT JOIN "Agent" a ON a.id = r."agentId"
      WHERE rs."secretId" = ANY(${ids}::text[]) AND r.state = 'ACTIVE'
      GROUP BY rs."secretId", rs.version, r."agentId", a.name, r."namespaceId", r.id, r.number, r."activatedAt", r."updatedAt"
      ORDER BY rs."secretId", rs.version DESC, r."agentId"`;
    for (const row of rows) all.get(row.secretId)!.push(row);
  }
  const result = new Map<string, SecretExposure>();
  for (const [secretId, items] of all) {
    const visible = items.filter((e) => mayRead({ action: 'read', resourceKind: 'agent', namespaceId: e.namespaceId, resourceId: e.agentId }));
    result.set(secretId, { hiddenCount: items.length - visible.length, items: visible });
  }
  return result;
}
