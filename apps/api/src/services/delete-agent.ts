import { ConflictError, NotFoundError, OutcomeUnknownError } from '@occ/domain/errors';
import { BackendOutcomeUnknown } from '@occ/domain/secret-driver';
import type { RemovedObject } from '../drivers/kubernetes-agent-objects.ts';
import { afterRollback, transaction, type Tx } from '../db/client.ts';
import { authorize } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

export interface DeleteAgentResult {
  deletedAgentId: string;
  removedObjects: RemovedObject[];
}

async function lockAgent(tx: Tx, agentId: string): Promise<{ id: string; name: string; desiredState: string; servicePrincipalId: string } | null> {
  const rows = await tx.$queryRaw<Array<{ id: string; name: string; desiredState: string; servicePrincipalId: string }>>`
    SELECT id, name, "desiredState", "servicePrincipalId" FROM "Agent" WHERE id = ${agentId} FOR UPDATE`;
  return rows[0] ?? null;
}

/** Work not yet finished that names the agent: a deploy queued or running would recreate its objects. */
async function pendingWorkFor(tx: Tx, agentId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM "WorkItem" WHERE state IN ('PENDING', 'RUNNING') AND payload->>'agentId' = ${agentId}`;
  return rows.map((r) => r.id);
}

/**
 * Only a stopped agent may be deleted (stopAgent first), and only when no work for it is pending.
 * Its Kubernetes objects are found by its labels and deleted (uid preconditions); a partial
 * removal rolls the metadata back, and a retry removes the rest. Its revisions stay, for audit.
 * Its service principal stays as the revisions' record of who consumed what, disabled, with its
 * keys revoked and its grants removed, so nothing can act as the deleted agent.
 */
export async function deleteAgent(deps: Deps, actor: Actor, input: { id: string }): Promise<DeleteAgentResult> {
  const existing = await kinds.require(deps, actor, 'agent', input.id);
  const request = capabilityRequest('agent', 'delete', existing);
  await authorize(deps, actor, request);
  return transaction(deps.db, async (tx) => {
    const ns = await lockNamespace(tx, existing.namespaceId);
    if (!ns) throw new NotFoundError('No such agent.');
    await authorize(deps, actor, request, tx);
    const agent = await lockAgent(tx, existing.id);
    if (!agent) throw new NotFoundError('No such agent.');
    const refuse = (error: ConflictError, details: Record<string, unknown>) => {
      afterRollback(error, () =>
        audit(deps.db, {
          actorId: actor.principalId,
          action: 'agent.delete',
          resourceKind: 'agent',
          resourceId: agent.id,
          namespaceId: existing.namespaceId,
          outcome: 'FAILURE',
          reason: error.code,
          details,
        }),
      );
      return error;
    };
    if (agent.desiredState !== 'stopped') {
      throw refuse(new ConflictError(`The agent is ${agent.desiredState}; stop it (stopAgent) before deleting it.`, 'AGENT_NOT_STOPPED'), { desiredState: agent.desiredState });
    }
    const work = await pendingWorkFor(tx, agent.id);
    if (work.length > 0) {
      throw refuse(new ConflictError(`Work for the agent is still pending (${work.join(', ')}); wait for it to finish, then retry.`, 'AGENT_WORK_PENDING'), { workItemIds: work });
    }
    const removedObjects = await deps.agentObjects.removeAll({ k8sNamespace: ns.k8sName, namespaceId: existing.namespaceId, agentId: agent.id }).catch((error: unknown) => {
      if (error instanceof BackendOutcomeUnknown) throw new OutcomeUnknownError('Kubernetes did not confirm a delete; nothing was recorded. Retry: what is gone stays gone.');
      throw error;
    });
    await tx.accessBinding.deleteMany({ where: { OR: [{ scopeKind: 'RESOURCE', resourceKind: 'agent', resourceId: agent.id }, { subjectId: agent.servicePrincipalId }] } });
    await tx.apiKey.updateMany({ where: { principalId: agent.servicePrincipalId, revokedAt: null }, data: { revokedAt: new Date() } });
    await tx.principal.update({ where: { id: agent.servicePrincipalId }, data: { disabledAt: new Date() } });
    await tx.agent.delete({ where: { id: agent.id } });
    await tx.agentRuntime.deleteMany({ where: { agentId: agent.id } });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'agent.delete',
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: existing.namespaceId,
      outcome: 'SUCCESS',
      details: { name: agent.name, servicePrincipalId: agent.servicePrincipalId, removedObjects },
    });
    return { deletedAgentId: agent.id, removedObjects };
  });
}
