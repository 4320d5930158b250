import { NotFoundError } from '@occ/domain/errors';
import { requireReadableAgentRow } from './deploy-agent.ts';
import { evaluateDeploy, readSelection, type DeployCheck } from './deploy-checks.ts';
import type { Actor, Deps } from './deps.ts';

// explainDeploy (D6): the checks deployAgent would apply, each with pass or fail and a fix,
// without writing anything: no revision, no work item, no audit event, no lock held.

export interface DeployExplanation {
  agentId: string;
  /** Whether deployAgent would admit the agent now. */
  allowed: boolean;
  checks: DeployCheck[];
}

export async function explainDeploy(deps: Deps, actor: Actor, input: { agentId: string }): Promise<DeployExplanation> {
  const agent = await requireReadableAgentRow(deps, actor, input.agentId);
  const selection = await readSelection(deps.db, agent.id);
  if (!selection) throw new NotFoundError('No such agent.');
  const checks = await evaluateDeploy(deps, deps.db, actor.principalId, selection);
  return { agentId: agent.id, allowed: checks.every((c) => c.passed), checks };
}
