import { NotFoundError } from '@occ/domain/errors';
import { transaction } from '../db/client.ts';
import { authorize } from './access.ts';
import { type AgentView } from './agents.ts';
import { audit } from './audit.ts';

import type { Actor, Deps } from './deps.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

export interface ResumeSelfConfigResult {
  agent: AgentView;
  /** The agent's rollbacks not yet resumed before this call (the ones that paused it, if it was). */
  rollbacksResumed: number;
}

/**
 * SG4: an agent paused after K rollbacks stays paused until an administrator resumes it. A resume
 * marks every rollback so far as seen (the controller counts only those beyond it), so the next K
 * pause the agent again. Needs `administer` on the agent; audited with the count it cleared.
 */
export async function resumeSelfConfig(deps: Deps, actor: Actor, input: { agentId: string }): Promise<ResumeSelfConfigResult> {
  const agent = await kinds.require(deps, actor, 'agent', input.agentId);
  const request = capabilityRequest('agent', 'administer', agent);
  await authorize(deps, actor, request);
  const rollbacksResumed = await transaction(deps.db, async (tx) => {
    await authorize(deps, actor, request, tx);
    const rows = await tx.$queryRaw<Array<{ resumed: number }>>`SELECT "selfConfigRollbacksResumed" AS resumed FROM "Agent" WHERE id = ${agent.id} FOR UPDATE`;
    if (!rows[0]) throw new NotFoundError('No such agent.');
    const rollbacks = await tx.selfConfigRequest.count({ where: { agentId: agent.id, phase: 'RolledBack' } });
    await tx.agent.update({ where: { id: agent.id }, data: { selfConfigRollbacksResumed: rollbacks } });
    const cleared = Math.max(0, rollbacks - rows[0].resumed);
    await audit(tx, {
      actorId: actor.principalId,
      action: 'agent.selfconfig.resume',
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: agent.namespaceId,
      outcome: 'SUCCESS',
      details: { rollbacksResumed: cleared, rollbacksTotal: rollbacks },
    });
    return cleared;
  });
  const view = await kinds.get(deps, actor, 'agent', agent.id);
  if (!view) throw new NotFoundError('No such agent.');
  return { agent: view, rollbacksResumed };
}
