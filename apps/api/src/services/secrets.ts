import type { AccessRequest } from '@occ/domain/access';
import {
  ConflictError,
  NamespaceNotReadyError,
  NotFoundError,
  OutcomeUnknownError,
  SecretInUseError,
  type SecretConsumer,
  type SecretConsumers,
} from '@occ/domain/errors';
import {
  BackendConflict,
  BackendIdentityChanged,
  BackendNamespaceMissing,
  BackendOutcomeUnknown,
  type SecretBackendRef,
} from '@occ/domain/secret-driver';
import { validateSecretName, validateSecretValue } from '@occ/domain/validation';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { newId } from '../ids.ts';
import { and, sql } from '../db/sql.ts';
import { namePrefixSql, readableScopes, sqlKeysetPage, visibleWithin, type PageOf, type PageRequest } from './pagination.ts';
import { authorize, check, decider, readableBy } from './access.ts';
import { audit } from './audit.ts';
import { commitOutcome } from './commit-outcome.ts';
import type { Actor, Deps } from './deps.ts';
import { rolloutOnRotation } from './secret-rollouts.ts';
import { lockNamespace, lockSecret } from './locks.ts';
import { staleRevisionsOf, staleSecretIds, visibleStaleConsumers } from './secret-drift.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

export interface SecretView {
  id: string;
  namespaceId: string;
  name: string;
  version: number;
  driverId: string;
  /** Internal: exposed only to installation administrators, on a dedicated field (S4). */
  backend: SecretBackendRef;
  createdAt: Date;
  updatedAt: Date;
}

export type SecretRow = {
  id: string;
  namespaceId: string;
  name: string;
  version: number;
  driverId: string;
  backendNamespace: string;
  backendName: string;
  backendKey: string;
  backendUid: string;
  createdAt: Date;
  updatedAt: Date;
};

/** SecretRow's columns, for a statement that reads them beside another table's (db/sql.ts `prefixed`). */
export const SECRET_COLUMNS: ReadonlyArray<keyof SecretRow> = ['id', 'namespaceId', 'name', 'version', 'driverId', 'backendNamespace', 'backendName', 'backendKey', 'backendUid', 'createdAt', 'updatedAt'];

/** A view's fields and the columns each is made of (id and namespaceId are always read). */
const SECRET_VIEW_COLUMNS: Record<Exclude<keyof SecretView, 'id' | 'namespaceId'>, ReadonlyArray<keyof SecretRow>> = {
  name: ['name'],
  version: ['version'],
  driverId: ['driverId'],
  backend: ['backendNamespace', 'backendName', 'backendKey', 'backendUid'],
  createdAt: ['createdAt'],
  updatedAt: ['updatedAt'],
};

/**
 * The view of a row read with only some columns (an agents page's joined secrets): the fields
 * those columns make, and no others. A field that was not read is absent rather than a getter that
 * throws: GraphQL fields exposed straight from the view are read by graphql-jit's compiled code,
 * where a throwing getter escaped as an uncaught error and the request never answered. Absent, a
 * non-null field answers a GraphQL error; every field of Secret that a list reads this way is
 * non-null, and graphql/joined-page.test.ts asks each one alone.
 */
export function toPartialSecretView(row: Pick<SecretRow, 'id' | 'namespaceId'> & Partial<SecretRow>): SecretView {
  // toSecretView makes each field; only those whose columns were all read are kept.
  const full = toSecretView(row as SecretRow);
  if (SECRET_COLUMNS.every((c) => row[c] !== undefined)) return full;
  const view: Record<string, unknown> = { id: row.id, namespaceId: row.namespaceId };
  for (const [field, columns] of Object.entries(SECRET_VIEW_COLUMNS) as Array<[keyof typeof SECRET_VIEW_COLUMNS, ReadonlyArray<keyof SecretRow>]>) {
    if (columns.every((c) => row[c] !== undefined)) view[field] = full[field];
  }
  return view as unknown as SecretView;
}

export function toSecretView(row: SecretRow): SecretView {
  return {
    id: row.id,
    namespaceId: row.namespaceId,
    name: row.name,
    version: row.version,
    driverId: row.driverId,
    backend: { k8sNamespace: row.backendNamespace, name: row.backendName, key: row.backendKey, uid: row.backendUid },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function secretReference(secret: { id: string; namespaceId: string }) {
  return { kind: 'secret' as const, namespaceId: secret.namespaceId, id: secret.id };
}

function requireReady(ns: { status: string; k8sName?: string } | null): asserts ns is { status: 'READY'; id: string; k8sName: string } {
  if (!ns) throw new NotFoundError('No such namespace.');
  if (ns.status !== 'READY') throw NamespaceNotReadyError.of(ns);
}

/**
 * The namespace is recorded as ready but its Kubernetes namespace is gone (deleted out of band):
 * the secret cannot be stored there, and the answer names the missing namespace.
 */
function namespaceMissing(error: BackendNamespaceMissing, outcome: string): NamespaceNotReadyError {
  return new NamespaceNotReadyError('READY', `The namespace's Kubernetes namespace ${error.k8sNamespace} does not exist (deleted outside the control plane). ${outcome}`);
}

/**
 * S1–S5. The value goes from this request's memory to the Kubernetes Secret and nowhere else.
 * The namespace row stays locked from the readiness check to the commit.
 */
export async function createSecret(deps: Deps, actor: Actor, input: { namespaceId: string; name: string; value: string }): Promise<SecretView> {
  const invalid = validateSecretName(input.name) ?? validateSecretValue(input.value);
  if (invalid) throw invalid;
  await kinds.require(deps, actor, 'namespace', input.namespaceId);
  const request = capabilityRequest('namespace', 'createSecret', { id: input.namespaceId });
  await authorize(deps, actor, request);
  const secretId = newId('secret');
  let backend: SecretBackendRef | null = null;
  const outcome = commitOutcome();
  try {
    return await transaction(deps.db, async (tx) => {
      const ns = await lockNamespace(tx, input.namespaceId);
      requireReady(ns);
      await authorize(deps, actor, request, tx);
      const taken = await tx.secret.findUnique({ where: { namespaceId_name: { namespaceId: ns.id, name: input.name } } });
      if (taken) throw new ConflictError(`A secret named ${input.name} exists in this namespace.`, 'NAME_TAKEN');
      backend = await deps.secretDriver.create({ namespaceId: ns.id, secretId, k8sNamespace: ns.k8sName, value: input.value, version: 1 });
      const row = await tx.secret.create({
        data: {
          id: secretId,
          namespaceId: ns.id,
          name: input.name,
          driverId: deps.secretDriver.id,
          backendNamespace: backend.k8sNamespace,
          backendName: backend.name,
          backendKey: backend.key,
          backendUid: backend.uid,
          createdById: actor.principalId,
          versions: { create: versionLocator(1, backend) },
        },
      });
      await audit(tx, {
        actorId: actor.principalId,
        action: 'secret.create',
        resourceKind: 'secret',
        resourceId: secretId,
        namespaceId: ns.id,
        outcome: 'SUCCESS',
        details: { name: input.name, version: 1, driverId: deps.secretDriver.id },
      });
      outcome.reachedCommit();
      return toSecretView(row);
    });
  } catch (error) {
    if (error instanceof BackendNamespaceMissing) throw namespaceMissing(error, 'Nothing was stored.');
    if (error instanceof BackendOutcomeUnknown) {
      deps.logger.warn('secret create: Kubernetes outcome unknown', { secretId, namespaceId: input.namespaceId });
      throw new OutcomeUnknownError('Kubernetes did not confirm whether the Secret was stored. Nothing was recorded; check for orphaned backend objects before retrying.');
    }
    const created = backend as SecretBackendRef | null;
    if (created && outcome.unknown(error)) {
      // S5: the commit may have happened; deleting now could destroy a recorded secret.
      deps.logger.error('secret create: database commit outcome unknown', { secretId, backendName: created.name, backendUid: created.uid });
      throw new OutcomeUnknownError('The database did not confirm the commit. The secret may or may not exist; nothing was deleted.');
    }
    if (created) await compensate(deps, created, secretId);
    throw error;
  }
}

/** V1: a version's row: its number and its object's locator. */
function versionLocator(number: number, backend: SecretBackendRef) {
  return { number, backendNamespace: backend.k8sNamespace, backendName: backend.name, backendKey: backend.key, backendUid: backend.uid };
}

/** S5: the commit is known to have failed: delete exactly the object created (uid precondition). */
async function compensate(deps: Deps, ref: SecretBackendRef, secretId: string): Promise<void> {
  try {
    await deps.secretDriver.delete(ref);
    deps.logger.info('secret create rolled back; backend object deleted', { secretId, backendUid: ref.uid });
  } catch (error) {
    deps.logger.error('secret create rolled back; backend object could not be deleted (orphan)', {
      secretId,
      backendName: ref.name,
      backendUid: ref.uid,
      error,
    });
  }
}

export interface SecretUpdateResult {
  secret: SecretView;
  delivery: { stored: true; delivered: false; message: string; staleRevisionIds: string[]; rolloutId: string | null };
}

/**
 * S6 V1: changes only the value, as a new version: its own immutable Kubernetes Secret, recorded
 * with the secret's current version in one transaction. Same reference; version + 1; stored, not
 * delivered: running gateways keep the object of the version their revision froze (V2). The
 * previous version's object stays until V3 retires it.
 */
export async function updateSecret(deps: Deps, actor: Actor, input: { id: string; value: string }): Promise<SecretUpdateResult> {
  const invalid = validateSecretValue(input.value);
  if (invalid) throw invalid;
  const existing = await kinds.require(deps, actor, 'secret', input.id);
  const request = capabilityRequest('secret', 'update', existing);
  await authorize(deps, actor, request);
  const outcome = commitOutcome();
  let created: SecretBackendRef | null = null;
  try {
    const result = await transaction(deps.db, async (tx) => {
      const ns = await lockNamespace(tx, existing.namespaceId);
      requireReady(ns);
      if (!(await lockSecret(tx, existing.id))) throw new NotFoundError('No such secret.');
      await authorize(deps, actor, request, tx);
      const row = await tx.secret.findUniqueOrThrow({ where: { id: existing.id } });
      // D3: the current version's object is looked at first. One replaced or relabelled out of
      // band, or one an earlier release wrote and no upgrade migrated yet, is reported, not
      // rotated past; one deleted out of band (RC5: its namespace lost and re-provisioned, say)
      // no longer matters, since the new version is a new object anyway, and the answer says so.
      const current = await deps.secretDriver.resolve(toSecretView(row).backend, { namespaceId: row.namespaceId, secretId: row.id });
      if (current.state === 'mismatch') throw new BackendIdentityChanged(current.reason, current.notMigrated === true);
      const version = row.version + 1;
      created = await deps.secretDriver.create({ namespaceId: row.namespaceId, secretId: row.id, k8sNamespace: ns.k8sName, value: input.value, version });
      const backend = created as SecretBackendRef;
      await tx.secretVersion.create({ data: { secretId: row.id, ...versionLocator(version, backend) } });
      const updated = await tx.secret.update({
        where: { id: row.id },
        data: { version, backendName: backend.name, backendUid: backend.uid, backendNamespace: backend.k8sNamespace, backendKey: backend.key, outsideChangeSeenAt: null },
      });
      const missing = current.state === 'missing';
      await audit(tx, {
        actorId: actor.principalId,
        action: 'secret.update',
        resourceKind: 'secret',
        resourceId: row.id,
        namespaceId: row.namespaceId,
        outcome: 'SUCCESS',
        details: { name: row.name, version: updated.version, ...(missing ? { recreated: true, reason: "the previous version's Kubernetes Secret no longer existed" } : {}) },
      });
      // S6, W7: the running revisions that now hold older versions, read under the same locks.
      const may = await decider(tx, actor);
      const stale = visibleStaleConsumers((await staleRevisionsOf(tx, [row.id])).get(row.id)!, (r) => may(r).allowed);
      // V4: an automatic policy opens a rollout (or moves the open one's target) with this commit.
      const rollout = await rolloutOnRotation(tx, actor, updated);
      outcome.reachedCommit();
      return { secret: toSecretView(updated), stale, recreated: missing, rollout };
    });
    if (result.rollout) deps.kickWorker?.();
    const staleRevisionIds = [...new Set(result.stale.items.map((c) => c.revisionId))];
    const running = new Set(result.stale.items.map((c) => c.revisionId)).size + result.stale.hiddenCount;
    return {
      secret: result.secret,
      delivery: {
        stored: true,
        delivered: false,
        staleRevisionIds,
        rolloutId: result.rollout?.id ?? null,
        message:
          (result.recreated ? 'Its Kubernetes Secret no longer existed: the value was stored in a new one. ' : '') +
          (running === 0
            ? `Stored as version ${result.secret.version}, not delivered: no running revision uses this secret. Revisions deployed from now on read the new version.`
            : result.rollout
              ? `Stored as version ${result.secret.version}, not delivered yet: ${running} running revision(s) hold an older version; rollout ${result.rollout.id} ${result.rollout.opened ? 'delivers it' : 'now delivers this version'} by the secret's rotation policy (${result.rollout.state === 'AWAITING_APPROVAL' ? 'awaiting approval' : result.rollout.state.toLowerCase().replace('_', ' ')}).`
              : `Stored as version ${result.secret.version}, not delivered: ${running} running revision(s) still hold an older version until redeployed (redeployConsumers).`),
      },
    };
  } catch (error) {
    if (error instanceof BackendNamespaceMissing) throw namespaceMissing(error, 'The value was not changed.');
    if (error instanceof BackendIdentityChanged) {
      if (error.notMigrated) throw new ConflictError(`The secret's Kubernetes Secret is the recorded one, but ${error.reason}. The value was not changed.`, 'BACKEND_NOT_MIGRATED');
      throw new ConflictError(`The secret's Kubernetes Secret is not the one recorded (${error.reason}); the value was not changed.`, 'BACKEND_IDENTITY_CHANGED');
    }
    if (error instanceof BackendConflict) throw new ConflictError('The Kubernetes Secret changed concurrently; read the secret and retry.', 'BACKEND_CONFLICT');
    if (error instanceof BackendOutcomeUnknown) {
      deps.logger.warn('secret update: Kubernetes outcome unknown', { secretId: existing.id });
      throw new OutcomeUnknownError('Kubernetes did not confirm whether the new version was stored. Nothing was recorded; read the secret and retry.');
    }
    const made = created as SecretBackendRef | null;
    if (made && outcome.unknown(error)) {
      // S5: the commit may have happened; deleting now could destroy the recorded current version.
      deps.logger.error('secret update: database commit outcome unknown', { secretId: existing.id, backendName: made.name, backendUid: made.uid });
      throw new OutcomeUnknownError('The new version is stored in Kubernetes, but the database did not confirm the version change; nothing was deleted.');
    }
    // S5: the new version's object, made for a commit that is known to have failed, goes again.
    if (made) await compensate(deps, made, existing.id);
    throw error;
  }
}

/** S7: refused while referenced; deletes the exact backend object, its metadata and its grants. */
export async function deleteSecret(deps: Deps, actor: Actor, input: { id: string }): Promise<{ deletedSecretId: string }> {
  const existing = await kinds.require(deps, actor, 'secret', input.id);
  const request = capabilityRequest('secret', 'delete', existing);
  await authorize(deps, actor, request);
  return transaction(deps.db, async (tx) => {
    const ns = await lockNamespace(tx, existing.namespaceId);
    if (!ns) throw new NotFoundError('No such secret.');
    if (!(await lockSecret(tx, existing.id))) throw new NotFoundError('No such secret.');
    await authorize(deps, actor, request, tx);
    const consumers = await secretConsumers(tx, actor, existing.id);
    if (consumers.total > 0) throw new SecretInUseError(consumers);
    const row = await tx.secret.findUniqueOrThrow({ where: { id: existing.id } });
    // S7 V1: every version's object that V3 has not retired, each by its uid. Versions that share
    // an object (an earlier release's object changed outside the product, RC4) delete it once.
    const versions = await tx.secretVersion.findMany({ where: { secretId: row.id, retiredAt: null }, orderBy: { number: 'asc' } });
    const objects = new Map<string, SecretBackendRef>([[row.backendUid, toSecretView(row).backend]]);
    for (const v of versions) objects.set(v.backendUid, { k8sNamespace: v.backendNamespace, name: v.backendName, key: v.backendKey, uid: v.backendUid });
    const results: Array<'deleted' | 'missing'> = [];
    for (const ref of objects.values()) results.push(await deps.secretDriver.delete(ref));
    const result = results.every((r) => r === 'missing') ? 'missing' : 'deleted';
    await tx.accessBinding.deleteMany({ where: { scopeKind: 'RESOURCE', resourceKind: 'secret', resourceId: row.id } });
    await tx.secret.delete({ where: { id: row.id } });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'secret.delete',
      resourceKind: 'secret',
      resourceId: row.id,
      namespaceId: row.namespaceId,
      outcome: 'SUCCESS',
      details: { name: row.name, version: row.version, backend: result, objects: results.length },
    });
    return { deletedSecretId: row.id };
  });
}

/**
 * S7: who references a secret: configurations that bind it, agents that use it for harnessAuth,
 * active revisions that deliver it, and pending work (found by the `secretIds` every deploy
 * payload carries). Consumers the actor may not read are counted, not named.
 */
export async function secretConsumers(db: Db | Tx, actor: Actor, secretId: string): Promise<SecretConsumers> {
  const may = await decider(db, actor);
  return (await consumersOfSecrets(db, (r) => may(r).allowed, [secretId])).get(secretId)!;
}

/**
 * The same for many secrets in three statements, whatever their number: a page of secrets
 * with their consumers loads through this (graphql/loaders.ts), not one secret at a time (P3).
 */
export async function consumersOfSecrets(
  db: Db | Tx,
  mayRead: (request: Omit<AccessRequest, 'subjectId'>) => boolean,
  secretIds: readonly string[],
): Promise<Map<string, SecretConsumers>> {
  const ids = [...new Set(secretIds)];
  const [bindings, agents, work, revisions] = await Promise.all([
    db.configurationSecretBinding.findMany({
      where: { secretId: { in: ids } },
      select: { secretId: true, configuration: { select: { id: true, name: true, namespaceId: true } } },
    }),
    db.agent.findMany({ where: { harnessSecretId: { in: ids } }, select: { id: true, name: true, namespaceId: true, harnessSecretId: true } }),
    db.$queryRaw<Array<{ id: string; kind: string; secretIds: unknown }>>`
      SELECT id, kind, payload->'secretIds' AS "secretIds" FROM "WorkItem"
      WHERE state IN ('PENDING', 'RUNNING') AND payload->'secretIds' ?| ${ids}::text[]`,
    // An active revision's gateway references the secret by name: deleting it would keep the
    // gateway from restarting (S7). Stopped, superseded and failed revisions run nothing.
    db.$queryRaw<Array<{ secretId: string; id: string; number: number; namespaceId: string; agentName: string | null }>>`
      SELECT DISTINCT rs."secretId", r.id, r.number, r."namespaceId", a.name AS "agentName"
      FROM "AgentRevisionSecret" rs JOIN "AgentRevision" r ON r.id = rs."revisionId" LEFT JOIN "Agent" a ON a.id = r."agentId"
      WHERE rs."secretId" = ANY(${ids}::text[]) AND r.state = 'ACTIVE'
      ORDER BY r.id`,
  ]);
  const seesWork = mayRead({ action: 'read', resourceKind: 'installation', namespaceId: null, resourceId: null });
  const result = new Map<string, SecretConsumers>();
  for (const secretId of ids) {
    const all: Array<SecretConsumer & { readable: boolean }> = [];
    const configs = new Map<string, { id: string; name: string; namespaceId: string }>();
    for (const b of bindings) if (b.secretId === secretId) configs.set(b.configuration.id, b.configuration);
    for (const c of configs.values()) {
      all.push({ kind: 'configuration', id: c.id, name: c.name, readable: mayRead({ action: 'read', resourceKind: 'configuration', namespaceId: c.namespaceId, resourceId: c.id }) });
    }
    for (const a of agents) {
      if (a.harnessSecretId !== secretId) continue;
      all.push({ kind: 'agent', id: a.id, name: a.name, readable: mayRead({ action: 'read', resourceKind: 'agent', namespaceId: a.namespaceId, resourceId: a.id }) });
    }
    for (const r of revisions) {
      if (r.secretId !== secretId) continue;
      all.push({
        kind: 'revision',
        id: r.id,
        name: `${r.agentName ?? 'deleted agent'} revision ${r.number}`,
        readable: mayRead({ action: 'read', resourceKind: 'agentRevision', namespaceId: r.namespaceId, resourceId: r.id }),
      });
    }
    for (const w of work) {
      if (Array.isArray(w.secretIds) && w.secretIds.includes(secretId)) all.push({ kind: 'work', id: w.id, name: w.kind, readable: seesWork });
    }
    const items = all.filter((c) => c.readable).map(({ readable: _r, ...c }) => c);
    result.set(secretId, { total: all.length, hiddenCount: all.length - items.length, items });
  }
  return result;
}

export interface SecretFilter {
  namePrefix?: string | null;
  /** true: only secrets a configuration binds or an agent's harnessAuth uses; false: only unused ones. */
  used?: boolean | null;
  /** true: only secrets some running revision holds at an older version (W7); false: only the others. */
  stale?: boolean | null;
}

/** A page of the namespace's secrets the actor may read, filtered and ordered in SQL. */
export async function listSecrets(deps: Deps, actor: Actor, namespaceId: string, page: PageRequest, filter: SecretFilter = {}): Promise<PageOf<SecretView>> {
  const readable = await readableBy(deps.db, actor, 'secret');
  const inUse = sql`(EXISTS (SELECT 1 FROM "public"."ConfigurationSecretBinding" b WHERE b."secretId" = "Secret"."id") OR EXISTS (SELECT 1 FROM "public"."Agent" a WHERE a."harnessSecretId" = "Secret"."id"))`;
  const used = filter.used === true ? inUse : filter.used === false ? sql`NOT ${inUse}` : null;
  // The stale set is small (secrets rotated under a running revision) and is read first.
  const staleIds = filter.stale === true || filter.stale === false ? await staleSecretIds(deps.db, namespaceId) : null;
  const stale = filter.stale === true ? sql`"id" = ANY(${staleIds}::text[])` : filter.stale === false ? sql`NOT ("id" = ANY(${staleIds}::text[]))` : null;
  const where = and([sql`"namespaceId" = ${namespaceId}`, namePrefixSql(filter.namePrefix), used, stale]);
  const visible = visibleWithin(readableScopes(readable), '"namespaceId"', namespaceId);
  return sqlKeysetPage(deps.db, page, { columns: sql`*`, table: sql`"public"."Secret"`, where, visible }, toSecretView);
}

export async function isInstallationAdmin(deps: Deps, actor: Actor): Promise<boolean> {
  const d = await check(deps.db, actor, { action: 'administer', resourceKind: 'installation', namespaceId: null, resourceId: null });
  return d.allowed;
}
