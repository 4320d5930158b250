import { isId } from '@occ/domain/ids';
import { agentInstanceName } from '@occ/domain/kubernetes-names';
import { modelCredentialEnv, validateConfigurationValues } from '@occ/domain/configuration';
import type { SkippedRemoval } from '@occ/domain/selfconfig';
import type { SpecChange } from '@occ/domain/selfconfig-preview';
import { BUDGET_REASONS, DAY_MS, HOUR_MS, type BudgetUsage } from '@occ/domain/selfconfig-budget';
import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { newId } from '../ids.ts';
import { instanceRefOf, type SelfConfigObject } from './cluster.ts';

// SC9: the PostgreSQL history of every OpenClawSelfConfig, kept after Kubernetes deletes the
// object. One row per object uid. Literal values an agent sends (env var values, file contents)
// are not kept: only names, skills and the configPatch (which SC1 keeps free of credentials).

export interface AgentContext {
  agentId: string;
  namespaceId: string;
  /** SC4: names bound to a Secret by the agent's Configuration, and its harnessAuth env name. */
  secretBoundEnvNames: string[];
}

/**
 * The agent an instance belongs to: instance names are `agentInstanceName(agentId)` and live in
 * the agent's namespace's Kubernetes namespace; anything else belongs to no agent we know.
 */
export async function agentContext(db: Db, k8sNamespace: string, instanceName: string): Promise<AgentContext | null> {
  const agentId = agentIdOfInstance(instanceName);
  if (!agentId) return null;
  const agent = await db.agent.findUnique({
    where: { id: agentId },
    select: {
      id: true,
      namespaceId: true,
      harnessProvider: true,
      namespace: { select: { k8sName: true } },
      configuration: { select: { bindings: { select: { envName: true } } } },
    },
  });
  if (!agent || agent.namespace.k8sName !== k8sNamespace || agentInstanceName(agent.id) !== instanceName) return null;
  const names = agent.configuration?.bindings.map((b) => b.envName) ?? [];
  const harness = agent.harnessProvider ? modelCredentialEnv(agent.harnessProvider) : null;
  if (harness) names.push(harness);
  return { agentId: agent.id, namespaceId: agent.namespaceId, secretBoundEnvNames: names };
}

/**
 * The request as history keeps it: names and the configPatch, never literal values. A configPatch
 * SC1 refuses (too deep, too large, a literal credential, text PostgreSQL cannot store) is left out:
 * its refusal is in the message, and the row must be writable whatever an agent sent (SG5: a row
 * that cannot be written left a request with no phase, retried forever).
 */
export function storableRequest(spec: unknown): Prisma.InputJsonValue {
  const s = (typeof spec === 'object' && spec !== null ? spec : {}) as Record<string, unknown>;
  const patch = typeof s.configPatch === 'object' && s.configPatch !== null && validateConfigurationValues(s.configPatch) === null ? s.configPatch : null;
  const names = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const envNames = Array.isArray(s.addEnvVars) ? s.addEnvVars.map((e) => (e as { name?: unknown })?.name).filter((n): n is string => typeof n === 'string') : [];
  const files = typeof s.addWorkspaceFiles === 'object' && s.addWorkspaceFiles !== null ? Object.keys(s.addWorkspaceFiles) : [];
  return {
    instanceRef: typeof s.instanceRef === 'string' ? s.instanceRef : '',
    addSkills: names(s.addSkills),
    removeSkills: names(s.removeSkills),
    configPatch: patch as Prisma.InputJsonValue,
    addWorkspaceFiles: files,
    removeWorkspaceFiles: names(s.removeWorkspaceFiles),
    addEnvVars: envNames,
    removeEnvVars: names(s.removeEnvVars),
  } as Prisma.InputJsonValue;
}

/** Records an object the controller sees, once; a row GraphQL created first keeps its requester. */
export async function observeRequest(db: Db, object: SelfConfigObject, context: AgentContext | null): Promise<string> {
  const m = object.metadata;
  const instanceRef = instanceRefOf(object);
  const row = await db.selfConfigRequest.upsert({
    where: { uid: m.uid },
    create: {
      id: newId('selfConfigRequest'),
      uid: m.uid,
      k8sNamespace: m.namespace,
      name: m.name,
      instanceRef: instanceRef.slice(0, 253),
      namespaceId: context?.namespaceId ?? null,
      agentId: context?.agentId ?? null,
      request: storableRequest(object.spec),
      ...(m.creationTimestamp ? { createdAt: new Date(m.creationTimestamp) } : {}),
    },
    update: {},
    select: { id: true },
  });
  return row.id;
}

export interface RecordedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** kind/name of the object the event is about. */
  on: string;
  at: string;
}

/** SG2: a change as history keeps it (names only). */
const changeRows = (changes: readonly SpecChange[]) => changes.map((c) => ({ op: c.op, kind: c.kind, name: c.name }));
/** SC7: a skipped removal as history keeps it, with the managers that own the item. */
const skippedRows = (skipped: readonly SkippedRemoval[]) =>
  skipped.map((s) => ({ kind: s.kind, name: s.name, why: s.why, managers: s.managers.map((m) => ({ manager: m.manager, operation: m.operation })) }));

export async function recordPending(db: Db, uid: string, at: Date): Promise<void> {
  await db.selfConfigRequest.update({ where: { uid }, data: { phase: 'Pending', pendingAt: at } });
}

export async function recordOutcome(
  db: Db,
  uid: string,
  outcome: { phase: string; reason: string | null; message: string; skipped: readonly SkippedRemoval[]; changes: readonly SpecChange[]; events: readonly RecordedEvent[]; at: Date },
): Promise<void> {
  await db.selfConfigRequest.update({
    where: { uid },
    data: {
      phase: outcome.phase,
      reason: outcome.reason,
      message: outcome.message,
      changes: changeRows(outcome.changes),
      skippedRemovals: skippedRows(outcome.skipped),
      events: outcome.events as unknown as Prisma.InputJsonValue,
      completedAt: outcome.at,
    },
  });
}

/** SG1: the request was applied and waits for its gateway: what it changed and the events so far. */
export async function recordVerifying(
  db: Db,
  uid: string,
  verifying: { message: string; skipped: readonly SkippedRemoval[]; changes: readonly SpecChange[]; events: readonly RecordedEvent[] },
): Promise<void> {
  await db.selfConfigRequest.update({
    where: { uid },
    data: {
      phase: 'Verifying',
      message: verifying.message,
      changes: changeRows(verifying.changes),
      skippedRemovals: skippedRows(verifying.skipped),
      events: verifying.events as unknown as Prisma.InputJsonValue,
    },
  });
}

/** SG1: what a Verifying request recorded when it was applied (its change, skipped removals and events). */
export async function verifyingRecord(db: Db, uid: string): Promise<{ skipped: SkippedRemoval[]; changes: SpecChange[]; events: RecordedEvent[] }> {
  const row = await db.selfConfigRequest.findUnique({ where: { uid }, select: { changes: true, skippedRemovals: true, events: true } });
  const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
  return { changes: list<SpecChange>(row?.changes), skipped: list<SkippedRemoval>(row?.skippedRemovals), events: list<RecordedEvent>(row?.events) };
}

/** SG1: another request of the instance that is in its health gate (a later one waits: a rollback would undo it). */
export async function verifyingRequestOf(db: Db, target: { k8sNamespace: string; instanceRef: string; uid: string }): Promise<string | null> {
  const row = await db.selfConfigRequest.findFirst({
    where: { k8sNamespace: target.k8sNamespace, instanceRef: target.instanceRef, phase: 'Verifying', deletedAt: null, uid: { not: target.uid } },
    select: { name: true },
  });
  return row?.name ?? null;
}

/**
 * SG4: what an instance's budget has spent at `now`, from history: its other requests that reached
 * Pending within the hour (a request the budget itself refused costs nothing, so a refused agent's
 * retries do not push the refill time out), its applied requests within the day, and the agent's
 * rollbacks beyond those an administrator resumed after.
 */
export async function budgetUsage(
  db: Db,
  target: { k8sNamespace: string; instanceRef: string; agentId: string | null; uid: string },
  now: Date,
): Promise<BudgetUsage> {
  const instance = { k8sNamespace: target.k8sNamespace, instanceRef: target.instanceRef, uid: { not: target.uid } };
  const [requests, applied, rollbacks, agent] = await Promise.all([
    db.selfConfigRequest.findMany({
      where: {
        ...instance,
        pendingAt: { gt: new Date(now.getTime() - HOUR_MS), lte: now },
        OR: [{ phase: { not: 'Denied' } }, { reason: null }, { reason: { notIn: [...BUDGET_REASONS] } }],
      },
      select: { pendingAt: true },
    }),
    db.selfConfigRequest.findMany({ where: { ...instance, phase: 'Applied', completedAt: { gt: new Date(now.getTime() - DAY_MS), lte: now } }, select: { completedAt: true } }),
    db.selfConfigRequest.count({ where: target.agentId ? { agentId: target.agentId, phase: 'RolledBack' } : { ...instance, phase: 'RolledBack' } }),
    target.agentId ? db.agent.findUnique({ where: { id: target.agentId }, select: { selfConfigRollbacksResumed: true } }) : null,
  ]);
  return {
    requestsInLastHour: requests.map((r) => r.pendingAt!),
    appliedInLastDay: applied.map((r) => r.completedAt!),
    rollbacksSinceResume: Math.max(0, rollbacks - (agent?.selfConfigRollbacksResumed ?? 0)),
  };
}

/** SG3: the request waits for approval from `at`, with the preview it would apply. */
export async function recordAwaiting(db: Db, uid: string, awaiting: { message: string; changes: readonly SpecChange[]; at: Date }): Promise<void> {
  await db.selfConfigRequest.update({
    where: { uid },
    data: { phase: 'AwaitingApproval', message: awaiting.message, changes: changeRows(awaiting.changes), awaitingApprovalAt: awaiting.at },
  });
}

export interface ApprovalState {
  awaitingApprovalAt: Date | null;
  /** approved or rejected by an administrator, expired by the controller; null while undecided. */
  decision: string | null;
  byId: string | null;
  reason: string | null;
  changes: SpecChange[];
}

export async function approvalState(db: Db, uid: string): Promise<ApprovalState | null> {
  const row = await db.selfConfigRequest.findUnique({ where: { uid }, select: { awaitingApprovalAt: true, approvalDecision: true, approvalById: true, approvalReason: true, changes: true } });
  if (!row) return null;
  return { awaitingApprovalAt: row.awaitingApprovalAt, decision: row.approvalDecision, byId: row.approvalById, reason: row.approvalReason, changes: Array.isArray(row.changes) ? (row.changes as unknown as SpecChange[]) : [] };
}

/** SG3: the controller's claim that an undecided request expired; false when an administrator decided first. */
export async function claimExpiry(db: Db, uid: string, at: Date): Promise<boolean> {
  const claimed = await db.selfConfigRequest.updateMany({ where: { uid, approvalDecision: null }, data: { approvalDecision: 'expired', approvalAt: at } });
  return claimed.count === 1;
}

export async function recordDeleted(db: Db, uid: string, at: Date): Promise<void> {
  await db.selfConfigRequest.updateMany({ where: { uid, deletedAt: null }, data: { deletedAt: at } });
}

/** The agent id an instance name stands for (the inverse of agentInstanceName), or null. */
export function agentIdOfInstance(instanceName: string): string | null {
  const match = /^agent-(.{36})$/.exec(instanceName);
  const id = match ? `agt_${match[1]}` : '';
  return isId('agent', id) ? id : null;
}
