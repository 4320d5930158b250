import {
  INSTANCE_KIND,
  OPENCLAW_API_VERSION,
  SELF_CONFIG_KIND,
  appliedMessage,
  describeSkipped,
  ownedBody,
  parseSelfConfigSpec,
  planSelfConfig,
  skippedRemovalsStatus,
  TERMINAL_PHASES,
  type SelfConfigPhase,
  type SkippedRemoval,
} from '@occ/domain/selfconfig';
import { phaseOf, selfConfigTransition, type ConcludingEvent, type SelfConfigEvent } from '@occ/domain/selfconfig-lifecycle';
import type { Db } from '../db/client.ts';
import { ApiException } from '@kubernetes/client-node';
import { validateConfigurationValues } from '@occ/domain/configuration';
import { budgetOf, budgetRefusal, type SelfConfigBudget } from '@occ/domain/selfconfig-budget';
import { describeChange, specChanges, type SpecChange } from '@occ/domain/selfconfig-preview';
import { approvalExpiresAt, approvalNeeded } from '@occ/domain/selfconfig-approval';
import { healthGateSeconds, healthVerdict, notGatedBecause, parseHealthGate, type GatedInstanceStatus, type HealthGateState } from '@occ/domain/selfconfig-health';
import type { JsonObject } from '@occ/domain/fieldsv1';
import { classifyKubeError } from '../kube/errors.ts';
import type { Logger } from '../log.ts';
import { instanceRefOf, type EventInput, type InstanceObject, type SelfConfigCluster, type SelfConfigObject } from './cluster.ts';
import {
  agentContext,
  approvalState,
  budgetUsage,
  type ApprovalState,
  claimExpiry,
  observeRequest,
  recordAwaiting,
  recordDeleted,
  recordOutcome,
  recordPending,
  recordVerifying,
  verifyingRecord,
  verifyingRequestOf,
  type AgentContext,
  type RecordedEvent,
} from './history.ts';

// One request, converged (kubebuilder's reconcile): never trusting its own status beyond the
// phase it wrote, idempotent when run again after a crash, time from a clock. It starts from the
// controller's cached copies of the request and of its instance, never from a GET: every write
// decided from a copy carries that copy's resourceVersion, so a stale copy conflicts, and only then
// is the object read from the server (SC2 the Pending write for the request, SC6 the apply for
// the instance). SC2 Pending first; SC3/SC4 in order; SC6 apply with a resourceVersion
// precondition, re-planned from a fresh read on conflict a bounded number of times; SC7 events
// and status; SC8 owner reference and events; SC9 deletion after the TTL with history in
// PostgreSQL. SC10 is the instance reconciler's: the applied spec is a new instance generation,
// and the gateway is rendered from it.

/** The controller's cache of the requests (controller.ts), as a reconcile uses it. */
export interface RequestCache {
  /** The latest copy the list or the watch brought; undefined when none (never listed, or deleted). */
  get(namespace: string, name: string): SelfConfigObject | undefined;
  /** A write of ours made `after` from `before`: its watch event is an echo, and `after` is newer than `before`. */
  wrote(before: SelfConfigObject, after: SelfConfigObject): void;
  /** `stale` conflicted and a GET answered `fresh` (null: gone). */
  reread(stale: SelfConfigObject, fresh: SelfConfigObject | null): void;
}

export interface ReconcileDeps {
  cluster: SelfConfigCluster;
  requests: RequestCache;
  db: Db;
  logger: Logger;
  clock: () => Date;
  /** SC9: how long a terminal request stays before it is deleted. */
  ttlMs: number;
  /** SC6: how many times a resourceVersion conflict re-plans before the request fails. */
  maxConflictRetries: number;
  /** SG3: how long a request waits for approval before it ends Expired. */
  approvalTtlMs: number;
  /** SG4: the budget of an instance whose spec sets none (or only part of one). */
  budgetDefaults: SelfConfigBudget;
  /** SG1: the gate's seconds where the instance sets none (0: off), and how often a gated request looks again. */
  healthGate: { defaultSeconds: number; pollMs: number };
  /** SG1: a request of this instance left its health gate (or was decided without one); the oldest request waiting goes on now. */
  gateEnded?: (namespace: string, instanceRef: string) => void;
  /** SG1: claims the instance for one decision; null while another request of it is being decided (the controller's workers run in parallel). */
  claimInstance?: (namespace: string, instanceRef: string) => (() => void) | null;
}

export interface ReconcileResult {
  /** Look again after this long (the TTL's end). */
  requeueAfterMs?: number;
}

interface Outcome {
  /** What ends the request; the phase it ends in is the lifecycle's (selfConfigTransition). */
  event: ConcludingEvent;
  /** Why, in one word (the planner's reason, a budget's); kept in history. */
  reason?: string;
  message: string;
  skipped: SkippedRemoval[];
  /** SG2: what the apply changes, from the dry run before it; empty when nothing is applied. */
  changes?: SpecChange[];
  events: EventInput[];
  instance: InstanceObject | null;
  /** SG1, Applied: the openclaw-selfconfig body of what the agent owned before the apply (its rollback). */
  previous?: JsonObject;
  /** Events an earlier step of the request recorded (SG1: at the apply), kept in history before this outcome's. */
  priorEvents?: RecordedEvent[];
}

/** SG3: a request that would apply, held for an administrator with the change it would make. */
interface Awaiting {
  event: 'held';
  /** The categories that need approval. */
  needed: string[];
  skipped: SkippedRemoval[];
  changes: SpecChange[];
  instance: InstanceObject;
}

/**
 * The phase `event` moves the request to, from the phase its copy holds (the domain's lifecycle);
 * a move the lifecycle refuses is a bug here, thrown before anything is written.
 */
function nextPhase(request: SelfConfigObject, event: SelfConfigEvent): SelfConfigPhase {
  const moved = selfConfigTransition(phaseOf(request.status), event);
  if (!moved.ok) throw new Error(`unreachable: ${moved.message}`);
  return moved.to as SelfConfigPhase;
}

function involvedRequest(request: SelfConfigObject) {
  const m = request.metadata;
  return { kind: SELF_CONFIG_KIND, apiVersion: OPENCLAW_API_VERSION, name: m.name, namespace: m.namespace, uid: m.uid };
}

function involvedInstance(instance: InstanceObject) {
  const m = instance.metadata;
  return { kind: INSTANCE_KIND, apiVersion: OPENCLAW_API_VERSION, name: m.name, namespace: m.namespace, uid: m.uid };
}

export async function reconcile(deps: ReconcileDeps, namespace: string, name: string): Promise<ReconcileResult> {
  const { cluster, db, requests } = deps;
  let request = requests.get(namespace, name);
  if (!request) return {};
  let context: AgentContext | null;
  for (let conflicts = 0; ; ) {
    const instanceRef = instanceRefOf(request);
    context = await agentContext(db, namespace, instanceRef);
    // SG5: the history row keeps only what SC1 accepts (storableRequest), so this write cannot fail
    // on what an agent sent: every request reaches Pending and a terminal phase.
    await observeRequest(db, request, context);
    const phase = request.status?.phase;
    // A request terminal in the cache is not decided again. (Its status is never rolled back: a
    // terminal copy cannot be stale in a way that matters, and the deletion has a uid precondition.)
    if (phase && TERMINAL_PHASES.has(phase)) return expire(deps, request);
    // SG3: a waiting request is not decided again until an administrator decides, or it expires.
    if (phase === 'AwaitingApproval') return awaitApproval(deps, request, context);
    // SG1: an applied request waits for its gateway, or for the rollback's.
    if (phase === 'Verifying') return verify(deps, request);
    // SC2: Pending is written, and visible, before anything is decided. The write carries the
    // copy's resourceVersion: a copy older than the stored request (one already decided, or
    // changed since) conflicts, and the request is read again and looked at afresh.
    try {
      // A request waiting for another's gate keeps saying so (SG1): its message is not written twice.
      const message = request.status?.message === WAITING_FOR_GATE ? WAITING_FOR_GATE : 'validating';
      const pending = await cluster.patchRequestStatus(namespace, name, { phase: nextPhase(request, 'observed'), message }, request.metadata.resourceVersion);
      requests.wrote(request, pending);
      if (phase !== 'Pending') await recordPending(db, request.metadata.uid, deps.clock());
      request = pending;
      break;
    } catch (error) {
      const failure = classifyKubeError(error);
      if (failure.code === 404) {
        requests.reread(request, null);
        return {};
      }
      if (failure.kind !== 'conflict' || ++conflicts > deps.maxConflictRetries) throw error;
      const fresh = await cluster.getRequest(namespace, name);
      requests.reread(request, fresh);
      if (!fresh) return {};
      request = fresh;
    }
  }

  const pending = request;
  return inTurn(deps, pending, async () => {
    const outcome = await decide(deps, pending, context, false);
    if (outcome.event === 'held') return hold(deps, pending, outcome);
    return conclude(deps, pending, outcome);
  });
}

export const WAITING_FOR_GATE = 'waiting: another request of this instance is in its health gate; this one is decided when that one ends';

/**
 * SG1: one request of an instance at a time goes from its decision to the end of its health gate:
 * a rollback restores what the agent owned before its request, and would undo another's change
 * made meanwhile. The controller's claim keeps two of its workers from deciding requests of one
 * instance together; history's Verifying row keeps a request from being decided while another's
 * gate is open (a Pending request says so, once).
 */
async function inTurn(deps: ReconcileDeps, request: SelfConfigObject, run: () => Promise<ReconcileResult>): Promise<ReconcileResult> {
  const { namespace, name, uid } = request.metadata;
  const instanceRef = instanceRefOf(request);
  const release = deps.claimInstance ? deps.claimInstance(namespace, instanceRef) : () => undefined;
  if (!release) return { requeueAfterMs: CLAIM_RETRY_MS };
  try {
    if (await verifyingRequestOf(deps.db, { k8sNamespace: namespace, instanceRef, uid })) {
      if (request.status?.phase === 'Pending' && request.status.message !== WAITING_FOR_GATE) {
        deps.requests.wrote(request, await deps.cluster.patchRequestStatus(namespace, name, { phase: nextPhase(request, 'waitingForGate'), message: WAITING_FOR_GATE }));
      }
      // Woken when that gate ends (gateEnded); the long look is a safety net, not the way on.
      return { requeueAfterMs: WAITING_LOOK_MS };
    }
    const result = await run();
    // Decided without opening a gate (refused, held for approval, or not gated): the next request
    // of the instance, if one waits, goes on now.
    if (deps.requests.get(namespace, name)?.status?.phase !== 'Verifying') deps.gateEnded?.(namespace, instanceRef);
    return result;
  } finally {
    release();
  }
}

/** How long a request waiting for another's gate sleeps unless that gate's end wakes it first. */
const WAITING_LOOK_MS = 60_000;

/** How soon a request looks again when another request of its instance is being decided right now. */
const CLAIM_RETRY_MS = 100;

/** An outcome ends the request, except an apply the health gate holds (SG1). */
async function conclude(deps: ReconcileDeps, request: SelfConfigObject, outcome: Outcome): Promise<ReconcileResult> {
  if (outcome.event === 'applied' && outcome.instance && outcome.previous) {
    const seconds = healthGateSeconds(outcome.instance.spec, deps.healthGate.defaultSeconds);
    const notGated = notGatedBecause(seconds, outcome.instance.status as GatedInstanceStatus | undefined);
    if (notGated === null) return startGate(deps, request, outcome, seconds);
    deps.logger.debug('selfconfig request not health-gated', { namespace: request.metadata.namespace, name: request.metadata.name, why: notGated });
  }
  await finish(deps, request, outcome);
  return { requeueAfterMs: deps.ttlMs };
}

const instanceEvents = (instance: InstanceObject | null | undefined, event: Omit<EventInput, 'involved'>): EventInput[] => (instance ? [{ involved: involvedInstance(instance), ...event }] : []);

/** status.healthGate as written: the gate's state and the rollback body (kept only while the gate waits). */
type GateStatus = HealthGateState & { previous: JsonObject };

async function writeEvents(deps: ReconcileDeps, events: readonly EventInput[], now: Date): Promise<RecordedEvent[]> {
  const recorded: RecordedEvent[] = [];
  for (const event of events) {
    await deps.cluster.createEvent(event, now);
    recorded.push({ type: event.type, reason: event.reason, message: event.message, on: `${event.involved.kind}/${event.involved.name}`, at: now.toISOString() });
  }
  return recorded;
}

/**
 * SG1: the request is applied; it waits in Verifying until the gateway running its generation is
 * Ready. The apply's events are written now (the spec did change), the owner reference too; the
 * rollback body waits in status.healthGate, which the terminal write clears.
 */
async function startGate(deps: ReconcileDeps, request: SelfConfigObject, outcome: Outcome, seconds: number): Promise<ReconcileResult> {
  const { namespace, name, uid } = request.metadata;
  const instance = outcome.instance!;
  const phase = nextPhase(request, 'gateOpened');
  const now = deps.clock();
  const generation = instance.metadata.generation ?? 0;
  const deadline = new Date(now.getTime() + seconds * 1000);
  const owned = await deps.cluster.setRequestOwner(namespace, name, instance);
  deps.requests.wrote(request, owned);
  const message = `${outcome.message}; verifying: waiting until the gateway running generation ${generation} is Ready (health gate, until ${deadline.toISOString()})`;
  const recorded = await writeEvents(deps, outcome.events, now);
  await recordVerifying(deps.db, uid, { message, skipped: outcome.skipped, changes: outcome.changes ?? [], events: recorded });
  const gate: GateStatus = { stage: 'Verifying', generation, appliedGeneration: generation, deadline: deadline.toISOString(), appliedMessage: outcome.message, previous: outcome.previous! };
  const written = await deps.cluster.patchRequestStatus(namespace, name, {
    phase,
    message,
    skippedRemovals: skippedRemovalsStatus(outcome.skipped),
    changes: (outcome.changes ?? []).map(describeChange),
    healthGate: gate,
  });
  deps.requests.wrote(owned, written);
  deps.logger.info('selfconfig request applied; health gate', { namespace, name, generation, seconds });
  return { requeueAfterMs: Math.min(deps.healthGate.pollMs, seconds * 1000) };
}

/**
 * SG1: a Verifying request looks at its instance's status (the cached copy the watch keeps). Its
 * generation Ready: Applied. Degraded for a reason it cannot get out of, or not Ready by the
 * deadline: what openclaw-selfconfig owned before is applied again (intent first, in status, so a
 * crash in between applies it again rather than taking the rollback's generation for the
 * request's), and the request waits for that generation; then it ends RolledBack with the reason
 * read from the Pods, whether or not the restored generation is Ready (the message says which).
 */
async function verify(deps: ReconcileDeps, request: SelfConfigObject): Promise<ReconcileResult> {
  const { namespace, name, uid } = request.metadata;
  const raw = request.status?.healthGate as { previous?: unknown } | undefined;
  const gate = parseHealthGate(raw);
  const previous = raw?.previous;
  const instanceRef = instanceRefOf(request);
  const instance = deps.cluster.cachedInstance(namespace, instanceRef) ?? (await deps.cluster.getInstance(namespace, instanceRef));
  // What the apply recorded, read only once the gate decides something (a look that waits reads nothing from the database).
  const recordedAtApply = async () => {
    const record = await verifyingRecord(deps.db, uid);
    return { record, carried: { skipped: record.skipped, changes: record.changes, priorEvents: record.events } };
  };
  if (!gate || typeof previous !== 'object' || previous === null || !instance) {
    const { carried } = await recordedAtApply();
    const message = !instance ? 'the instance was deleted while the health gate waited' : 'the health gate\'s state in status.healthGate is unreadable; the change stays applied';
    await finish(deps, request, { event: 'gateLost', reason: 'HealthGateLost', message, ...carried, events: [{ involved: involvedRequest(request), type: 'Warning', reason: 'Failed', message }], instance });
    deps.gateEnded?.(namespace, instanceRef);
    return { requeueAfterMs: deps.ttlMs };
  }
  const seconds = Math.max(1, healthGateSeconds(instance.spec, deps.healthGate.defaultSeconds));
  if (gate.stage === 'RollingBack' && gate.generation === 0) {
    // The rollback's intent is recorded; apply it (again, after a crash: the same body, forced, changes nothing twice).
    const restored = await deps.cluster.applyInstance(previous as JsonObject);
    const deadline = new Date(deps.clock().getTime() + seconds * 1000);
    const next: GateStatus = { ...gate, generation: restored.metadata.generation ?? 0, deadline: deadline.toISOString(), previous: previous as JsonObject };
    const message = `generation ${gate.appliedGeneration} failed its health gate (${gate.failure?.reason}: ${gate.failure?.message}); what openclaw-selfconfig owned before it is restored as generation ${next.generation}, waiting until it is Ready (until ${next.deadline})`;
    deps.requests.wrote(request, await deps.cluster.patchRequestStatus(namespace, name, { message, healthGate: next }));
    return { requeueAfterMs: deps.healthGate.pollMs };
  }
  const now = deps.clock();
  const verdict = healthVerdict(instance.status as GatedInstanceStatus | undefined, gate.generation, new Date(gate.deadline), now);
  if (verdict.kind === 'wait') return { requeueAfterMs: Math.min(deps.healthGate.pollMs, verdict.untilMs) };
  const { record, carried } = await recordedAtApply();
  if (gate.stage === 'Verifying' && verdict.kind === 'ready') {
    const message = `${gate.appliedMessage ?? appliedMessage(record.skipped)}; the gateway running generation ${gate.generation} is Ready`;
    await finish(deps, request, {
      event: 'verified',
      reason: 'Applied',
      message,
      ...carried,
      events: [
        { involved: involvedInstance(instance), type: 'Normal', reason: 'SelfConfigVerified', message: `${name}: the gateway running generation ${gate.generation} is Ready` },
        { involved: involvedRequest(request), type: 'Normal', reason: 'Verified', message },
      ],
      instance,
    });
    deps.gateEnded?.(namespace, instanceRef);
    return { requeueAfterMs: deps.ttlMs };
  }
  if (gate.stage === 'Verifying' && verdict.kind === 'failed') {
    const failure = { reason: verdict.reason, message: verdict.message };
    const message = `generation ${gate.generation} failed its health gate (${failure.reason}: ${failure.message}); restoring what openclaw-selfconfig owned before it`;
    const recorded = await writeEvents(
      deps,
      [
        { involved: involvedInstance(instance), type: 'Warning', reason: 'SelfConfigRollingBack', message: `${name}: ${message}` },
        { involved: involvedRequest(request), type: 'Warning', reason: 'RollingBack', message },
      ],
      now,
    );
    await recordVerifying(deps.db, uid, { message, skipped: record.skipped, changes: record.changes, events: [...record.events, ...recorded] });
    const intent: GateStatus = { stage: 'RollingBack', generation: 0, appliedGeneration: gate.generation, deadline: gate.deadline, failure, previous: previous as JsonObject };
    const written = await deps.cluster.patchRequestStatus(namespace, name, { message, healthGate: intent });
    deps.requests.wrote(request, written);
    return verify(deps, written);
  }
  // RollingBack, with the restored generation Ready or failed in its turn.
  const failure = gate.failure ?? { reason: 'HealthGateFailed', message: 'the request\'s generation did not become Ready' };
  const restored = verdict.kind === 'ready' ? ', which is Ready' : `, which is not Ready either (${verdict.kind === 'failed' ? `${verdict.reason}: ${verdict.message}` : ''})`;
  const message = `rolled back: generation ${gate.appliedGeneration} did not become Ready (${failure.reason}: ${failure.message}); what openclaw-selfconfig owned before it is restored as generation ${gate.generation}${restored}`;
  await finish(deps, request, {
    event: 'rolledBack',
    reason: failure.reason,
    message,
    ...carried,
    events: [
      { involved: involvedInstance(instance), type: 'Warning', reason: 'SelfConfigRolledBack', message: `${name}: ${message}` },
      { involved: involvedRequest(request), type: 'Warning', reason: 'RolledBack', message },
    ],
    instance,
  });
  deps.gateEnded?.(namespace, instanceRef);
  return { requeueAfterMs: deps.ttlMs };
}

/**
 * SG3: the request waits in AwaitingApproval with its preview (status.changes, history); the
 * instance is not touched. It is looked at again when an administrator decides (the decision
 * nudges the object) and when the wait ends.
 */
async function hold(deps: ReconcileDeps, request: SelfConfigObject, awaiting: Awaiting): Promise<ReconcileResult> {
  const { namespace, name, uid } = request.metadata;
  const phase = nextPhase(request, 'held');
  const now = deps.clock();
  const expiresAt = approvalExpiresAt(now, deps.approvalTtlMs);
  const message = `awaiting approval: ${awaiting.needed.join(', ')} need(s) an administrator's approval (approveSelfConfig or rejectSelfConfig); the request expires at ${expiresAt.toISOString()}`;
  const events: EventInput[] = [
    ...instanceEvents(awaiting.instance, { type: 'Normal', reason: 'SelfConfigAwaitingApproval', message: `${name}: ${message}` }),
    { involved: involvedRequest(request), type: 'Normal', reason: 'AwaitingApproval', message },
  ];
  for (const event of events) await deps.cluster.createEvent(event, now);
  await recordAwaiting(deps.db, uid, { message, changes: awaiting.changes, at: now });
  const written = await deps.cluster.patchRequestStatus(namespace, name, {
    phase,
    message,
    skippedRemovals: skippedRemovalsStatus(awaiting.skipped),
    changes: awaiting.changes.map(describeChange),
  });
  deps.requests.wrote(request, written);
  deps.logger.info('selfconfig request awaits approval', { namespace, name, categories: awaiting.needed });
  return { requeueAfterMs: deps.approvalTtlMs };
}

const sameChanges = (a: readonly SpecChange[], b: readonly SpecChange[]) => JSON.stringify(a.map(describeChange)) === JSON.stringify(b.map(describeChange));

/**
 * SG3: a waiting request, from its history row (the administrator's decision is recorded there,
 * audited, in the same transaction). Approved: planned again against the instance as it is now,
 * through the same checks and the same apply as any request (never the plan it waited with).
 * Rejected: ends Rejected with the reason. Undecided past the approval TTL: ends Expired.
 */
async function awaitApproval(deps: ReconcileDeps, request: SelfConfigObject, context: AgentContext | null): Promise<ReconcileResult> {
  const { namespace, name, uid } = request.metadata;
  const state = await approvalState(deps.db, uid);
  const instanceRef = instanceRefOf(request);
  const instance = async () => deps.cluster.cachedInstance(namespace, instanceRef) ?? (await deps.cluster.getInstance(namespace, instanceRef));
  if (state?.decision === 'approved') return inTurn(deps, request, () => decideApproved(deps, request, context, state));
  if (state?.decision === 'rejected') {
    const message = `rejected${state.byId ? ` by ${state.byId}` : ''}${state.reason ? `: ${state.reason}` : ''}`;
    const live = await instance();
    await finish(deps, request, {
      event: 'rejected',
      reason: 'Rejected',
      message,
      skipped: [],
      events: [...instanceEvents(live, { type: 'Warning', reason: 'SelfConfigRejected', message: `${name}: ${message}` }), { involved: involvedRequest(request), type: 'Warning', reason: 'Rejected', message }],
      instance: live,
    });
    return { requeueAfterMs: deps.ttlMs };
  }
  const since = state?.awaitingApprovalAt ?? deps.clock();
  const due = approvalExpiresAt(since, deps.approvalTtlMs).getTime();
  const now = deps.clock().getTime();
  if (now < due && state?.decision !== 'expired') return { requeueAfterMs: due - now };
  // An administrator deciding at this moment wins the row; the request is then looked at again.
  if (state?.decision !== 'expired' && !(await claimExpiry(deps.db, uid, deps.clock()))) return awaitApproval(deps, request, context);
  const message = `expired: no administrator approved or rejected it within ${Math.round(deps.approvalTtlMs / 1000)}s (waiting since ${since.toISOString()})`;
  const live = await instance();
  await finish(deps, request, {
    event: 'expired',
    reason: 'ApprovalExpired',
    message,
    skipped: [],
    events: [...instanceEvents(live, { type: 'Warning', reason: 'SelfConfigExpired', message: `${name}: ${message}` }), { involved: involvedRequest(request), type: 'Warning', reason: 'Expired', message }],
    instance: live,
  });
  return { requeueAfterMs: deps.ttlMs };
}

async function decideApproved(deps: ReconcileDeps, request: SelfConfigObject, context: AgentContext | null, state: ApprovalState): Promise<ReconcileResult> {
  const outcome = await decide(deps, request, context, true);
  if (outcome.event === 'held') throw new Error('unreachable: an approved request is not held again');
  const by = state.byId ? ` by ${state.byId}` : '';
  if (outcome.event === 'applied') {
    const note = sameChanges(outcome.changes ?? [], state.changes) ? `approved${by}` : `approved${by}; re-validated: the change differs from the preview approved (now ${(outcome.changes ?? []).map(describeChange).join(', ') || 'none'})`;
    outcome.message = `${outcome.message} (${note})`;
    for (const e of outcome.events) if (e.reason === 'Applied' || e.reason === 'SelfConfigApplied') e.message = `${e.message} (${note})`;
  } else {
    outcome.message = `approved${by}, then refused on re-validation against the instance as it is now: ${outcome.message}`;
    for (const e of outcome.events) e.message = `${e.message} (re-validated on approval)`;
  }
  return conclude(deps, request, outcome);
}

async function decide(deps: ReconcileDeps, request: SelfConfigObject, context: AgentContext | null, approved: boolean): Promise<Outcome | Awaiting> {
  const { cluster } = deps;
  const namespace = request.metadata.namespace;
  const parsed = parseSelfConfigSpec(request.spec);
  if ('problem' in parsed) {
    return { event: 'failed', message: `invalid request: ${parsed.problem.message}`, skipped: [], events: [], instance: null };
  }
  const spec = parsed.spec;
  const read = () => cluster.getInstance(namespace, spec.instanceRef);
  // SC6: the plan starts from the cached instance, and the apply carries its resourceVersion: it
  // succeeds only if that copy is the stored object, so the body is what this manager owns now.
  // An instance the cache does not hold is read (SC3: the cache can lag a creation, and holds
  // only instances labelled ours).
  const cached = cluster.cachedInstance(namespace, spec.instanceRef);
  let instance = cached ?? (await read());
  let fresh = cached === undefined;
  for (let retries = 0; ; ) {
    const decision = planSelfConfig(
      spec,
      instance
        ? { name: instance.metadata.name, namespace, resourceVersion: instance.metadata.resourceVersion, spec: instance.spec ?? {}, managedFields: instance.metadata.managedFields }
        : null,
      { secretBoundEnvNames: context?.secretBoundEnvNames ?? [] },
    );
    if (decision.phase !== 'Apply') {
      // A refusal is never decided from a copy that may be stale (a deploy may just have enabled
      // selfConfigure, or released a name): the instance is read first, and decided again.
      if (!fresh) {
        instance = await read();
        fresh = true;
        continue;
      }
      const events: EventInput[] = [];
      if (decision.phase === 'Denied' && instance) {
        events.push({ involved: involvedInstance(instance), type: 'Warning', reason: 'SelfConfigDenied', message: `${request.metadata.name}: ${decision.message}` });
      }
      events.push({ involved: involvedRequest(request), type: 'Warning', reason: decision.phase, message: decision.message });
      return { event: decision.phase === 'Denied' ? 'denied' : 'failed', reason: decision.reason, message: decision.message, skipped: [], events, instance };
    }
    if (!instance) throw new Error('unreachable: an apply decision needs an instance');
    // SG4: a request that would apply is held to the instance's budget first (pause, requests an
    // hour, applied changes a day), counted from history. Like any refusal, never from a stale copy
    // (a deploy may just have raised the budget).
    const overBudget = budgetRefusal(
      budgetOf(instance.spec, deps.budgetDefaults),
      await budgetUsage(deps.db, { k8sNamespace: namespace, instanceRef: spec.instanceRef, agentId: context?.agentId ?? null, uid: request.metadata.uid }, deps.clock()),
      deps.clock(),
    );
    if (overBudget) {
      if (!fresh) {
        instance = await read();
        fresh = true;
        continue;
      }
      return {
        event: 'denied',
        reason: overBudget.reason,
        message: overBudget.message,
        skipped: [],
        events: [
          { involved: involvedInstance(instance), type: 'Warning', reason: 'SelfConfigDenied', message: `${request.metadata.name}: ${overBudget.message}` },
          { involved: involvedRequest(request), type: 'Warning', reason: 'Denied', message: overBudget.message },
        ],
        instance,
      };
    }
    let applied: InstanceObject;
    let changes: SpecChange[];
    try {
      // SG2: the same body, dry run first: the server's answer is the instance as the apply will
      // make it, so the recorded change is the server's, not a guess from the plan. A conflict on
      // either call re-plans the same way.
      const preview = await cluster.applyInstance(decision.body, { dryRun: true });
      changes = specChanges(instance.spec ?? {}, preview.spec ?? {});
      // SG3: after every other check and the preview, a category that needs approval holds the
      // request (decided from a fresh read, as a refusal is: a deploy may just have lifted it).
      const needed = approved ? [] : approvalNeeded(decision.categories, instance.spec);
      if (needed.length > 0) {
        if (!fresh) {
          instance = await read();
          fresh = true;
          continue;
        }
        return { event: 'held', needed, skipped: decision.skipped, changes, instance };
      }
      applied = await cluster.applyInstance(decision.body);
    } catch (error) {
      const failure = classifyKubeError(error);
      if (failure.kind === 'conflict' && retries < deps.maxConflictRetries) {
        // A fresh read each time: the body is what this manager owns now (SC6), not at the last try.
        retries++;
        instance = await read();
        fresh = true;
        continue;
      }
      if (failure.kind === 'conflict') {
        return { event: 'failed', message: `the instance kept changing: ${retries + 1} conflicting writes; submit the request again`, skipped: [], events: [], instance };
      }
      if (failure.kind === 'refused' && failure.code === 422) {
        return { event: 'failed', message: `the instance refused the change (422 Invalid): ${refusedFields(error)}`, skipped: [], events: [], instance };
      }
      throw error;
    }
    if (applied.metadata.uid !== instance.metadata.uid) {
      // The apply made a new object: the instance was deleted after the copy this plan started
      // from, and an apply creates a missing object whatever resourceVersion it carries (a real
      // 1.20 server does). Delete exactly what was made, then decide from a fresh read.
      await cluster.deleteInstance(namespace, applied.metadata.name, { uid: applied.metadata.uid, resourceVersion: applied.metadata.resourceVersion });
      if (retries++ >= deps.maxConflictRetries) throw new Error(`the instance ${spec.instanceRef} kept being replaced while it was applied`);
      instance = await read();
      fresh = true;
      continue;
    }
    const events: EventInput[] = decision.skipped.map((s) => ({
      involved: involvedInstance(applied),
      type: 'Warning' as const,
      reason: 'SelfConfigSkippedRemoval',
      message: `${request.metadata.name}: ${describeSkipped(s)}`,
    }));
    const message = appliedMessage(decision.skipped);
    events.push({ involved: involvedInstance(applied), type: 'Normal', reason: 'SelfConfigApplied', message: `${request.metadata.name}: ${message}` });
    events.push({ involved: involvedRequest(request), type: 'Normal', reason: 'Applied', message });
    // SG1: the apply carried `instance`'s resourceVersion, so that copy is what the agent owned just before it.
    const previous = ownedBody({ name: instance.metadata.name, namespace, resourceVersion: instance.metadata.resourceVersion, spec: instance.spec ?? {}, managedFields: instance.metadata.managedFields });
    return { event: 'applied', reason: 'Applied', message, skipped: decision.skipped, changes, events, instance: applied, previous };
  }
}

/**
 * The terminal phase is written last: whoever sees it sees the owner reference, the events and
 * the history row already there. A crash before it runs the whole decision again (events at least once).
 */
async function finish(deps: ReconcileDeps, request: SelfConfigObject, outcome: Outcome): Promise<void> {
  const { cluster, requests } = deps;
  const { namespace, name, uid } = request.metadata;
  const phase = nextPhase(request, outcome.event);
  let latest = request;
  const ownedAlready = (request.metadata.ownerReferences ?? []).some((o) => o.uid === outcome.instance?.metadata.uid);
  if (phase === 'Applied' && outcome.instance && !ownedAlready) {
    const owned = await cluster.setRequestOwner(namespace, name, outcome.instance);
    requests.wrote(latest, owned);
    latest = owned;
  }
  if (phase !== 'Applied') {
    const redaction = literalsRedaction(request.spec);
    if (redaction) {
      try {
        const redacted = await cluster.patchRequestSpec(namespace, name, redaction);
        requests.wrote(latest, redacted);
        latest = redacted;
      } catch (error) {
        // The webhook may refuse the redacted spec (it still breaks another SC1 rule); the object
        // goes at its TTL anyway, and the refusal stands.
        deps.logger.warn('selfconfig: could not blank a refused request\'s literal values', { namespace, name, error: classifyKubeError(error).kind });
      }
    }
  }
  const now = deps.clock();
  const recorded: RecordedEvent[] = [...(outcome.priorEvents ?? []), ...(await writeEvents(deps, outcome.events, now))];
  // History before the terminal phase: whoever sees the phase (an auditor, the budget of the
  // agent's next request) finds the row that says it. A crash between the two decides again and
  // writes the row again.
  await recordOutcome(deps.db, uid, { phase, reason: outcome.reason ?? null, message: outcome.message, skipped: outcome.skipped, changes: outcome.changes ?? [], events: recorded, at: now });
  const terminal = await cluster.patchRequestStatus(namespace, name, {
    phase,
    message: outcome.message,
    completionTime: now.toISOString(),
    skippedRemovals: skippedRemovalsStatus(outcome.skipped),
    changes: (outcome.changes ?? []).map(describeChange),
    healthGate: null,
  });
  requests.wrote(latest, terminal);
  deps.logger.info('selfconfig request finished', { namespace, name, phase, skipped: outcome.skipped.length });
}

/** SC9: a terminal request goes once its TTL has passed; its history row stays. */
async function expire(deps: ReconcileDeps, request: SelfConfigObject): Promise<ReconcileResult> {
  const { namespace, name, uid } = request.metadata;
  const completed = Date.parse(request.status?.completionTime ?? '');
  // No completion time (written by someone else): count from creation, never keep it forever.
  const since = Number.isNaN(completed) ? Date.parse(request.metadata.creationTimestamp ?? '') : completed;
  const due = (Number.isNaN(since) ? deps.clock().getTime() : since) + deps.ttlMs;
  const now = deps.clock().getTime();
  if (now < due) return { requeueAfterMs: due - now };
  await deps.cluster.deleteRequest(namespace, name, uid);
  await recordDeleted(deps.db, uid, deps.clock());
  return {};
}

/**
 * What a refused request's env values and file contents become. Not '': a real kube-apiserver 1.20
 * refuses an empty string in addEnvVars' items as null ("must be of type string: \"null\"", D13),
 * so a blanking patch with '' failed there and left the literals stored.
 */
export const REDACTED = '(removed: the request was refused)';

/**
 * SG5: a refused request keeps no literal an agent sent for the hour it stays (SC9): the merge
 * patch that blanks its env values and file contents and drops a configPatch SC1 refuses (a
 * literal under a credential-like key is one), or null when it holds none.
 */
export function literalsRedaction(spec: unknown): Record<string, unknown> | null {
  const s = (typeof spec === 'object' && spec !== null ? spec : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const blank = (e: unknown) => typeof e === 'object' && e !== null && Object.entries(e).every(([k, v]) => k === 'name' || (k === 'value' && v === REDACTED));
  if (Array.isArray(s.addEnvVars) && !s.addEnvVars.every(blank)) {
    const nameOf = (e: unknown) => (typeof e === 'object' && e !== null && typeof (e as { name?: unknown }).name === 'string' ? (e as { name: string }).name : '');
    out.addEnvVars = s.addEnvVars.map((e) => ({ name: nameOf(e), value: REDACTED }));
  }
  if (typeof s.addWorkspaceFiles === 'object' && s.addWorkspaceFiles !== null && Object.values(s.addWorkspaceFiles).some((c) => c !== REDACTED)) {
    out.addWorkspaceFiles = Object.fromEntries(Object.keys(s.addWorkspaceFiles).map((path) => [path, REDACTED]));
  }
  if (s.configPatch !== undefined && s.configPatch !== null && (typeof s.configPatch !== 'object' || validateConfigurationValues(s.configPatch) !== null)) out.configPatch = null;
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * The limits a 422 names (the instance's schema: at most 20 skills, 50 workspace files …), from
 * its causes, never with a value: of a cause's message only the limit phrase is kept ("must have at
 * most 20 items"; 1.20 words it "should have at most 20 items", D2); a cause without one is shown
 * as its field and reason.
 */
export function refusedFields(error: unknown): string {
  let causes: Array<{ field?: unknown; reason?: unknown; message?: unknown }> = [];
  if (error instanceof ApiException) {
    try {
      const body = (typeof error.body === 'string' ? JSON.parse(error.body) : error.body) as { details?: { causes?: unknown } } | null;
      if (Array.isArray(body?.details?.causes)) causes = body.details.causes as typeof causes;
    } catch {
      causes = [];
    }
  }
  const parts = causes.slice(0, 10).map((c) => {
    const field = typeof c.field === 'string' ? c.field : '(unnamed field)';
    const reason = typeof c.reason === 'string' ? c.reason : 'FieldValueInvalid';
    const limit = typeof c.message === 'string' ? /(?:must|should) have at (?:most|least) \d+ (?:items|properties|bytes)|may not be longer than \d+|Required value/.exec(c.message)?.[0] : undefined;
    return limit ? `${field}: ${limit}` : `${field}: ${reason}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'no cause named';
}
