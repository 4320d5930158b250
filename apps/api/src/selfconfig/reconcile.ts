import {
  INSTANCE_KIND,
  OPENCLAW_API_VERSION,
  SELF_CONFIG_KIND,
  appliedMessage,
  describeSkipped,
  parseSelfConfigSpec,
  planSelfConfig,
  skippedRemovalsStatus,
  type SkippedRemoval,
  type TerminalPhase,
} from '@occ/domain/selfconfig';
import type { Db } from '../db/client.ts';
import { classifyKubeError } from '../kube/errors.ts';
import type { Logger } from '../log.ts';
import type { EventInput, InstanceObject, SelfConfigCluster, SelfConfigObject } from './cluster.ts';
import { agentContext, observeRequest, recordDeleted, recordOutcome, recordPending, type AgentContext, type RecordedEvent } from './history.ts';

// One request, read fresh and converged (kubebuilder's reconcile): never trusting its own
// status beyond the phase it wrote, idempotent when run again after a crash, time from a clock.
// SC2 Pending first; SC3/SC4 in order; SC6 apply with a resourceVersion precondition, re-planned
// on conflict a bounded number of times; SC7 events and status; SC8 owner reference and events;
// SC9 deletion after the TTL with history in PostgreSQL. SC10 is the instance reconciler's: the
// applied spec is a new instance generation, and the gateway is rendered from it.

const TERMINAL = new Set(['Applied', 'Failed', 'Denied']);

export interface ReconcileDeps {
  cluster: SelfConfigCluster;
  db: Db;
  logger: Logger;
  clock: () => Date;
  /** SC9: how long a terminal request stays before it is deleted. */
  ttlMs: number;
  /** SC6: how many times a resourceVersion conflict re-plans before the request fails. */
  maxConflictRetries: number;
}

export interface ReconcileResult {
  /** Look again after this long (the TTL's end). */
  requeueAfterMs?: number;
}

interface Outcome {
  phase: TerminalPhase;
  message: string;
  skipped: SkippedRemoval[];
  events: EventInput[];
  instance: InstanceObject | null;
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
  const { cluster, db } = deps;
  const request = await cluster.getRequest(namespace, name);
  if (!request) return {};
  const instanceRef = String((request.spec as { instanceRef?: unknown } | undefined)?.instanceRef ?? '');
  const context = await agentContext(db, namespace, instanceRef);
  await observeRequest(db, request, context);
  const phase = request.status?.phase;

  if (phase && TERMINAL.has(phase)) return expire(deps, request);

  if (phase !== 'Pending') {
    // SC2: Pending is written, and visible, before anything is decided.
    await cluster.patchRequestStatus(namespace, name, { phase: 'Pending', message: 'validating' });
    await recordPending(db, request.metadata.uid, deps.clock());
  }

  const outcome = await decide(deps, request, context);
  await finish(deps, request, outcome);
  return { requeueAfterMs: deps.ttlMs };
}

async function decide(deps: ReconcileDeps, request: SelfConfigObject, context: AgentContext | null): Promise<Outcome> {
  const { cluster } = deps;
  const namespace = request.metadata.namespace;
  const parsed = parseSelfConfigSpec(request.spec);
  if ('problem' in parsed) {
    return { phase: 'Failed', message: `invalid request: ${parsed.problem.message}`, skipped: [], events: [], instance: null };
  }
  const spec = parsed.spec;
  for (let attempt = 0; ; attempt++) {
    // A fresh read each time: the body is what this manager owns now (SC6), not at the last try.
    const instance = await cluster.getInstance(namespace, spec.instanceRef);
    const decision = planSelfConfig(
      spec,
      instance
        ? { name: instance.metadata.name, namespace, resourceVersion: instance.metadata.resourceVersion, spec: instance.spec ?? {}, managedFields: instance.metadata.managedFields }
        : null,
      { secretBoundEnvNames: context?.secretBoundEnvNames ?? [] },
    );
    if (decision.phase !== 'Apply') {
      const events: EventInput[] = [];
      if (decision.phase === 'Denied' && instance) {
        events.push({ involved: involvedInstance(instance), type: 'Warning', reason: 'SelfConfigDenied', message: `${request.metadata.name}: ${decision.message}` });
      }
      events.push({ involved: involvedRequest(request), type: 'Warning', reason: decision.phase, message: decision.message });
      return { phase: decision.phase, message: decision.message, skipped: [], events, instance };
    }
    if (!instance) throw new Error('unreachable: an apply decision needs an instance');
    let applied: InstanceObject;
    try {
      applied = await cluster.applyInstance(decision.body);
    } catch (error) {
      const failure = classifyKubeError(error);
      if (failure.kind === 'conflict' && attempt < deps.maxConflictRetries) continue;
      if (failure.kind === 'conflict') {
        return { phase: 'Failed', message: `the instance kept changing: ${attempt + 1} conflicting writes; submit the request again`, skipped: [], events: [], instance };
      }
      if (failure.kind === 'refused' && failure.code === 422) {
        return { phase: 'Failed', message: 'the instance refused the change (422 Invalid)', skipped: [], events: [], instance };
      }
      throw error;
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
    return { phase: 'Applied', message, skipped: decision.skipped, events, instance: applied };
  }
}

/**
 * The terminal phase is written last: whoever sees it sees the owner reference and the events
 * already there. A crash before it runs the whole decision again (events at least once).
 */
async function finish(deps: ReconcileDeps, request: SelfConfigObject, outcome: Outcome): Promise<void> {
  const { cluster } = deps;
  const { namespace, name, uid } = request.metadata;
  if (outcome.phase === 'Applied' && outcome.instance) await cluster.setRequestOwner(namespace, name, outcome.instance);
  const now = deps.clock();
  const recorded: RecordedEvent[] = [];
  for (const event of outcome.events) {
    await cluster.createEvent(event, now);
    recorded.push({ type: event.type, reason: event.reason, message: event.message, on: `${event.involved.kind}/${event.involved.name}`, at: now.toISOString() });
  }
  await cluster.patchRequestStatus(namespace, name, {
    phase: outcome.phase,
    message: outcome.message,
    completionTime: now.toISOString(),
    skippedRemovals: skippedRemovalsStatus(outcome.skipped),
  });
  await recordOutcome(deps.db, uid, { phase: outcome.phase, message: outcome.message, skipped: outcome.skipped, events: recorded, at: now });
  deps.logger.info('selfconfig request finished', { namespace, name, phase: outcome.phase, skipped: outcome.skipped.length });
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

