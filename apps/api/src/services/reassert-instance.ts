import { z } from 'zod';
import { transaction, type Db } from '../db/client.ts';
import { defineWorkKind, PermanentWorkError, type WorkKind } from '../worker.ts';
import { audit } from './audit.ts';
import { deployKey, renderable, secretContext } from './deploy-work.ts';
import type { Deps } from './deps.ts';
import { findRevision } from './revisions.ts';
import { enqueue } from './work-queue.ts';

// RC1 RC4: the agent's instance is its one desired state, and the active revision's fields in it
// are occ-controller's. When the instance is deleted outside the product, or another manager
// changes the fields occ-controller applied, the reconciler asks for them to be applied again:
// durable work, serialized with the agent's deploys (same concurrency key), which applies the
// active revision's fields as a deploy would (force), after the same source checks (D3, RC4).

export const REASSERT_INSTANCE_KIND = 'agent.reassert';

const ReassertPayload = z.object({
  agentId: z.string().startsWith('agt_'),
  namespaceId: z.string().startsWith('ns_'),
  /** Why: the instance is missing, or managers other than the product's changed its spec. */
  reason: z.enum(['INSTANCE_MISSING', 'CHANGED_OUTSIDE']),
  managers: z.array(z.object({ manager: z.string(), operation: z.string(), paths: z.array(z.string()) })),
});
type ReassertPayload = z.infer<typeof ReassertPayload>;

/**
 * Queues a reassert for the agent unless one is waiting already; audited (naming the managers when
 * another one changed the spec). `observed` keys the request: one per observation of the instance.
 */
export async function requestReassert(db: Db, payload: ReassertPayload, observed: string): Promise<boolean> {
  return transaction(db, async (tx) => {
    const agent = await tx.agent.findUnique({ where: { id: payload.agentId }, select: { desiredState: true, activeRevisionId: true, status: true, namespace: { select: { status: true } } } });
    if (!agent || agent.desiredState !== 'running' || !agent.activeRevisionId || agent.namespace.status !== 'READY' || ['deleting', 'deleted'].includes(agent.status)) return false;
    const key = `${REASSERT_INSTANCE_KIND}:${payload.agentId}:${observed}`;
    if (await tx.workItem.findUnique({ where: { idempotencyKey: key } })) return false;
    const waiting = await tx.workItem.findFirst({ where: { kind: REASSERT_INSTANCE_KIND, concurrencyKey: deployKey(payload.agentId), state: { in: ['PENDING', 'RUNNING'] } } });
    if (waiting) return false;
    await enqueue(tx, REASSERT_INSTANCE_KIND, key, payload, { concurrencyKey: deployKey(payload.agentId) });
    await audit(tx, {
      actorId: null,
      system: 'reconciler',
      action: 'instance.driftRepaired',
      resourceKind: 'agent',
      resourceId: payload.agentId,
      namespaceId: payload.namespaceId,
      outcome: 'SUCCESS',
      reason: payload.reason === 'INSTANCE_MISSING' ? 'DELETED_OUTSIDE' : 'CHANGED_OUTSIDE',
      details: { kind: 'OpenClawInstance', writers: payload.managers.map((m) => ({ ...m, paths: m.paths.slice(0, 20) })), restore: 'the active revision’s fields are applied again' },
    });
    return true;
  });
}

export function reassertInstanceKind(deps: Deps): WorkKind<ReassertPayload> {
  return defineWorkKind({
    kind: REASSERT_INSTANCE_KIND,
    payload: ReassertPayload,
    steps: [
      {
        name: 'apply-active-revision',
        async run(payload) {
          const agent = await deps.db.agent.findUnique({ where: { id: payload.agentId }, select: { desiredState: true, activeRevisionId: true } });
          if (!agent || agent.desiredState !== 'running' || !agent.activeRevisionId) return;
          const revision = await findRevision(deps.db, agent.activeRevisionId);
          if (!revision || (revision.state !== 'active' && revision.state !== 'activating')) return;
          const context = await secretContext(deps.db, deps.installationId, revision);
          try {
            await deps.computeDriver.verifySources(context);
          } catch (error) {
            // A source that is not the version recorded is not delivered again: the gateway stays as it is.
            throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `The active revision's sources are not the ones recorded; its fields were not applied again (${(error as Error).name}).`);
          }
          await deps.computeDriver.applyRevision(renderable(revision), context, { yieldToAgent: true });
          deps.logger.info('instance fields applied again', { agentId: payload.agentId, revisionId: revision.id, reason: payload.reason });
        },
      },
    ],
  });
}
