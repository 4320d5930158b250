import type { InstanceStatus } from '@occ/domain/instance-status';
import { withoutBackendNames } from '@occ/domain/kubernetes-names';
import type { Db } from '../db/client.ts';
import type { InstanceKey } from './cluster.ts';

// RC6: the reconciler mirrors what it observed of each agent's gateway into AgentRuntime, so an
// agent's status is derived in SQL on every read (agents.ts) without a Kubernetes read per agent.
// A row is written only when it changes, and only for an agent that exists. Messages name the
// product's secret ids, never a backend locator (S4).

export interface RuntimeRow {
  phase: string;
  ready: boolean;
  reason: string;
  message: string;
  runningRevisionId: string | null;
  runningGeneration: number | null;
  instanceGeneration: number;
  observedGeneration: number;
}

export function runtimeRow(generation: number, status: InstanceStatus): RuntimeRow {
  const ready = status.conditions.find((c) => c.type === 'Ready');
  const degraded = status.conditions.find((c) => c.type === 'Degraded');
  const shown = degraded?.status === 'True' ? degraded : ready;
  return {
    phase: status.phase,
    ready: ready?.status === 'True',
    reason: shown?.reason ?? '',
    message: withoutBackendNames(shown?.message ?? '').slice(0, 2000),
    runningRevisionId: status.running?.revision?.id ?? null,
    runningGeneration: status.running?.generation ?? null,
    instanceGeneration: generation,
    observedGeneration: status.observedGeneration,
  };
}

/**
 * The namespace's row is locked FOR SHARE before its status is read: markNamespaceLost holds it
 * FOR UPDATE while it writes NamespaceLost, so a mirror write that started before sees LOST once
 * that commits (a lock wait reads the newest row), instead of overwriting NamespaceLost with what
 * it saw before (a browser test caught InstanceMissing there, RC5).
 */
export async function writeRuntime(db: Db, agentId: string, row: RuntimeRow, at: Date): Promise<void> {
  await db.$executeRaw`
    WITH ns AS (SELECT n.status FROM "Agent" a JOIN "Namespace" n ON n.id = a."namespaceId" WHERE a.id = ${agentId} FOR SHARE OF n)
    INSERT INTO "AgentRuntime" ("agentId", "instanceGeneration", "observedGeneration", "phase", "ready", "reason", "message", "runningRevisionId", "runningGeneration", "observedAt")
    SELECT ${agentId}, ${row.instanceGeneration}, ${row.observedGeneration}, ${row.phase}, ${row.ready}, ${row.reason}, ${row.message}, ${row.runningRevisionId}, ${row.runningGeneration}, ${at}
    FROM ns WHERE ns.status <> 'LOST' OR ${row.reason} = 'NamespaceLost'
    ON CONFLICT ("agentId") DO UPDATE SET
      "instanceGeneration" = EXCLUDED."instanceGeneration", "observedGeneration" = EXCLUDED."observedGeneration", "phase" = EXCLUDED."phase",
      "ready" = EXCLUDED."ready", "reason" = EXCLUDED."reason", "message" = EXCLUDED."message",
      "runningRevisionId" = EXCLUDED."runningRevisionId", "runningGeneration" = EXCLUDED."runningGeneration", "observedAt" = EXCLUDED."observedAt"
    WHERE ("AgentRuntime"."instanceGeneration", "AgentRuntime"."observedGeneration", "AgentRuntime"."phase", "AgentRuntime"."ready", "AgentRuntime"."reason",
           "AgentRuntime"."message", "AgentRuntime"."runningRevisionId", "AgentRuntime"."runningGeneration")
      IS DISTINCT FROM (EXCLUDED."instanceGeneration", EXCLUDED."observedGeneration", EXCLUDED."phase", EXCLUDED."ready", EXCLUDED."reason",
           EXCLUDED."message", EXCLUDED."runningRevisionId", EXCLUDED."runningGeneration")`;
}

/**
 * What this process last wrote per agent, so a reconcile that observed nothing new sends no
 * statement. An entry is trusted for `ttlMs` only: another writer (a namespace marked lost by an
 * API replica) is overwritten at the latest then, as the statement's own WHERE allows.
 */
export interface MirrorMemo {
  ttlMs: number;
  rows: Map<string, { row: string; at: number }>;
}

export function mirrorMemo(ttlMs = 30_000): MirrorMemo {
  return { ttlMs, rows: new Map() };
}

export async function mirrorRuntime(db: Db, agentId: string, generation: number, status: InstanceStatus, at: Date, memo?: MirrorMemo): Promise<void> {
  const row = runtimeRow(generation, status);
  const key = JSON.stringify(row);
  const last = memo?.rows.get(agentId);
  const now = Date.now();
  if (last && last.row === key && now - last.at < memo!.ttlMs) return;
  await writeRuntime(db, agentId, row, at);
  if (memo) {
    if (memo.rows.size >= 10_000) memo.rows.clear();
    memo.rows.set(agentId, { row: key, at: now });
  }
}

/** The agent an instance key stands for: instances are named `agent-<uuid>` (agentInstanceName). */
export function agentIdOfKey(key: InstanceKey): string | null {
  const match = /^agent-([0-9a-f-]{36})$/.exec(key.name);
  return match ? `agt_${match[1]}` : null;
}

/**
 * The instance is gone (deleted, or its namespace with it): the agent's gateway is gone too. A row
 * of a lost namespace keeps saying why (RC5): the mirror never overwrites NamespaceLost.
 */
export async function mirrorMissing(db: Db, key: InstanceKey, at: Date, memo?: MirrorMemo): Promise<void> {
  const agentId = agentIdOfKey(key);
  if (!agentId) return;
  memo?.rows.delete(agentId);
  await writeRuntime(db, agentId, { phase: 'Missing', ready: false, reason: 'InstanceMissing', message: 'the OpenClawInstance does not exist; nothing runs', runningRevisionId: null, runningGeneration: null, instanceGeneration: 0, observedGeneration: 0 }, at);
}
