import { DomainError } from '@occ/domain/errors';
import { audit } from './audit.ts';
import { decider } from './access.ts';
import { deployAgent } from './deploy-agent.ts';
import type { Actor, Deps } from './deps.ts';
import type { RevisionView } from './revisions.ts';
import { staleRevisionsOf, visibleStaleConsumers } from './secret-drift.ts';
import { type SecretView } from './secrets.ts';
import { kinds } from './resource-kinds.ts';

export type ConsumerRedeploy =
  | { agentId: string; agentName: string | null; outcome: 'STARTED'; revision: RevisionView; error: null }
  /** A revision newer than the stale one is already on its way: deploying again would only queue another. */
  | { agentId: string; agentName: string | null; outcome: 'IN_PROGRESS'; revisionId: string; error: null }
  | { agentId: string; agentName: string | null; outcome: 'REFUSED'; error: { code: string; message: string } };

export interface RedeployConsumersResult {
  secret: SecretView;
  redeploys: ConsumerRedeploy[];
}

const IN_FLIGHT = new Set(['queued', 'preparing', 'prepared', 'activating']);

/**
 * W7: deploys, once each, every agent whose running revision holds an older version of the
 * secret, so its next revision reads the current one. Each deploy is an ordinary deployAgent
 * (D1–D4, its own checks and audit event), so this grants nothing a caller could not do agent by
 * agent; a refusal for one agent is reported with its code and does not stop the others. Only
 * revisions the caller may read are considered. Progress is `Secret.staleConsumers`: each stale
 * revision shows its redeploy's state and drops out once that redeploy is active.
 */
export async function redeployConsumers(deps: Deps, actor: Actor, input: { secretId: string }): Promise<RedeployConsumersResult> {
  const secret = await kinds.require(deps, actor, 'secret', input.secretId);
  const may = await decider(deps.db, actor);
  const stale = visibleStaleConsumers((await staleRevisionsOf(deps.db, [secret.id])).get(secret.id) ?? [], (r) => may(r).allowed).items;
  const agents = new Map<string, (typeof stale)[number]>();
  for (const consumer of stale) if (!agents.has(consumer.agentId)) agents.set(consumer.agentId, consumer);
  const redeploys: ConsumerRedeploy[] = [];
  for (const [agentId, consumer] of agents) {
    const base = { agentId, agentName: consumer.agentName };
    if (consumer.redeploy && IN_FLIGHT.has(consumer.redeploy.state)) {
      redeploys.push({ ...base, outcome: 'IN_PROGRESS', revisionId: consumer.redeploy.revisionId, error: null });
      continue;
    }
    try {
      redeploys.push({ ...base, outcome: 'STARTED', revision: await deployAgent(deps, actor, { agentId }), error: null });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      redeploys.push({ ...base, outcome: 'REFUSED', error: { code: error.code, message: error.message } });
    }
  }
  await audit(deps.db, {
    actorId: actor.principalId,
    action: 'secret.redeployConsumers',
    resourceKind: 'secret',
    resourceId: secret.id,
    namespaceId: secret.namespaceId,
    outcome: 'SUCCESS',
    details: {
      version: secret.version,
      redeploys: redeploys.map((r) => ({ agentId: r.agentId, outcome: r.outcome, ...(r.outcome === 'STARTED' ? { revisionId: r.revision.id } : {}), ...(r.error ? { code: r.error.code } : {}) })),
    },
  });
  return { secret, redeploys };
}
