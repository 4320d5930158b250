import { ConflictError, NotFoundError } from '@occ/domain/errors';
import { transaction, type Db } from '../db/client.ts';
import { authorize } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { PROVISION_NAMESPACE, type NamespaceView } from './namespaces.ts';
import { enqueue } from './work-queue.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

// RC5: a Namespace whose Kubernetes namespace disappeared outside the product. Its status says so
// (LOST, with the reason), its agents' runtime says their gateway is gone, work on its way fails
// its re-check (the namespace is not ready), and an administrator can re-provision it. The secret
// values lived in that Kubernetes namespace: they are gone with it, and each must be stored again.

export const LOST_VALUES_NOTE =
  'The secret values stored in it were deleted with it: after re-provisioning, store each secret’s value again (updateSecret), then deploy the agents again.';

export async function markNamespaceLost(db: Db, namespaceId: string, how: 'deleted' | 'being deleted', at: Date): Promise<boolean> {
  return transaction(db, async (tx) => {
    const ns = await lockNamespace(tx, namespaceId);
    if (!ns || ns.status !== 'READY') return false;
    const message = `The Kubernetes namespace ${ns.k8sName} was ${how} outside the product (seen ${at.toISOString()}). ${LOST_VALUES_NOTE}`;
    await tx.namespace.update({ where: { id: namespaceId }, data: { status: 'LOST', statusMessage: message } });
    const agents = await tx.agent.findMany({ where: { namespaceId }, select: { id: true } });
    for (const agent of agents) {
      await tx.$executeRaw`
        INSERT INTO "AgentRuntime" ("agentId", "instanceGeneration", "observedGeneration", "phase", "ready", "reason", "message", "runningRevisionId", "runningGeneration", "observedAt")
        VALUES (${agent.id}, 0, 0, 'Missing', false, 'NamespaceLost', ${`the gateway is gone with its Kubernetes namespace ${ns.k8sName}`}, NULL, NULL, ${at})
        ON CONFLICT ("agentId") DO UPDATE SET "phase" = 'Missing', "ready" = false, "reason" = 'NamespaceLost', "message" = EXCLUDED."message",
          "runningRevisionId" = NULL, "runningGeneration" = NULL, "observedAt" = EXCLUDED."observedAt"`;
    }
    await audit(tx, {
      actorId: null,
      system: 'reconciler',
      action: 'namespace.lost',
      resourceKind: 'namespace',
      resourceId: namespaceId,
      namespaceId,
      outcome: 'FAILURE',
      reason: 'KUBERNETES_NAMESPACE_LOST',
      details: { k8sName: ns.k8sName, how, agents: agents.length },
    });
    return true;
  });
}

export interface ReprovisionResult {
  namespace: NamespaceView;
  /** Says plainly what re-provisioning cannot bring back. */
  note: string;
}

/**
 * RC5: a lost (or failed) Namespace gets its Kubernetes namespace again: provisioning as at
 * creation (K1). Needs `administer` on the namespace. What lived in the old Kubernetes namespace
 * (the secret values, the gateways) is not restored.
 */
export async function reprovisionNamespace(deps: Deps, actor: Actor, input: { id: string }): Promise<ReprovisionResult> {
  const visible = await kinds.require(deps, actor, 'namespace', input.id);
  const request = capabilityRequest('namespace', 'administer', visible);
  await authorize(deps, actor, request);
  await transaction(deps.db, async (tx) => {
    const ns = await lockNamespace(tx, visible.id);
    if (!ns) throw new NotFoundError('No such namespace.');
    await authorize(deps, actor, request, tx);
    if (ns.status !== 'LOST' && ns.status !== 'FAILED') {
      throw new ConflictError(`The namespace is ${ns.status.toLowerCase()}; only a lost or failed namespace is re-provisioned.`, 'NAMESPACE_NOT_LOST');
    }
    await tx.namespace.update({ where: { id: ns.id }, data: { status: 'PROVISIONING', statusMessage: null } });
    await enqueue(tx, PROVISION_NAMESPACE, `${PROVISION_NAMESPACE}:${ns.id}:${Date.now()}`, { namespaceId: ns.id });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'namespace.reprovision',
      resourceKind: 'namespace',
      resourceId: ns.id,
      namespaceId: ns.id,
      outcome: 'SUCCESS',
      details: { previousStatus: ns.status, k8sName: ns.k8sName },
    });
  });
  deps.kickWorker?.();
  const namespace = await kinds.get(deps, actor, 'namespace', visible.id);
  if (!namespace) throw new NotFoundError('No such namespace.');
  return { namespace, note: LOST_VALUES_NOTE };
}
