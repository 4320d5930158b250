import { BUDGET_REASONS, budgetOf, budgetRefusal, DAY_MS, DEFAULT_SELF_CONFIG_BUDGET, HOUR_MS, type SelfConfigBudget } from '@occ/domain/selfconfig-budget';
import type { InstanceObject } from '../selfconfig/cluster.ts';
import type { AgentView } from './agents.ts';
import type { Deps } from './deps.ts';

// SG4 as an administrator reads it on the agent's page: the budget the agent's instance carries
// (or the installation's default), what it has spent now (from the same history the controller
// counts), and whether a request now would be refused and until when. A page of agents costs
// three statements, whatever its size; the caller may read the agents (a field of Agent).

export interface SelfConfigBudgetView {
  limits: SelfConfigBudget;
  /** Whether the instance sets the limits (else the installation's defaults). */
  fromInstance: boolean;
  requestsInLastHour: number;
  appliedInLastDay: number;
  rollbacksSinceResume: number;
  paused: boolean;
  /** Why a request filed now would be Denied, and when the budget refills (null while paused); null when it fits. */
  refusal: { reason: string; message: string; refillsAt: Date | null } | null;
}

export async function selfConfigBudgets(deps: Deps, agents: readonly AgentView[], instances: readonly (InstanceObject | null)[], now = new Date()): Promise<SelfConfigBudgetView[]> {
  if (agents.length === 0) return [];
  const ids = agents.map((a) => a.id);
  const since = new Date(now.getTime() - DAY_MS);
  const [recent, rollbacks, resumed] = await Promise.all([
    deps.db.selfConfigRequest.findMany({
      where: { agentId: { in: ids }, OR: [{ pendingAt: { gt: new Date(now.getTime() - HOUR_MS), lte: now } }, { phase: 'Applied', completedAt: { gt: since, lte: now } }] },
      select: { agentId: true, phase: true, reason: true, pendingAt: true, completedAt: true },
    }),
    deps.db.selfConfigRequest.groupBy({ by: ['agentId'], where: { agentId: { in: ids }, phase: 'RolledBack' }, _count: { _all: true } }),
    deps.db.agent.findMany({ where: { id: { in: ids } }, select: { id: true, selfConfigRollbacksResumed: true } }),
  ]);
  const defaults = deps.selfConfigBudgetDefaults ?? DEFAULT_SELF_CONFIG_BUDGET;
  const budgetRefused = (r: { phase: string | null; reason: string | null }) => r.phase === 'Denied' && r.reason !== null && (BUDGET_REASONS as readonly string[]).includes(r.reason);
  return agents.map((agent, i) => {
    const spec = instances[i]?.spec;
    const asked = (spec as { selfConfigure?: { budget?: unknown } } | undefined)?.selfConfigure?.budget;
    const limits = budgetOf(spec ?? {}, defaults);
    const mine = recent.filter((r) => r.agentId === agent.id);
    const usage = {
      requestsInLastHour: mine.filter((r) => r.pendingAt && r.pendingAt.getTime() > now.getTime() - HOUR_MS && !budgetRefused(r)).map((r) => r.pendingAt!),
      appliedInLastDay: mine.filter((r) => r.phase === 'Applied' && r.completedAt).map((r) => r.completedAt!),
      rollbacksSinceResume: Math.max(0, (rollbacks.find((r) => r.agentId === agent.id)?._count._all ?? 0) - (resumed.find((a) => a.id === agent.id)?.selfConfigRollbacksResumed ?? 0)),
    };
    const refusal = budgetRefusal(limits, usage, now);
    return {
      limits,
      fromInstance: typeof asked === 'object' && asked !== null,
      requestsInLastHour: usage.requestsInLastHour.length,
      appliedInLastDay: usage.appliedInLastDay.length,
      rollbacksSinceResume: usage.rollbacksSinceResume,
      paused: refusal?.reason === 'SelfConfigPaused',
      refusal,
    };
  });
}
