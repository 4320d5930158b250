import { z } from 'zod';
import { ConflictError, DomainError, NotFoundError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import {
  effectiveRotationPolicy,
  nextRolloutAction,
  OPEN_ROLLOUT_STATES,
  parseRotationPolicy,
  rolloutBatchMove,
  rolloutTransition,
  type MemberRevisionState,
  type OpenBatch,
  type RolloutBatchEvent,
  type RolloutBatchState,
  type RolloutEvent,
  type RotationPolicy,
  type RotationPolicySource,
  type RolloutState,
} from '@occ/domain/secret-rotation';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { newId } from '../ids.ts';
import { defineWorkKind, WaitUntil, type StepContext, type WorkKind } from '../worker.ts';
import { authorize, check, requireVisible } from './access.ts';
import { audit } from './audit.ts';
import { deployAgent } from './deploy-agent.ts';
import { readSelection } from './deploy-checks.ts';
import type { Actor, Deps } from './deps.ts';
import { revisionState } from './revisions.ts';
import { rollbackAgent } from './rollback-agent.ts';
import { staleRevisionsOf } from './secret-drift.ts';
import { enqueue, wake } from './work-queue.ts';
import { rolloutKey, SECRET_ROLLOUT_KIND, stepKey } from './rollout-keys.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

// V4 rotation rollouts. A rotation of a secret whose policy is automatic opens a rollout (or, while
// one is open, moves its target: the debounce), and the rollout worker delivers the secret's
// current version to its consumers batch by batch: each batch's deploys are ordinary deploys made
// as the rotator (D1–D4; a rollout grants nothing its rotator could not do agent by agent, as
// redeployConsumers), each batch must be Ready within the policy's deadline, and a batch that is
// not is rolled back to the revisions its agents ran before (rollbackAgent, V7). Every decision is
// nextRolloutAction's, over what is stored and what runs; every write is a lease-checked
// checkpoint, and each revision a batch deploys carries its step (AgentRevision.rolloutStep), so a
// rollout resumed by another worker deploys nothing twice.

const RolloutPayload = z.object({ rolloutId: z.string() });
type RolloutPayload = z.infer<typeof RolloutPayload>;

/** How long a rollout that waits for a person (approval, resume) sleeps before it looks again, if nobody wakes it. */
const IDLE_RECHECK_MS = 60_000;
/**
 * How often a batch that is becoming Ready is looked at if nothing wakes it: a safety net only. Each
 * member's revision wakes the rollout as it settles (rollout-keys.ts), and a wake that comes while
 * the rollout runs its pass is kept for its next (work-queue.ts). The batch's deadline wakes it too.
 */
const BATCH_RECHECK_MS = 5_000;

export interface RolloutMemberView {
  agentId: string;
  /** The revision the agent ran when the batch started (the one a rollback returns to). */
  fromRevisionId: string;
  revisionId: string | null;
  revisionState: MemberRevisionState | null;
  /** Why the batch's revision failed, when it did (what a failed batch's reason quotes). */
  revisionFailure: { code: string | null; message: string | null } | null;
  rollbackRevisionId: string | null;
  refusal: { code: string; message: string } | null;
}

export interface RolloutBatchView {
  index: number;
  state: RolloutBatchState;
  targetVersion: number;
  startedAt: Date;
  endedAt: Date | null;
  reason: { code: string; message: string } | null;
  members: RolloutMemberView[];
}

export interface RolloutView {
  id: string;
  secretId: string;
  namespaceId: string;
  state: RolloutState;
  policy: RotationPolicy;
  targetVersion: number;
  rotations: number;
  lastRotatedAt: Date;
  rotatedById: string;
  approvedById: string | null;
  approvedAt: Date | null;
  reason: { code: string; message: string } | null;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
  batches: RolloutBatchView[];
}

interface StoredMember {
  agentId: string;
  fromRevisionId: string;
  refusal?: { code: string; message: string } | null;
}

/** The effective policy of a secret (its own, else its namespace's default, else manual). */
export async function rotationPolicyOf(db: Db | Tx, secretId: string): Promise<{ policy: RotationPolicy; source: RotationPolicySource } | null> {
  const row = await db.secret.findUnique({ where: { id: secretId }, select: { rotationPolicy: true, namespace: { select: { secretRotationPolicy: true } } } });
  return row ? effectiveRotationPolicy(row.rotationPolicy, row.namespace.secretRotationPolicy) : null;
}

/** Every rollout of the given secrets, newest first, at most `limit` each (request loaders). */
export async function rolloutsOfSecrets(db: Db | Tx, secretIds: readonly string[], limit = 10): Promise<Map<string, RolloutView[]>> {
  const result = new Map<string, RolloutView[]>(secretIds.map((id) => [id, []]));
  if (secretIds.length === 0) return result;
  const rows = await db.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY "secretId" ORDER BY "createdAt" DESC, id DESC) AS n FROM "SecretRollout" WHERE "secretId" = ANY(${[...secretIds]}::text[])) r
    WHERE n <= ${limit}`;
  for (const view of await readRollouts(db, rows.map((r) => r.id))) result.get(view.secretId)?.push(view);
  for (const list of result.values()) list.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  return result;
}

export async function readRollouts(db: Db | Tx, ids: readonly string[]): Promise<RolloutView[]> {
  if (ids.length === 0) return [];
  const [rows, revisions] = await Promise.all([
    db.secretRollout.findMany({ where: { id: { in: [...ids] } }, include: { batches: { orderBy: { index: 'asc' } } } }),
    db.agentRevision.findMany({ where: { OR: ids.map((id) => ({ rolloutStep: { startsWith: `${id}/` } })) }, select: { id: true, agentId: true, state: true, failureCode: true, failureMessage: true, rolloutStep: true } }),
  ]);
  const byStep = new Map(revisions.map((r) => [`${r.rolloutStep}/${r.agentId}`, r]));
  return rows.map((row) => ({
    id: row.id,
    secretId: row.secretId,
    namespaceId: row.namespaceId,
    state: row.state as RolloutState,
    policy: parseRotationPolicy(row.policy),
    targetVersion: row.targetVersion,
    rotations: row.rotations,
    lastRotatedAt: row.lastRotatedAt,
    rotatedById: row.rotatedById,
    approvedById: row.approvedById,
    approvedAt: row.approvedAt,
    reason: row.reasonCode ? { code: row.reasonCode, message: row.reasonMessage ?? '' } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    endedAt: row.endedAt,
    batches: row.batches.map((b) => ({
      index: b.index,
      state: b.state as RolloutBatchView['state'],
      targetVersion: b.targetVersion,
      startedAt: b.startedAt,
      endedAt: b.endedAt,
      reason: b.reasonCode ? { code: b.reasonCode, message: b.reasonMessage ?? '' } : null,
      members: (b.members as unknown as StoredMember[]).map((m) => {
        const delivered = byStep.get(`${stepKey(row.id, b.index, 'deliver')}/${m.agentId}`);
        const rollback = byStep.get(`${stepKey(row.id, b.index, 'rollback')}/${m.agentId}`);
        return {
          agentId: m.agentId,
          fromRevisionId: m.fromRevisionId,
          revisionId: delivered?.id ?? null,
          revisionState: delivered ? revisionState(delivered.state) : null,
          revisionFailure: delivered ? { code: delivered.failureCode, message: delivered.failureMessage } : null,
          rollbackRevisionId: rollback?.id ?? null,
          refusal: m.refusal ?? null,
        };
      }),
    })),
  }));
}


/**
 * Called by updateSecret in its transaction, after the secret's version moved: opens a rollout
 * when the policy is automatic, or moves the open one's target (and asks for approval again when
 * the policy needs it). Answers the rollout, or null under a manual policy.
 */
export async function rolloutOnRotation(tx: Tx, actor: Actor, secret: { id: string; namespaceId: string; version: number }): Promise<{ id: string; state: RolloutState; opened: boolean } | null> {
  const effective = await rotationPolicyOf(tx, secret.id);
  if (!effective || effective.policy.mode !== 'AUTOMATIC') return null;
  const open = await tx.$queryRaw<Array<{ id: string; state: string; policy: unknown; rotations: number }>>`
    SELECT id, state, policy, rotations FROM "SecretRollout" WHERE "secretId" = ${secret.id} AND state = ANY(${[...OPEN_ROLLOUT_STATES]}::text[]) FOR UPDATE`;
  const now = new Date();
  if (open[0]) {
    const current = open[0];
    const moved = rolloutTransition(current.state as RolloutState, { kind: 'rotated', policy: parseRotationPolicy(current.policy) });
    if (!moved.ok) throw new Error(`unreachable: an open rollout refused a rotation (${moved.message})`);
    const state = moved.to!;
    const reapprove = state === 'AWAITING_APPROVAL';
    await tx.secretRollout.update({
      where: { id: current.id },
      data: { targetVersion: secret.version, rotations: current.rotations + 1, lastRotatedAt: now, rotatedById: actor.principalId, state, ...(reapprove ? { approvedById: null, approvedAt: null } : {}) },
    });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'secret.rollout.retarget',
      resourceKind: 'secret',
      resourceId: secret.id,
      namespaceId: secret.namespaceId,
      outcome: 'SUCCESS',
      details: { rolloutId: current.id, targetVersion: secret.version, state, reason: moved.reason },
    });
    await wake(tx, rolloutKey(current.id));
    return { id: current.id, state, opened: false };
  }
  const id = newId('secretRollout');
  const opened = rolloutTransition(null, { kind: 'rotated', policy: effective.policy });
  if (!opened.ok) throw new Error(`unreachable: a rotation refused to open a rollout (${opened.message})`);
  const state = opened.to!;
  await tx.secretRollout.create({
    data: { id, secretId: secret.id, namespaceId: secret.namespaceId, state, policy: { ...effective.policy }, targetVersion: secret.version, lastRotatedAt: now, rotatedById: actor.principalId },
  });
  await enqueue(tx, SECRET_ROLLOUT_KIND, rolloutKey(id), { rolloutId: id } satisfies RolloutPayload);
  await audit(tx, {
    actorId: actor.principalId,
    action: 'secret.rollout.open',
    resourceKind: 'secret',
    resourceId: secret.id,
    namespaceId: secret.namespaceId,
    outcome: 'SUCCESS',
    details: { rolloutId: id, targetVersion: secret.version, state, reason: opened.reason, policy: { ...effective.policy }, policySource: effective.source },
  });
  return { id, state, opened: true };
}

export interface PolicyResult {
  policy: RotationPolicy;
  source: RotationPolicySource;
}

/** V4: a secret's own policy (null: inherit the namespace's). Needs administer on the secret. */
export async function setSecretRotationPolicy(deps: Deps, actor: Actor, input: { secretId: string; policy: unknown }): Promise<PolicyResult & { secretId: string }> {
  const policy = input.policy === null ? null : parseRotationPolicy(input.policy);
  const row = isId('secret', input.secretId) ? await deps.db.secret.findUnique({ where: { id: input.secretId }, select: { id: true, namespaceId: true } }) : null;
  const readable = row && (await check(deps.db, actor, { action: 'read', resourceKind: 'secret', namespaceId: row.namespaceId, resourceId: row.id })).allowed;
  const secret = await requireVisible(deps, actor, { kind: 'secret', id: input.secretId }, readable ? row : null, async () => row);
  await authorize(deps, actor, capabilityRequest('secret', 'administer', secret));
  return transaction(deps.db, async (tx) => {
    await tx.secret.update({ where: { id: secret.id }, data: { rotationPolicy: policy ? { ...policy } : (null as never) } });
    const effective = (await rotationPolicyOf(tx, secret.id))!;
    await audit(tx, {
      actorId: actor.principalId,
      action: 'secret.rotationPolicy.set',
      resourceKind: 'secret',
      resourceId: secret.id,
      namespaceId: secret.namespaceId,
      outcome: 'SUCCESS',
      details: { policy: policy ? { ...policy } : null, effective: { ...effective.policy }, source: effective.source },
    });
    return { secretId: secret.id, ...effective };
  });
}

/** V4: the default of a namespace's secrets that set none (null: manual). Needs administer on the namespace. */
export async function setNamespaceRotationPolicy(deps: Deps, actor: Actor, input: { namespaceId: string; policy: unknown }): Promise<{ namespaceId: string; policy: RotationPolicy | null }> {
  const policy = input.policy === null ? null : parseRotationPolicy(input.policy);
  const row = isId('namespace', input.namespaceId) ? await deps.db.namespace.findUnique({ where: { id: input.namespaceId }, select: { id: true } }) : null;
  const readable = row && (await check(deps.db, actor, { action: 'read', resourceKind: 'namespace', namespaceId: row.id, resourceId: row.id })).allowed;
  const ns = await requireVisible(deps, actor, { kind: 'namespace', id: input.namespaceId }, readable ? row : null, async () => (row ? { namespaceId: row.id } : null));
  await authorize(deps, actor, capabilityRequest('namespace', 'administer', ns));
  return transaction(deps.db, async (tx) => {
    await tx.namespace.update({ where: { id: ns.id }, data: { secretRotationPolicy: policy ? { ...policy } : (null as never) } });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'namespace.secretRotationPolicy.set',
      resourceKind: 'namespace',
      resourceId: ns.id,
      namespaceId: ns.id,
      outcome: 'SUCCESS',
      details: { policy: policy ? { ...policy } : null },
    });
    return { namespaceId: ns.id, policy };
  });
}

export function namespaceRotationPolicy(stored: unknown): RotationPolicy | null {
  const { policy, source } = effectiveRotationPolicy(null, stored);
  return source === 'NAMESPACE' ? policy : null;
}

export const DECISIONS = ['approve', 'pause', 'resume', 'abort'] as const;
type Decision = (typeof DECISIONS)[number];

/** A decision as an event of the rollout's lifecycle, as the rollout stands and for whom. */
function decisionEvent(decision: Decision, rollout: { policy: RotationPolicy; rotatedById: string; approvedById: string | null }, deciderId: string): RolloutEvent {
  if (decision === 'approve') return { kind: 'approve', policy: rollout.policy, rotatorId: rollout.rotatedById, approverId: deciderId };
  if (decision === 'resume') return { kind: 'resume', policy: rollout.policy, approved: rollout.approvedById !== null };
  return { kind: decision };
}

export interface DecisionCheck {
  allowed: boolean;
  /** Why not: the rollout's state does not take it, the decider may not administer the secret, or (approve) rotated it. */
  code: 'ROLLOUT_STATE_CONFLICT' | 'FORBIDDEN' | 'ROLLOUT_APPROVER_IS_ROTATOR' | null;
  message: string | null;
}

/**
 * Whether `deciderId` may take `decision` on the rollout now: what decideRollout would answer, from
 * the same lifecycle (secret-rotation.ts rolloutTransition) and the same access request
 * (`mayAdminister`, decided by the caller). A decision the state does not take is named first, as
 * nobody may take it; then access; then the policy's second pair of eyes.
 */
export function decisionCheck(rollout: RolloutView, decision: Decision, deciderId: string, mayAdminister: boolean): DecisionCheck {
  const moved = rolloutTransition(rollout.state, decisionEvent(decision, rollout, deciderId));
  if (!moved.ok && moved.code === 'ROLLOUT_STATE_CONFLICT') return { allowed: false, code: moved.code, message: moved.message };
  if (!mayAdminister) return { allowed: false, code: 'FORBIDDEN', message: `Deciding on a rollout needs administer on its secret.` };
  if (!moved.ok) return { allowed: false, code: moved.code, message: moved.message };
  return { allowed: true, code: null, message: null };
}

/**
 * V4 a person's decision on an open rollout: approve (before its first batch, or again after a
 * new rotation), pause and resume (the batch in flight finishes; no next one starts while
 * paused), abort (no further batch; what was delivered stays). Each needs administer on the secret
 * and is audited; a decision the rollout's state does not allow is a CONFLICT naming its state.
 */
export async function decideRollout(deps: Deps, actor: Actor, input: { rolloutId: string; decision: Decision }): Promise<RolloutView> {
  const rollout = await kinds.require(deps, actor, 'secretRollout', input.rolloutId);
  const request = capabilityRequest('secret', 'administer', { id: rollout.secretId, namespaceId: rollout.namespaceId });
  await authorize(deps, actor, request);
  await transaction(deps.db, async (tx) => {
    const [row] = await tx.$queryRaw<Array<{ state: string; rotatedById: string; approvedById: string | null; policy: unknown }>>`
      SELECT state, "rotatedById", "approvedById", policy FROM "SecretRollout" WHERE id = ${rollout.id} FOR UPDATE`;
    if (!row) throw new NotFoundError('No such rollout.');
    const state = row.state as RolloutState;
    const now = new Date();
    const moved = rolloutTransition(state, decisionEvent(input.decision, { ...row, policy: parseRotationPolicy(row.policy) }, actor.principalId));
    if (!moved.ok) throw new ConflictError(moved.message, moved.code);
    const data: Record<string, unknown> = { state: moved.to };
    if (input.decision === 'approve') Object.assign(data, { approvedById: actor.principalId, approvedAt: now });
    if (input.decision === 'abort') Object.assign(data, { endedAt: now, reasonCode: 'ABORTED', reasonMessage: 'Aborted by an administrator: no further batch starts; what was delivered stays.' });
    await tx.secretRollout.update({ where: { id: rollout.id }, data });
    // The batch in flight ends with the rollout: its deploys were admitted and go on, but nothing watches it any more.
    if (input.decision === 'abort') {
      await moveBatches(tx, { rolloutId: rollout.id }, 'rolloutAborted', { endedAt: now, reasonCode: 'ABORTED', reasonMessage: 'The rollout was aborted while this batch ran; its deploys went on unwatched.' });
    }
    await audit(tx, {
      actorId: actor.principalId,
      action: `secret.rollout.${input.decision}`,
      resourceKind: 'secret',
      resourceId: rollout.secretId,
      namespaceId: rollout.namespaceId,
      outcome: 'SUCCESS',
      details: { rolloutId: rollout.id, from: state, to: moved.to, reason: moved.reason },
    });
    await wake(tx, rolloutKey(rollout.id));
  });
  deps.kickWorker?.();
  const [after] = await readRollouts(deps.db, [rollout.id]);
  return after!;
}

/** The principal a rollout deploys as (its last rotator), as an Actor, or null when it can no longer act. */
async function rotatorActor(db: Db, principalId: string): Promise<Actor | null> {
  const p = await db.principal.findUnique({ where: { id: principalId }, select: { id: true, kind: true, name: true, disabledAt: true } });
  if (!p || p.disabledAt) return null;
  return { principalId: p.id, kind: p.kind, name: p.name, apiKeyId: '' };
}

const IN_FLIGHT = new Set(['queued', 'preparing', 'prepared', 'activating']);

/** What nextRolloutAction reads: the rollout as stored, its open batch's revisions, and who runs an older version now. */
async function snapshotOf(db: Db, view: RolloutView, now: Date) {
  const open = view.batches.find((b) => b.state === 'ROLLING') ?? null;
  // The members' revisions were read with the rollout (readRollouts): no statement per member.
  const openBatch: OpenBatch | null = open && {
    index: open.index,
    startedAtMs: open.startedAt.getTime(),
    members: open.members.map((m) => ({
      agentId: m.agentId,
      refusal: m.refusal,
      revision: m.revisionState ? { state: m.revisionState, failureCode: m.revisionFailure?.code ?? null, failureMessage: m.revisionFailure?.message ?? null } : null,
    })),
  };
  const stale = (await staleRevisionsOf(db, [view.secretId])).get(view.secretId) ?? [];
  return {
    state: view.state,
    policy: view.policy,
    nowMs: now.getTime(),
    lastRotatedAtMs: view.lastRotatedAt.getTime(),
    lastBatchEndedAtMs: view.batches.reduce<number | null>((at, b) => (b.endedAt && (at === null || b.endedAt.getTime() > at) ? b.endedAt.getTime() : at), null),
    openBatch,
    stale: stale.map((c) => ({ agentId: c.agentId, deliveredVersion: c.deliveredVersion, inFlight: c.redeploy !== null && IN_FLIGHT.has(c.redeploy.state) })),
    staleRevisionOf: new Map(stale.map((c) => [c.agentId, c.revisionId])),
  };
}

/**
 * Applies one of the worker's events to the rollout as it is now (its row locked), with `data`
 * besides; false when the event no longer applies: a person's decision committed meanwhile wins,
 * and the step reads again.
 */
async function advanceRollout(tx: Tx, id: string, event: RolloutEvent, data: Record<string, unknown> = {}): Promise<boolean> {
  const [row] = await tx.$queryRaw<Array<{ state: string }>>`SELECT state FROM "SecretRollout" WHERE id = ${id} FOR UPDATE`;
  const moved = row ? rolloutTransition(row.state as RolloutState, event) : null;
  if (!moved?.ok) return false;
  await tx.secretRollout.update({ where: { id }, data: { ...data, state: moved.to! } });
  return true;
}

/** Applies `event` to the batches `where` selects that are in the state it applies to; answers how many moved. */
async function moveBatches(tx: Tx, where: { rolloutId: string; index?: number }, event: RolloutBatchEvent, data: Record<string, unknown> = {}): Promise<number> {
  const { from, to } = rolloutBatchMove(event);
  return (await tx.secretRolloutBatch.updateMany({ where: { ...where, state: from }, data: { ...data, state: to } })).count;
}

export interface RolloutWorkOptions {
  /** Tests: called after each member of a batch was deployed (a worker killed mid-batch). */
  afterMemberDeployed?: (rolloutId: string, agentId: string) => Promise<void>;
  /** Tests: the recheck of an open batch (BATCH_RECHECK_MS); a long one leaves only the wakes to move a rollout on. */
  batchRecheckMs?: number;
}

export function secretRolloutKind(deps: Deps, options: RolloutWorkOptions = {}): WorkKind<RolloutPayload> {
  async function step(payload: RolloutPayload, ctx: StepContext): Promise<void> {
    // Bounded: each pass records one decision; a long rollout is many claims, each resuming here.
    for (let pass = 0; pass < 100; pass++) {
      if (ctx.signal.aborted) return;
      const [view] = await readRollouts(deps.db, [payload.rolloutId]);
      if (!view) return;
      const now = new Date();
      const snap = await snapshotOf(deps.db, view, now);
      const action = nextRolloutAction(snap);
      const open = view.batches.find((b) => b.state === 'ROLLING');
      const secretAudit = { resourceKind: 'secret', resourceId: view.secretId, namespaceId: view.namespaceId } as const;
      switch (action.kind) {
        case 'done':
          return;
        case 'wait': {
          const until = action.untilMs === null ? now.getTime() + IDLE_RECHECK_MS : open ? Math.min(action.untilMs, now.getTime() + (options.batchRecheckMs ?? BATCH_RECHECK_MS)) : action.untilMs;
          throw new WaitUntil(new Date(Math.max(until, now.getTime() + 50)), action.why);
        }
        case 'start-batch': {
          const index = view.batches.length;
          const members: StoredMember[] = action.agentIds.map((agentId) => ({ agentId, fromRevisionId: snap.staleRevisionOf.get(agentId)! }));
          await ctx.checkpoint(async (tx) => {
            // Written before any deploy: a resumed rollout finds the batch and deploys only what it lacks.
            if (!(await advanceRollout(tx, view.id, { kind: 'batchStarted' }, { updatedAt: now }))) return;
            const target = await tx.secret.findUnique({ where: { id: view.secretId }, select: { version: true } });
            await tx.secretRolloutBatch.create({ data: { rolloutId: view.id, index, state: 'ROLLING', targetVersion: target?.version ?? view.targetVersion, startedAt: now, members: members as unknown as object } });
            await audit(tx, { actorId: null, system: 'worker', action: 'secret.rollout.batch', ...secretAudit, outcome: 'SUCCESS', details: { rolloutId: view.id, batch: index, agents: action.agentIds } });
          });
          continue;
        }
        case 'deploy-members': {
          const actor = await rotatorActor(deps.db, view.rotatedById);
          for (const agentId of action.agentIds) {
            if (ctx.signal.aborted) return;
            let refusal: { code: string; message: string } | null = null;
            if (!actor) refusal = { code: 'ROTATOR_CANNOT_ACT', message: 'The principal who rotated the secret is disabled or gone; a rollout deploys as its rotator.' };
            else {
              try {
                await deployAgent(deps, actor, { agentId }, { select: readSelection, auditAction: 'agent.deploy', auditDetails: { rollout: { id: view.id, batch: open!.index } }, rolloutStep: stepKey(view.id, open!.index, 'deliver') });
              } catch (error) {
                if (!(error instanceof DomainError)) throw error;
                refusal = { code: error.code, message: error.message };
              }
            }
            if (refusal) {
              const stored = refusal;
              await ctx.checkpoint(async (tx) => {
                const members = open!.members.map((m) => ({ agentId: m.agentId, fromRevisionId: m.fromRevisionId, refusal: m.agentId === agentId ? stored : m.refusal }));
                await tx.secretRolloutBatch.update({ where: { rolloutId_index: { rolloutId: view.id, index: open!.index } }, data: { members: members as unknown as object } });
              });
              break;
            }
            await options.afterMemberDeployed?.(view.id, agentId);
          }
          continue;
        }
        case 'batch-ready':
          await ctx.checkpoint(async (tx) => {
            await moveBatches(tx, { rolloutId: view.id, index: open!.index }, 'ready', { endedAt: now });
            await tx.secretRollout.update({ where: { id: view.id }, data: { lastBatchEndedAt: now } });
            await audit(tx, { actorId: null, system: 'worker', action: 'secret.rollout.batchReady', ...secretAudit, outcome: 'SUCCESS', details: { rolloutId: view.id, batch: open!.index } });
          });
          continue;
        case 'batch-failed':
          await ctx.checkpoint(async (tx) => {
            // The rollback's intent is recorded before any of it runs; a resumed rollout finishes it.
            // An abort committed meanwhile wins: the batch is ABORTED then, and nothing is rolled back.
            if (!(await advanceRollout(tx, view.id, { kind: 'batchFailed' }, { reasonCode: action.code, reasonMessage: action.message.slice(0, 2000) }))) return;
            await moveBatches(tx, { rolloutId: view.id, index: open!.index }, 'failed', { endedAt: now, reasonCode: action.code, reasonMessage: action.message.slice(0, 2000) });
            await audit(tx, { actorId: null, system: 'worker', action: 'secret.rollout.batchFailed', ...secretAudit, outcome: 'FAILURE', reason: action.code, details: { rolloutId: view.id, batch: open!.index } });
          });
          continue;
        case 'roll-back': {
          const failed = [...view.batches].reverse().find((b) => b.state === 'FAILED');
          const actor = await rotatorActor(deps.db, view.rotatedById);
          const notes: string[] = [];
          for (const m of failed?.members ?? []) {
            if (!m.revisionId || m.rollbackRevisionId) continue;
            const agent = await deps.db.agent.findUnique({ where: { id: m.agentId }, select: { activeRevisionId: true } });
            const running = agent?.activeRevisionId ? await deps.db.agentRevision.findUnique({ where: { id: agent.activeRevisionId }, select: { state: true } }) : null;
            // The batch's revision ended without replacing the previous one, which still runs: nothing
            // to undo. One still on its way is rolled back too: the rollback is newer and wins (RC8).
            const ended = m.revisionState === 'failed' || m.revisionState === 'superseded' || m.revisionState === 'stopped';
            if (!agent || (ended && agent.activeRevisionId === m.fromRevisionId && running?.state === 'ACTIVE')) continue;
            if (!actor) {
              notes.push(`${m.agentId}: not rolled back, the rotator can no longer act`);
              continue;
            }
            try {
              const result = await rollbackAgent(deps, actor, { agentId: m.agentId, toRevision: m.fromRevisionId }, { rolloutStep: stepKey(view.id, failed!.index, 'rollback'), auditDetails: { rollout: { id: view.id, batch: failed!.index } } });
              // V3 may have retired the version the previous revision ran: then the current one is delivered, and said so.
              for (const d of result.deliveries.filter((d) => !d.requestedVersionRetained)) {
                notes.push(`${m.agentId}: version ${d.requestedVersion} of ${d.envName} is no longer retained, rolled back with version ${d.versionUsed}`);
              }
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              notes.push(`${m.agentId}: not rolled back (${error.code})`);
            }
          }
          await ctx.checkpoint(async (tx) => {
            if (failed) await moveBatches(tx, { rolloutId: view.id, index: failed.index }, 'rolledBack');
            const message = `${view.reason?.message ?? 'A batch failed.'}${notes.length ? ` ${notes.join('; ')}.` : ''}`.slice(0, 2000);
            if (await advanceRollout(tx, view.id, { kind: 'rolledBack' }, { endedAt: now, reasonMessage: message })) {
              await audit(tx, { actorId: null, system: 'worker', action: 'secret.rollout.rolledBack', ...secretAudit, outcome: 'FAILURE', reason: view.reason?.code ?? 'BATCH_FAILED', details: { rolloutId: view.id, batch: failed?.index ?? null } });
            }
          });
          return;
        }
        case 'succeed':
          await ctx.checkpoint(async (tx) => {
            if (await advanceRollout(tx, view.id, { kind: 'succeeded' }, { endedAt: now })) {
              await audit(tx, { actorId: null, system: 'worker', action: 'secret.rollout.succeeded', ...secretAudit, outcome: 'SUCCESS', details: { rolloutId: view.id, targetVersion: view.targetVersion, batches: view.batches.length } });
            }
          });
          return;
      }
    }
    throw new WaitUntil(new Date(Date.now() + 50), 'the next pass');
  }
  return defineWorkKind({ kind: SECRET_ROLLOUT_KIND, payload: RolloutPayload, steps: [{ name: 'advance', run: step }] });
}
