import type { Db, Tx } from '../db/client.ts';
import { newId } from '../ids.ts';

// The durable queue in Postgres (rule W1): items are claimed with a lease under
// FOR UPDATE SKIP LOCKED, retried with backoff, and end in success or a permanent failure.

export interface WorkItemRow {
  id: string;
  kind: string;
  idempotencyKey: string;
  payload: Record<string, unknown>;
  attempts: number;
}

export async function enqueue(tx: Tx, kind: string, idempotencyKey: string, payload: Record<string, unknown>): Promise<string> {
  const existing = await tx.workItem.findUnique({ where: { idempotencyKey } });
  if (existing) return existing.id;
  const id = newId('workItem');
  await tx.workItem.create({ data: { id, kind, idempotencyKey, payload: payload as object } });
  return id;
}

export async function claim(db: Db, owner: string, leaseSeconds: number): Promise<WorkItemRow | null> {
  const rows = await db.$queryRaw<WorkItemRow[]>`
    UPDATE "WorkItem" SET state = 'RUNNING', "leaseOwner" = ${owner},
      "leaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1, "updatedAt" = now()
    WHERE id = (
      SELECT id FROM "WorkItem"
      WHERE (state = 'PENDING' AND "nextAttemptAt" <= now()) OR (state = 'RUNNING' AND "leaseExpiresAt" < now())
      ORDER BY "nextAttemptAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id, kind, "idempotencyKey", payload, attempts`;
  return rows[0] ?? null;
}

export async function heartbeat(db: Db, id: string, owner: string, leaseSeconds: number): Promise<void> {
  await db.$executeRaw`UPDATE "WorkItem" SET "leaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds})
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING'`;
}

export async function complete(tx: Tx, id: string, owner: string): Promise<void> {
  await tx.$executeRaw`UPDATE "WorkItem" SET state = 'SUCCEEDED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner}`;
}

export async function retryLater(db: Db, id: string, owner: string, error: string, delayMs: number): Promise<void> {
  await db.$executeRaw`UPDATE "WorkItem" SET state = 'PENDING', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    "lastError" = ${error}, "nextAttemptAt" = now() + make_interval(secs => ${delayMs / 1000}), "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner}`;
}

export async function failPermanently(tx: Tx, id: string, owner: string, error: string): Promise<void> {
  await tx.$executeRaw`UPDATE "WorkItem" SET state = 'FAILED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    "lastError" = ${error}, "updatedAt" = now() WHERE id = ${id} AND "leaseOwner" = ${owner}`;
}
