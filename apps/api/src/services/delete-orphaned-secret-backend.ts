import { ID_PREFIXES } from '@occ/domain/ids';
import { ConflictError, NotFoundError, OutcomeUnknownError } from '@occ/domain/errors';
import { SECRET_ID_LABEL, SECRET_VALUE_KEY } from '@occ/domain/kubernetes-names';
import { BackendOutcomeUnknown } from '@occ/domain/secret-driver';
import { transaction } from '../db/client.ts';
import { authorize } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { isSecretBackendObject } from './orphans.ts';

/** DNS-1123 subdomain (Secret names; namespace names are the stricter labels), and a uid's alphabet. */
const K8S_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const UID = /^[0-9a-fA-F-]{1,64}$/;

export interface OrphanTarget {
  k8sNamespace: string;
  name: string;
  uid: string;
}

const INSTALLATION = { action: 'administer', resourceKind: 'installation', namespaceId: null, resourceId: null } as const;

/**
 * S5 recovery: deletes one backend object that `orphanedSecretBackends` lists, for installation
 * administrators. Only an object that is still an orphan: labelled as this installation's secret
 * backend (so never another installation's, nor an object we did not create), with the uid given,
 * and pointed at by no secret. The delete carries a uid precondition, so an object recreated
 * under the same name is never touched. The namespace lock waits out a createSecret in flight,
 * whose object is an orphan only until its commit.
 */
export async function deleteOrphanedSecretBackend(deps: Deps, actor: Actor, target: OrphanTarget): Promise<{ deleted: OrphanTarget; result: 'deleted' | 'missing' }> {
  await authorize(deps, actor, INSTALLATION);
  // A target no Kubernetes object could have (NUL, spaces, a wrong length) names nothing: it is
  // not found, before it reaches PostgreSQL or the API server (P4).
  if (!K8S_NAME.test(target.k8sNamespace) || !K8S_NAME.test(target.name) || !UID.test(target.uid)) throw new NotFoundError('No such orphaned backend object.');
  const namespace = await deps.db.namespace.findUnique({ where: { k8sName: target.k8sNamespace }, select: { id: true } });
  if (!namespace) throw new NotFoundError('No such orphaned backend object.');
  return transaction(deps.db, async (tx): Promise<{ deleted: OrphanTarget; result: 'deleted' | 'missing' }> => {
    if (!(await lockNamespace(tx, namespace.id))) throw new NotFoundError('No such orphaned backend object.');
    await authorize(deps, actor, INSTALLATION, tx);
    // listOwned selects this installation's labels: a foreign object is simply not found.
    const live = (await deps.secretDriver.listOwned(target.k8sNamespace)).find((o) => o.name === target.name && o.uid === target.uid);
    if (!live || !isSecretBackendObject(live)) throw new NotFoundError('No such orphaned backend object.');
    const recorded =
      (await tx.secret.findFirst({ where: { backendUid: target.uid }, select: { id: true } })) ??
      (await tx.secretVersion.findFirst({ where: { backendUid: target.uid, retiredAt: null }, select: { secretId: true } }).then((v) => (v ? { id: v.secretId } : null)));
    if (recorded) throw new ConflictError(`The object is the backend of secret ${recorded.id}, not an orphan; delete the secret instead.`, 'NOT_ORPHANED');
    const result = await deps.secretDriver.delete({ k8sNamespace: target.k8sNamespace, name: target.name, key: SECRET_VALUE_KEY, uid: target.uid }).catch((error: unknown) => {
      if (error instanceof BackendOutcomeUnknown) throw new OutcomeUnknownError('Kubernetes did not confirm the delete; list the orphaned objects again and retry.');
      throw error;
    });
    const secretUuid = live.labels[SECRET_ID_LABEL];
    await audit(tx, {
      actorId: actor.principalId,
      action: 'secret.orphan.delete',
      resourceKind: 'secret',
      resourceId: secretUuid ? ID_PREFIXES.secret + secretUuid : null,
      namespaceId: namespace.id,
      outcome: 'SUCCESS',
      details: { k8sNamespace: target.k8sNamespace, name: target.name, uid: target.uid, result },
    });
    return { deleted: target, result };
  });
}
