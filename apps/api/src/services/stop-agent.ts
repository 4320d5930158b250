import { NotFoundError, OutcomeUnknownError } from '@occ/domain/errors';
import { BackendOutcomeUnknown } from '@occ/domain/secret-driver';
import { transaction } from '../db/client.ts';
import { authorize } from './access.ts';
import { type AgentView } from './agents.ts';
import { audit } from './audit.ts';
import { moveRevisions, storedMove } from './revision-states.ts';

import { DEPLOY_WORK_KINDS } from './deploy-work-payload.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

export interface StopAgentResult {
  agent: AgentView;
  /** The revisions this stop ended: the active one and any still on their way. */
  stoppedRevisionIds: string[];
  gateway: 'scaled' | 'missing';
}

/** The revisions a stop ends: those running or on their way (the states W6's event applies to). */
const RUNNING_OR_ON_ITS_WAY = storedMove('stopped').from;

/**
 * W6: the gateway scaled to zero, the desired state stopped, and the agent's revisions stopped:
 * the active one, and those still on their way, whose worker steps then find them no longer in
 * the state they expect and do nothing more. Needs `deploy` on the agent (the permission that
 * starts it). Idempotent: stopping a stopped agent changes nothing but scales again.
 *
 * A worker already past its last state check may still apply the gateway after this commit, so
 * the stop waits for the agent's running deploy steps to end (bounded) and scales to zero again.
 */
export async function stopAgent(deps: Deps, actor: Actor, input: { agentId: string }, options: { settleMs?: number } = {}): Promise<StopAgentResult> {
  const agent = await kinds.require(deps, actor, 'agent', input.agentId);
  const request = capabilityRequest('agent', 'deploy', agent);
  await authorize(deps, actor, request);
  let target = { k8sNamespace: '', namespaceId: agent.namespaceId, agentId: agent.id };
  const result = await transaction(deps.db, async (tx) => {
    const ns = await lockNamespace(tx, agent.namespaceId);
    if (!ns) throw new NotFoundError('No such agent.');
    await authorize(deps, actor, request, tx);
    const rows = await tx.$queryRaw<Array<{ desiredState: string }>>`SELECT "desiredState" FROM "Agent" WHERE id = ${agent.id} FOR UPDATE`;
    if (!rows[0]) throw new NotFoundError('No such agent.');
    target = { k8sNamespace: ns.k8sName, namespaceId: agent.namespaceId, agentId: agent.id };
    const stopping = await tx.agentRevision.findMany({ where: { agentId: agent.id, state: { in: RUNNING_OR_ON_ITS_WAY } }, select: { id: true }, orderBy: { number: 'asc' } });
    await moveRevisions(tx, { id: { in: stopping.map((r) => r.id) } }, 'stopped');
    await tx.agent.update({ where: { id: agent.id }, data: { desiredState: 'stopped', activeRevisionId: null } });
    // Inside the transaction: a failed scale records nothing, and the stop can be retried.
    const gateway = await scale(deps, target);
    await audit(tx, {
      actorId: actor.principalId,
      action: 'agent.stop',
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: agent.namespaceId,
      outcome: 'SUCCESS',
      details: { previousDesiredState: rows[0].desiredState, stoppedRevisionIds: stopping.map((r) => r.id), gateway },
    });
    return { stoppedRevisionIds: stopping.map((r) => r.id), gateway };
  });
  if (await settle(deps, agent.id, options.settleMs ?? 15_000)) await scale(deps, target);
  // D5: a stopped revision is retired, and its copy of the model key with it.
  await deps.computeDriver.retireModelAuth(agent.id, target.k8sNamespace, null).catch((error: unknown) => deps.logger.warn('could not retire model-auth Secrets', { error, agentId: agent.id }));
  const view = await kinds.get(deps, actor, 'agent', agent.id);
  if (!view) throw new NotFoundError('No such agent.');
  return { agent: view, ...result };
}

async function scale(deps: Deps, target: { k8sNamespace: string; namespaceId: string; agentId: string }): Promise<'scaled' | 'missing'> {
  try {
    return await deps.agentObjects.scaleGatewayToZero(target);
  } catch (error) {
    if (error instanceof BackendOutcomeUnknown) throw new OutcomeUnknownError('Kubernetes did not confirm the scale to zero; stop the agent again.');
    throw error;
  }
}

/** Waits while a deploy step of the agent runs; true when one was running (the gateway may have been applied meanwhile). */
async function settle(deps: Deps, agentId: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let waited = false;
  for (;;) {
    const running = await deps.db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM "WorkItem"
      WHERE kind = ANY(${[...DEPLOY_WORK_KINDS]}::text[]) AND state = 'RUNNING' AND payload->>'agentId' = ${agentId}`;
    if ((running[0]?.n ?? 0) === 0 || Date.now() > deadline) return waited;
    waited = true;
    await new Promise((r) => setTimeout(r, 100));
  }
}
