import { isRecordedOutsideChange, outsideChangeMarker } from '@occ/domain/field-ownership';
import type { OutsideWriter } from '@occ/domain/secret-driver';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { audit } from './audit.ts';
import type { Deps } from './deps.ts';
import { lockNamespace, lockSecret } from './locks.ts';

// RC4: a secret's Kubernetes Secret whose value another manager changed (kubectl edit, patch,
// apply) holds bytes no version of the product's records: the change counts as a new version
// ("changed outside the product by <manager>", audited), so the revisions that run the old bytes
// show stale and the next deploy delivers this version, never claiming bytes it did not deliver.
// Noticed by the reconciler's periodic look at each ready namespace, and by a deploy's admission.
// A change is known by who made it and when (the managers' entries in managedFields, which a
// manager that changes a field takes from every other); it is recorded once. The product's own
// next write of the value (updateSecret) takes the field back.

export interface ObservedOutsideChange {
  writers: OutsideWriter[];
}

/**
 * Under the namespace and secret locks (the order updateSecret takes them in): records the change
 * as version + 1 unless this change was recorded already. Answers the new version, or null.
 */
export async function recordOutsideChange(tx: Tx, secret: { id: string; namespaceId: string }, observed: ObservedOutsideChange): Promise<number | null> {
  if (!(await lockNamespace(tx, secret.namespaceId)) || !(await lockSecret(tx, secret.id))) return null;
  const row = await tx.secret.findUnique({
    where: { id: secret.id },
    select: { version: true, outsideChangeSeenAt: true, name: true, backendNamespace: true, backendName: true, backendKey: true, backendUid: true },
  });
  const marker = outsideChangeMarker(observed.writers);
  if (!row || isRecordedOutsideChange(row.outsideChangeSeenAt, observed.writers)) return null;
  const version = row.version + 1;
  // V1: only an object an earlier release wrote (not immutable) can change in place; the new
  // version's row names that same object, whose bytes the previous version no longer has.
  const { backendNamespace, backendName, backendKey, backendUid } = row;
  await tx.secretVersion.create({ data: { secretId: secret.id, number: version, backendNamespace, backendName, backendKey, backendUid } });
  await tx.secret.update({ where: { id: secret.id }, data: { version, outsideChangeSeenAt: marker } });
  await audit(tx, {
    actorId: null,
    system: 'reconciler',
    action: 'secret.changedOutside',
    resourceKind: 'secret',
    resourceId: secret.id,
    namespaceId: secret.namespaceId,
    outcome: 'SUCCESS',
    reason: 'CHANGED_OUTSIDE',
    details: { name: row.name, previousVersion: row.version, version, writers: observed.writers.map((w) => ({ manager: w.manager, operation: w.operation, time: w.time })) },
  });
  return version;
}

/** The reconciler's look at one ready namespace: each of its secrets' objects, metadata only. */
export async function observeOutsideChanges(deps: Pick<Deps, 'db' | 'secretDriver' | 'logger'>, namespace: { id: string; k8sName: string }): Promise<string[]> {
  const owned = await deps.secretDriver.listOwned(namespace.k8sName);
  const changed = owned.filter((o) => o.outsideWriters.length > 0);
  if (changed.length === 0) return [];
  const rows = await deps.db.secret.findMany({
    where: { namespaceId: namespace.id, backendName: { in: changed.map((o) => o.name) } },
    select: { id: true, namespaceId: true, backendName: true, backendUid: true, backendNamespace: true, backendKey: true, outsideChangeSeenAt: true },
  });
  const recorded: string[] = [];
  for (const object of changed) {
    const row = rows.find((r) => r.backendName === object.name && r.backendUid === object.uid);
    if (!row || isRecordedOutsideChange(row.outsideChangeSeenAt, object.outsideWriters)) continue;
    // Read again under the locks: a rotation by the product since the list owns the value again.
    const version = await transaction(deps.db as Db, async (tx) => {
      if (!(await lockNamespace(tx, row.namespaceId)) || !(await lockSecret(tx, row.id))) return null;
      const live = await deps.secretDriver.resolve({ k8sNamespace: row.backendNamespace, name: row.backendName, key: row.backendKey, uid: row.backendUid }, { namespaceId: row.namespaceId, secretId: row.id });
      if (live.state !== 'present' || live.outsideWriters.length === 0) return null;
      return recordOutsideChange(tx, row, { writers: live.outsideWriters });
    });
    if (version !== null) recorded.push(row.id);
  }
  return recorded;
}
