import type { Db, Tx } from '../db/client.ts';
import { sql, sqlRows } from '../db/sql.ts';

// RC6: what the instance reconciler last observed of agents' gateways (AgentRuntime), read for a
// page of agents in one statement. The caller has been allowed to read each agent.

export interface AgentRuntimeView {
  agentId: string;
  phase: string;
  ready: boolean;
  reason: string;
  message: string;
  instanceGeneration: number;
  observedGeneration: number;
  runningRevisionId: string | null;
  runningGeneration: number | null;
  observedAt: Date;
}

export async function agentRuntimes(db: Db | Tx, agentIds: readonly string[]): Promise<Map<string, AgentRuntimeView>> {
  const rows = await sqlRows<AgentRuntimeView>(db, sql`SELECT * FROM "public"."AgentRuntime" WHERE "agentId" = ANY(${[...agentIds]}::text[])`);
  return new Map(rows.map((r) => [r.agentId, r]));
}
