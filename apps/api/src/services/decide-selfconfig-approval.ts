import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { describeTextProblem, textProblem } from '@occ/domain/text';
import { transaction } from '../db/client.ts';
import { auditHiddenDenial, authorize, check } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { toSelfConfigRequestView, type SelfConfigRequestView } from './selfconfig-requests.ts';
import { capabilityRequest } from './capabilities.ts';

// SG3: an administrator approves or rejects a SelfConfig request waiting in AwaitingApproval. The
// decision is a row change, audited in the same transaction; the controller carries it out (an
// approval is planned again against the instance as it is then, never applied from the plan it
// waited with), nudged by a status patch on the object. Needs `administer` on the request's agent:
// a caller who cannot read the agent gets NOT_FOUND (P6), one who can gets FORBIDDEN (A3), and the
// agent's own service principal may never decide its own request.

export const MAX_REJECTION_REASON = 1000;
const NOT_FOUND = 'No such SelfConfig request.';

export interface DecideSelfConfigApprovalInput {
  requestId: string;
  reason?: string | null;
}

type Decision = 'approved' | 'rejected';

async function decideApproval(deps: Deps, actor: Actor, input: DecideSelfConfigApprovalInput, decision: Decision): Promise<SelfConfigRequestView> {
  const reason = input.reason ?? null;
  if (reason !== null) {
    const problem = textProblem(reason);
    if (problem) throw new ValidationError('INVALID_UTF8', `reason contains ${describeTextProblem(problem)}.`, 'reason');
    if (reason.length > MAX_REJECTION_REASON) throw new ValidationError('TOO_LONG', `reason is longer than ${MAX_REJECTION_REASON} characters.`, 'reason');
  }
  const row = isId('selfConfigRequest', input.requestId) ? await deps.db.selfConfigRequest.findUnique({ where: { id: input.requestId }, select: { id: true, agentId: true } }) : null;
  const agent = row?.agentId ? await deps.db.agent.findUnique({ where: { id: row.agentId }, select: { id: true, namespaceId: true, servicePrincipalId: true } }) : null;
  const action = decision === 'approved' ? 'agent.selfconfig.approve' : 'agent.selfconfig.reject';
  if (row && agent && actor.principalId === agent.servicePrincipalId) {
    // The agent reads its own requests (selfConfigRequests), so it is told no, not that none is
    // there; whatever it may be granted, approving itself would make SG3 no check at all.
    await audit(deps.db, { actorId: actor.principalId, action, resourceKind: 'agent', resourceId: agent.id, namespaceId: agent.namespaceId, outcome: 'DENIED', reason: 'an agent may not decide its own request', details: { requestId: row.id } });
    throw new ForbiddenError("An agent's own service principal may not approve or reject its requests (SG3).");
  }
  const readable = agent ? (await check(deps.db, actor, { action: 'read', resourceKind: 'agent', namespaceId: agent.namespaceId, resourceId: agent.id })).allowed : false;
  if (!row || !agent || !readable) {
    if (agent) await auditHiddenDenial(deps, actor, { kind: 'agent', id: agent.id, namespaceId: agent.namespaceId });
    throw new NotFoundError(NOT_FOUND);
  }
  const request = capabilityRequest('agent', 'administer', agent);
  await authorize(deps, actor, request);
  const decided = await transaction(deps.db, async (tx) => {
    await authorize(deps, actor, request, tx);
    const locked = await tx.$queryRaw<Array<{ phase: string; decision: string | null }>>`SELECT phase, "approvalDecision" AS decision FROM "SelfConfigRequest" WHERE id = ${row.id} FOR UPDATE`;
    if (!locked[0]) throw new NotFoundError(NOT_FOUND);
    if (locked[0].phase !== 'AwaitingApproval' || locked[0].decision !== null) {
      throw new ConflictError(`The request is ${locked[0].decision ?? locked[0].phase}, not awaiting approval.`, 'NOT_AWAITING_APPROVAL');
    }
    const updated = await tx.selfConfigRequest.update({
      where: { id: row.id },
      data: { approvalDecision: decision, approvalById: actor.principalId, approvalAt: new Date(), approvalReason: reason },
    });
    await audit(tx, {
      actorId: actor.principalId,
      action,
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: agent.namespaceId,
      outcome: 'SUCCESS',
      details: { requestId: updated.id, uid: updated.uid, name: updated.name, changes: updated.changes, ...(reason !== null ? { reason } : {}) },
    });
    return updated;
  });
  // The nudge: the controller watches the object and looks at its history row again. If it is
  // lost, the controller's resync gets there; the decision is already durable.
  try {
    await deps.selfConfigCluster?.patchRequestStatus(decided.k8sNamespace, decided.name, { approval: { decision, by: actor.principalId, at: decided.approvalAt?.toISOString() } });
  } catch (error) {
    deps.logger.warn('selfconfig: could not nudge the controller after an approval decision', { requestId: decided.id, error });
  }
  return toSelfConfigRequestView(decided);
}

/** SG3: approve a waiting request; the controller re-validates and applies it. */
export function approveSelfConfig(deps: Deps, actor: Actor, input: { requestId: string }): Promise<SelfConfigRequestView> {
  return decideApproval(deps, actor, { requestId: input.requestId }, 'approved');
}

/** SG3: reject a waiting request; it ends Rejected with the reason, and nothing is applied. */
export function rejectSelfConfig(deps: Deps, actor: Actor, input: DecideSelfConfigApprovalInput): Promise<SelfConfigRequestView> {
  return decideApproval(deps, actor, input, 'rejected');
}
