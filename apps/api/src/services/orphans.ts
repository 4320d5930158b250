import { ID_PREFIXES } from '@occ/domain/ids';
import { AGENT_ID_LABEL, NAMESPACE_ID_LABEL, SECRET_ID_LABEL } from '@occ/domain/kubernetes-names';
import type { OwnedBackendObject } from '@occ/domain/secret-driver';
import { authorize } from './access.ts';
import type { Actor, Deps } from './deps.ts';

export interface OrphanedSecretBackend {
  k8sNamespace: string;
  name: string;
  uid: string;
  namespaceId: string | null;
  secretId: string | null;
  createdAt: Date | null;
}

/**
 * S5: Kubernetes Secrets labelled as ours that no secret's metadata points at — what an
 * OUTCOME_UNKNOWN create or a failed compensation can leave behind — listed for an installation
 * administrator to recover or delete. Metadata only.
 */
export async function listOrphanedSecretBackends(deps: Deps, actor: Actor): Promise<OrphanedSecretBackend[]> {
  await authorize(deps, actor, { action: 'administer', resourceKind: 'installation', namespaceId: null, resourceId: null });
  const namespaces = await deps.db.namespace.findMany({ where: { status: 'READY' }, select: { k8sName: true }, orderBy: { createdAt: 'asc' } });
  // V1: every version's object that is not retired is a secret's, not only the current one.
  const known = new Set([
    ...(await deps.db.secret.findMany({ select: { backendUid: true } })).map((s) => s.backendUid),
    ...(await deps.db.secretVersion.findMany({ where: { retiredAt: null }, select: { backendUid: true } })).map((v) => v.backendUid),
  ]);
  const orphans: OrphanedSecretBackend[] = [];
  for (const ns of namespaces) {
    for (const object of await deps.secretDriver.listOwned(ns.k8sName)) {
      if (known.has(object.uid) || !isSecretBackendObject(object)) continue;
      const nsUuid = object.labels[NAMESPACE_ID_LABEL];
      const secretUuid = object.labels[SECRET_ID_LABEL];
      orphans.push({
        k8sNamespace: ns.k8sName,
        name: object.name,
        uid: object.uid,
        namespaceId: nsUuid ? ID_PREFIXES.namespace + nsUuid : null,
        secretId: secretUuid ? ID_PREFIXES.secret + secretUuid : null,
        createdAt: object.createdAt,
      });
    }
  }
  return orphans;
}

/**
 * A secret's backend object, as the secret driver labels it. Other Secrets of ours (an agent's
 * revision-owned model-key copy, D5) are not secrets' backends, so never orphans of one.
 */
export function isSecretBackendObject(object: Pick<OwnedBackendObject, 'labels'>): boolean {
  return object.labels[SECRET_ID_LABEL] !== undefined && object.labels[AGENT_ID_LABEL] === undefined;
}
