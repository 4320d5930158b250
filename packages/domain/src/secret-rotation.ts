import { ValidationError } from './errors.ts';
import { orList, type Transition } from './lifecycle.ts';

// V4 rotation rollouts. A secret's policy (else its namespace's default, else manual) says what a
// rotation does: nothing more (manual, "stored, not delivered"), or a rollout that delivers the
// current version to the consumers in batches. Pure: the rollout worker brings the rollout as
// stored, the consumers as they run now and the time, and carries out the action decided here.

export type RotationMode = 'MANUAL' | 'AUTOMATIC';
/** Who may approve a rollout before its first batch: nobody needs to, any administrator, or one other than the rotator. */
export type RolloutApproval = 'NONE' | 'ANY_ADMINISTRATOR' | 'OTHER_ADMINISTRATOR';

export interface RotationPolicy {
  mode: RotationMode;
  /** Agents redeployed at once. */
  batchSize: number;
  /** After a batch is Ready, and after the last rotation, before the next batch starts (debounce). */
  pauseSeconds: number;
  /** How long each batch may take to be Ready before the rollout rolls it back. */
  readySeconds: number;
  approval: RolloutApproval;
}

export type RotationPolicySource = 'SECRET' | 'NAMESPACE' | 'DEFAULT';

export const MANUAL_POLICY: RotationPolicy = { mode: 'MANUAL', batchSize: 10, pauseSeconds: 30, readySeconds: 300, approval: 'NONE' };

export const POLICY_BOUNDS = {
  batchSize: { min: 1, max: 500 },
  pauseSeconds: { min: 0, max: 86_400 },
  readySeconds: { min: 5, max: 3_600 },
} as const;

const MODES: readonly RotationMode[] = ['MANUAL', 'AUTOMATIC'];
const APPROVALS: readonly RolloutApproval[] = ['NONE', 'ANY_ADMINISTRATOR', 'OTHER_ADMINISTRATOR'];

/**
 * A policy from what a client (or a stored row) gives: absent fields take MANUAL_POLICY's values;
 * a field out of its bounds or of the wrong kind is refused, naming the field and its bounds.
 */
export function parseRotationPolicy(input: unknown, field = 'policy'): RotationPolicy {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError('INVALID_ROTATION_POLICY', 'A rotation policy is an object.', field);
  const given = input as Record<string, unknown>;
  const unknownKeys = Object.keys(given).filter((k) => !(k in MANUAL_POLICY));
  if (unknownKeys.length) throw new ValidationError('INVALID_ROTATION_POLICY', `A rotation policy has no field ${unknownKeys.length === 1 ? 'of that name' : 'of those names'}; it has mode, batchSize, pauseSeconds, readySeconds and approval.`, field);
  const mode = given.mode ?? MANUAL_POLICY.mode;
  if (!MODES.includes(mode as RotationMode)) throw new ValidationError('INVALID_ROTATION_POLICY', `mode is one of ${MODES.join(', ')}.`, `${field}.mode`);
  const approval = given.approval ?? MANUAL_POLICY.approval;
  if (!APPROVALS.includes(approval as RolloutApproval)) throw new ValidationError('INVALID_ROTATION_POLICY', `approval is one of ${APPROVALS.join(', ')}.`, `${field}.approval`);
  const bounded = (name: keyof typeof POLICY_BOUNDS): number => {
    const value = given[name] ?? MANUAL_POLICY[name];
    const { min, max } = POLICY_BOUNDS[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new ValidationError('INVALID_ROTATION_POLICY', `${name} is a whole number from ${min} to ${max}.`, `${field}.${name}`);
    }
    return value;
  };
  return { mode: mode as RotationMode, batchSize: bounded('batchSize'), pauseSeconds: bounded('pauseSeconds'), readySeconds: bounded('readySeconds'), approval: approval as RolloutApproval };
}

/** A stored policy, or null when none is stored or it no longer parses (then the next level applies). */
function storedPolicy(stored: unknown): RotationPolicy | null {
  if (stored === null || stored === undefined) return null;
  try {
    return parseRotationPolicy(stored);
  } catch {
    return null;
  }
}

/** The policy a rotation of the secret follows: its own, else its namespace's default, else manual. */
export function effectiveRotationPolicy(secretPolicy: unknown, namespacePolicy: unknown): { policy: RotationPolicy; source: RotationPolicySource } {
  const own = storedPolicy(secretPolicy);
  if (own) return { policy: own, source: 'SECRET' };
  const inherited = storedPolicy(namespacePolicy);
  if (inherited) return { policy: inherited, source: 'NAMESPACE' };
  return { policy: MANUAL_POLICY, source: 'DEFAULT' };
}

export type RolloutState = 'AWAITING_APPROVAL' | 'ROLLING' | 'PAUSED' | 'ROLLING_BACK' | 'SUCCEEDED' | 'ROLLED_BACK' | 'ABORTED';
export const OPEN_ROLLOUT_STATES: readonly RolloutState[] = ['AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK'];
export const ROLLOUT_STATES: readonly RolloutState[] = [...OPEN_ROLLOUT_STATES, 'SUCCEEDED', 'ROLLED_BACK', 'ABORTED'];

export function isOpenRollout(state: string): boolean {
  return (OPEN_ROLLOUT_STATES as readonly string[]).includes(state);
}

/**
 * What moves a rollout: a rotation of its secret, a person's decision (V4: approve, pause, resume,
 * abort), or what the rollout worker found (a batch started, failed or rolled back, the last
 * consumer delivered).
 */
export type RolloutEvent =
  | { kind: 'rotated'; policy: RotationPolicy }
  | { kind: 'approve'; policy: RotationPolicy; rotatorId: string; approverId: string }
  | { kind: 'pause' }
  | { kind: 'resume'; policy: RotationPolicy; approved: boolean }
  | { kind: 'abort' }
  | { kind: 'batchStarted' }
  | { kind: 'batchFailed' }
  | { kind: 'rolledBack' }
  | { kind: 'succeeded' };
export type RolloutEventKind = RolloutEvent['kind'];
export const ROLLOUT_EVENT_KINDS: readonly RolloutEventKind[] = ['rotated', 'approve', 'pause', 'resume', 'abort', 'batchStarted', 'batchFailed', 'rolledBack', 'succeeded'];

/** Why a rollout is in the state it moved to. */
export type RolloutReason =
  | 'Opened'
  | 'RotatedAgain'
  | 'Approved'
  | 'Paused'
  | 'Resumed'
  | 'Aborted'
  | 'BatchStarted'
  | 'BatchFailed'
  | 'RolledBack'
  | 'Succeeded';

export type RolloutRefusal = 'ROLLOUT_STATE_CONFLICT' | 'ROLLOUT_APPROVER_IS_ROTATOR';

/** The states each event applies in; `null` is "no rollout open for the secret" (a rotation opens one). */
const ROLLOUT_FROM: Readonly<Record<RolloutEventKind, ReadonlyArray<RolloutState | null>>> = {
  rotated: [null, ...OPEN_ROLLOUT_STATES],
  approve: ['AWAITING_APPROVAL'],
  pause: ['AWAITING_APPROVAL', 'ROLLING'],
  resume: ['PAUSED'],
  // Rolling back is finished, not aborted: the rollback is what undoes a failed batch.
  abort: ['AWAITING_APPROVAL', 'ROLLING', 'PAUSED'],
  batchStarted: ['ROLLING'],
  // A batch already started finishes while the rollout is paused or awaits a new approval.
  batchFailed: ['AWAITING_APPROVAL', 'ROLLING', 'PAUSED'],
  rolledBack: ['ROLLING_BACK'],
  succeeded: ['ROLLING'],
};

/** Where a rollout needing no (further) approval rolls, else waits for one. */
function rollingOrAwaiting(policy: RotationPolicy, approved: boolean): RolloutState {
  return policy.approval === 'NONE' || approved ? 'ROLLING' : 'AWAITING_APPROVAL';
}

/**
 * V4: where `event` moves a rollout in `state` (null: none is open), and why; or, refused, the
 * code and the message a person's decision answers with. A rotation opens a rollout that rolls or
 * waits for approval, and moves an open one's target: one needing approval waits for it again
 * (the approver approves what will be delivered), a paused one stays paused, one rolling back
 * finishes its rollback. Pure; the services write what it says as a compare-and-set.
 */
export function rolloutTransition(state: RolloutState | null, event: RolloutEvent): Transition<RolloutState | null, RolloutReason, RolloutRefusal> {
  const from = ROLLOUT_FROM[event.kind];
  if (!from.includes(state)) {
    const verb = event.kind === 'approve' || event.kind === 'pause' || event.kind === 'resume' || event.kind === 'abort' ? event.kind : `the event ${event.kind}`;
    return { ok: false, from: state, code: 'ROLLOUT_STATE_CONFLICT' satisfies RolloutRefusal, message: `The rollout is ${state ?? 'not open'}; ${verb} applies only to a rollout that is ${orList(from.map((s) => s ?? 'not open'))}.` };
  }
  const to = (target: RolloutState, reason: RolloutReason) => ({ ok: true as const, from: state, to: target, reason });
  switch (event.kind) {
    case 'rotated':
      if (state === null) return to(rollingOrAwaiting(event.policy, false), 'Opened');
      return to(state === 'PAUSED' || state === 'ROLLING_BACK' ? state : rollingOrAwaiting(event.policy, false), 'RotatedAgain');
    case 'approve': {
      const refusal = approvalRefusal(event.policy, event.rotatorId, event.approverId);
      if (refusal) return { ok: false, from: state, code: 'ROLLOUT_APPROVER_IS_ROTATOR' satisfies RolloutRefusal, message: refusal };
      return to('ROLLING', 'Approved');
    }
    case 'pause':
      return to('PAUSED', 'Paused');
    case 'resume':
      return to(rollingOrAwaiting(event.policy, event.approved), 'Resumed');
    case 'abort':
      return to('ABORTED', 'Aborted');
    case 'batchStarted':
      return to('ROLLING', 'BatchStarted');
    case 'batchFailed':
      return to('ROLLING_BACK', 'BatchFailed');
    case 'rolledBack':
      return to('ROLLED_BACK', 'RolledBack');
    case 'succeeded':
      return to('SUCCEEDED', 'Succeeded');
  }
}

/** Whether `approver` may approve a rollout `rotator` started (the administrator check is the caller's). */
export function approvalRefusal(policy: RotationPolicy, rotatorId: string, approverId: string): string | null {
  if (policy.approval === 'OTHER_ADMINISTRATOR' && rotatorId === approverId) return 'This rollout needs an administrator other than the one who rotated the secret.';
  return null;
}

export type RolloutBatchState = 'ROLLING' | 'READY' | 'FAILED' | 'ROLLED_BACK' | 'ABORTED';
export const ROLLOUT_BATCH_STATES: readonly RolloutBatchState[] = ['ROLLING', 'READY', 'FAILED', 'ROLLED_BACK', 'ABORTED'];
export type RolloutBatchEvent = 'ready' | 'failed' | 'rolledBack' | 'rolloutAborted';
export const ROLLOUT_BATCH_EVENTS: readonly RolloutBatchEvent[] = ['ready', 'failed', 'rolledBack', 'rolloutAborted'];

const BATCH_MOVES: Readonly<Record<RolloutBatchEvent, { from: RolloutBatchState; to: RolloutBatchState }>> = {
  ready: { from: 'ROLLING', to: 'READY' },
  failed: { from: 'ROLLING', to: 'FAILED' },
  // Only a failed batch is rolled back; an aborted rollout leaves what its batch delivered.
  rolledBack: { from: 'FAILED', to: 'ROLLED_BACK' },
  rolloutAborted: { from: 'ROLLING', to: 'ABORTED' },
};

/** V4: where `event` moves a batch in `state`, or why not (a batch is created ROLLING). */
export function rolloutBatchTransition(state: RolloutBatchState, event: RolloutBatchEvent): Transition<RolloutBatchState, RolloutBatchEvent> {
  const move = BATCH_MOVES[event];
  if (move.from === state) return { ok: true, from: state, to: move.to, reason: event };
  return { ok: false, from: state, code: 'ROLLOUT_BATCH_STATE_CONFLICT', message: `A batch that is ${state} cannot take the event ${event}; it applies to one that is ${move.from}.` };
}

/** The batch state `event` moves out of, and the one it moves into (a compare-and-set's two halves). */
export function rolloutBatchMove(event: RolloutBatchEvent): { from: RolloutBatchState; to: RolloutBatchState } {
  const from = ROLLOUT_BATCH_STATES.find((state) => rolloutBatchTransition(state, event).ok)!;
  return { from, to: BATCH_MOVES[event].to };
}

/** A revision state as the rollout reads it (lower case, as RevisionView has it). */
export type MemberRevisionState = 'queued' | 'preparing' | 'prepared' | 'activating' | 'active' | 'failed' | 'superseded' | 'stopped';

export interface OpenBatch {
  index: number;
  startedAtMs: number;
  members: ReadonlyArray<{
    agentId: string;
    /** The revision the batch deployed for it; null while not yet deployed. */
    revision: { state: MemberRevisionState; failureCode: string | null; failureMessage: string | null } | null;
    /** deployAgent refused it: the batch fails with this. */
    refusal: { code: string; message: string } | null;
  }>;
}

export interface RolloutSnapshot {
  state: RolloutState;
  policy: RotationPolicy;
  nowMs: number;
  lastRotatedAtMs: number;
  lastBatchEndedAtMs: number | null;
  openBatch: OpenBatch | null;
  /**
   * Agents whose running revision holds a version older than the secret's current one.
   * `inFlight`: a newer revision of the agent is on its way already (another deploy), so the
   * rollout leaves it to that one.
   */
  stale: ReadonlyArray<{ agentId: string; deliveredVersion: number; inFlight: boolean }>;
}

export type RolloutAction =
  /** Nothing to do until `untilMs` (null: until something wakes the rollout: approval, resume). */
  | { kind: 'wait'; untilMs: number | null; why: string }
  /** Deploy the members of the open batch that have no revision yet. */
  | { kind: 'deploy-members'; agentIds: string[] }
  | { kind: 'start-batch'; agentIds: string[] }
  | { kind: 'batch-ready' }
  | { kind: 'batch-failed'; code: string; message: string }
  | { kind: 'roll-back' }
  | { kind: 'succeed' }
  | { kind: 'done' };

/**
 * A member the batch no longer waits for: Ready, or taken over by a newer deploy or a stop of its
 * agent (whoever made it), which owns the agent's runtime now.
 */
function settled(state: MemberRevisionState): boolean {
  return state === 'active' || state === 'superseded' || state === 'stopped';
}

/** How often a rollout waiting for a deploy it does not own looks again. */
export const ROLLOUT_RECHECK_MS = 5_000;

/**
 * The one next step of a rollout, level-triggered: the same snapshot gives the same action, so a
 * rollout resumed by another worker after a crash repeats nothing that was recorded.
 */
export function nextRolloutAction(s: RolloutSnapshot): RolloutAction {
  if (!isOpenRollout(s.state)) return { kind: 'done' };
  if (s.state === 'ROLLING_BACK') return { kind: 'roll-back' };
  // A batch already started finishes (Ready or failed) whatever the rollout's state: its deploys
  // were admitted; pausing or awaiting a new approval only holds the next batch.
  if (s.openBatch) {
    const batch = s.openBatch;
    const refused = batch.members.find((m) => m.refusal);
    if (refused) return { kind: 'batch-failed', code: refused.refusal!.code, message: `Agent ${refused.agentId} was not deployed: ${refused.refusal!.message}` };
    const undeployed = batch.members.filter((m) => !m.revision).map((m) => m.agentId);
    if (undeployed.length) return { kind: 'deploy-members', agentIds: undeployed };
    const failed = batch.members.find((m) => m.revision!.state === 'failed');
    if (failed) {
      const r = failed.revision!;
      return { kind: 'batch-failed', code: r.failureCode ?? 'REVISION_FAILED', message: `Agent ${failed.agentId}'s revision failed${r.failureMessage ? `: ${r.failureMessage}` : '.'}` };
    }
    if (batch.members.every((m) => settled(m.revision!.state))) return { kind: 'batch-ready' };
    const deadline = batch.startedAtMs + s.policy.readySeconds * 1000;
    if (s.nowMs >= deadline) {
      const waiting = batch.members.filter((m) => !settled(m.revision!.state)).map((m) => m.agentId);
      return { kind: 'batch-failed', code: 'BATCH_NOT_READY', message: `Batch ${batch.index + 1} was not Ready within ${s.policy.readySeconds} s: ${waiting.join(', ')} not Ready.` };
    }
    return { kind: 'wait', untilMs: deadline, why: `batch ${batch.index + 1} becoming Ready` };
  }
  if (s.state === 'AWAITING_APPROVAL') return { kind: 'wait', untilMs: null, why: 'approval' };
  if (s.state === 'PAUSED') return { kind: 'wait', untilMs: null, why: 'resume' };
  // V4 debounce: no batch starts until `pause` after the last rotation and after the last batch.
  const settledAt = Math.max(s.lastRotatedAtMs, s.lastBatchEndedAtMs ?? 0) + s.policy.pauseSeconds * 1000;
  if (s.nowMs < settledAt) return { kind: 'wait', untilMs: settledAt, why: 'the pause' };
  const candidates = [...s.stale].filter((c) => !c.inFlight).sort((a, b) => a.deliveredVersion - b.deliveredVersion || (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0));
  const agents = [...new Set(candidates.map((c) => c.agentId))];
  if (agents.length) return { kind: 'start-batch', agentIds: agents.slice(0, s.policy.batchSize) };
  if (s.stale.length) return { kind: 'wait', untilMs: s.nowMs + ROLLOUT_RECHECK_MS, why: "other deploys of the remaining consumers" };
  return { kind: 'succeed' };
}
