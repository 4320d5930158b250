import { ConfigurationInUseError, NotFoundError } from '@occ/domain/errors';
import { afterRollback, transaction } from '../db/client.ts';
import { authorize, decider } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

/**
 * Refused with CONFIGURATION_IN_USE while any agent selects the configuration (the agents the
 * caller may read are named, the rest counted). Revisions froze their own copy of its values and
 * bindings, so they do not hold it. The namespace lock serializes this with createAgent and
 * updateAgent, which select configurations under the same lock.
 */
export async function deleteConfiguration(deps: Deps, actor: Actor, input: { id: string }): Promise<{ deletedConfigurationId: string }> {
  const existing = await kinds.require(deps, actor, 'configuration', input.id);
  const request = capabilityRequest('configuration', 'delete', existing);
  await authorize(deps, actor, request);
  return transaction(deps.db, async (tx) => {
    if (!(await lockNamespace(tx, existing.namespaceId))) throw new NotFoundError('No such configuration.');
    await authorize(deps, actor, request, tx);
    const row = await tx.configuration.findUnique({ where: { id: existing.id }, select: { id: true, name: true, generation: true, namespaceId: true } });
    if (!row) throw new NotFoundError('No such configuration.');
    const selecting = await tx.agent.findMany({ where: { configurationId: row.id }, select: { id: true, name: true, namespaceId: true }, orderBy: { name: 'asc' } });
    if (selecting.length > 0) {
      const may = await decider(tx, actor);
      const items = selecting
        .filter((a) => may({ action: 'read', resourceKind: 'agent', namespaceId: a.namespaceId, resourceId: a.id }).allowed)
        .map((a) => ({ id: a.id, name: a.name }));
      const error = new ConfigurationInUseError({ total: selecting.length, hiddenCount: selecting.length - items.length, items });
      // The refusal is recorded too, after the rollback so that it survives it.
      afterRollback(error, () =>
        audit(deps.db, {
          actorId: actor.principalId,
          action: 'configuration.delete',
          resourceKind: 'configuration',
          resourceId: row.id,
          namespaceId: row.namespaceId,
          outcome: 'FAILURE',
          reason: error.code,
          details: { agentIds: selecting.map((a) => a.id) },
        }),
      );
      throw error;
    }
    // Bindings and the generation history cascade with the row (the history is the
    // configuration's own, and revisions froze their own copy); grants on it would otherwise outlive their target.
    await tx.accessBinding.deleteMany({ where: { scopeKind: 'RESOURCE', resourceKind: 'configuration', resourceId: row.id } });
    await tx.configuration.delete({ where: { id: row.id } });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'configuration.delete',
      resourceKind: 'configuration',
      resourceId: row.id,
      namespaceId: row.namespaceId,
      outcome: 'SUCCESS',
      details: { name: row.name, generation: row.generation },
    });
    return { deletedConfigurationId: row.id };
  });
}
