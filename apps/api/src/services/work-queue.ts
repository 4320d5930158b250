import { type Db, type Tx } from '../db/client.ts';
import { newId } from '../ids.ts';
import { raw } from '../db/sql.ts';

// The durable queue in Postgres (rule W1): items are claimed with a lease under
// FOR UPDATE SKIP LOCKED, retried with backoff, and end in success or a permanent failure.
// R4: every commit of a step re-checks the lease in its own transaction (withLease), so a worker
// whose lease expired, and was perhaps taken by another, commits nothing.

export interface WorkItemRow {
  id: string;
  kind: string;
  idempotencyKey: string;
  payload: unknown;
  attempts: number;
  /** The step a retry resumes at; null before the first step committed. */
  step: string | null;
}

/**
 * Queues an item once per idempotency key. Items with the same `concurrencyKey` (RC8: a deploy's
 * agent) run one at a time, in the order they became runnable.
 */
export async function enqueue(tx: Tx, kind: string, idempotencyKey: string, payload: Record<string, unknown>, options: { concurrencyKey?: string } = {}): Promise<string> {
  const existing = await tx.workItem.findUnique({ where: { idempotencyKey } });
  if (existing) return existing.id;
  const id = newId('workItem');
  await tx.workItem.create({ data: { id, kind, idempotencyKey, payload: payload as object, concurrencyKey: options.concurrencyKey ?? null } });
  return id;
}

/**
 * Claims the next runnable item: pending and due, or running with an expired lease (its worker is
 * gone). An item whose concurrency key another item holds RUNNING waits (RC8); the partial unique
 * index on (concurrencyKey) WHERE state = 'RUNNING' holds that against two workers claiming two
 * items of one key at once: the second claim fails on the index and claims nothing this time.
 */
export async function claim(db: Db, owner: string, leaseSeconds: number): Promise<WorkItemRow | null> {
  try {
    const rows = await db.$queryRaw<WorkItemRow[]>`
      UPDATE "WorkItem" SET state = 'RUNNING', "leaseOwner" = ${owner},
        "leaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1, "updatedAt" = now()
      WHERE id = (
        SELECT w.id FROM "WorkItem" w
        WHERE ((w.state = 'PENDING' AND w."nextAttemptAt" <= now()) OR (w.state = 'RUNNING' AND w."leaseExpiresAt" < now()))
          AND (w."concurrencyKey" IS NULL OR NOT EXISTS (
            SELECT 1 FROM "WorkItem" r WHERE r."concurrencyKey" = w."concurrencyKey" AND r.state = 'RUNNING' AND r.id <> w.id))
        ORDER BY w."nextAttemptAt", w."createdAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, "idempotencyKey", payload, attempts, step`;
    return rows[0] ?? null;
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** A unique violation as Prisma's raw queries report it (PostgreSQL 23505). */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; meta?: { code?: string }; message?: string };
  return e.code === 'P2010' ? e.meta?.code === '23505' : e.code === '23505' || /23505|unique constraint/i.test(e.message ?? '');
}

/**
 * Extends a lease that is still held. An expired lease is never extended, even if nobody took it
 * yet: its holder must assume another worker has. Answers whether the lease is still held.
 */
export async function heartbeat(db: Db, id: string, owner: string, leaseSeconds: number): Promise<boolean> {
  const n = await db.$executeRaw`UPDATE "WorkItem" SET "leaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds})
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING' AND "leaseExpiresAt" > now()`;
  return n > 0;
}

export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  readonly code = 'LEASE_LOST';
  constructor(readonly workItemId: string) {
    super(`the lease on work item ${workItemId} expired or was taken by another worker`);
  }
}

/**
 * R4: a step's writes commit only with its advance (or the item's completion, or its permanent
 * failure), and that update matches only while this owner's lease is unexpired: answers false,
 * and the caller rolls the transaction back, when the lease is gone. Once it matched, the row stays
 * locked until the commit, and claims skip locked rows.
 */
export async function advance(tx: Tx, id: string, owner: string, step: string): Promise<boolean> {
  const n = await tx.$executeRaw`UPDATE "WorkItem" SET step = ${step}, "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING' AND "leaseExpiresAt" > now()`;
  return n > 0;
}

export async function complete(tx: Tx, id: string, owner: string): Promise<boolean> {
  const n = await tx.$executeRaw`UPDATE "WorkItem" SET state = 'SUCCEEDED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING' AND "leaseExpiresAt" > now()`;
  return n > 0;
}

export async function retryLater(db: Db, id: string, owner: string, error: string, delayMs: number): Promise<void> {
  await db.$executeRaw`UPDATE "WorkItem" SET state = 'PENDING', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    "lastError" = ${error}, "nextAttemptAt" = now() + make_interval(secs => ${delayMs / 1000}), "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING'`;
}

/**
 * R5: a worker that stops between steps hands its item back at once (not after its lease runs
 * out), at the step it reached; stopping is not a failed attempt.
 */
export async function release(db: Db, id: string, owner: string): Promise<void> {
  await db.$executeRaw`UPDATE "WorkItem" SET state = 'PENDING', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    attempts = GREATEST(attempts - 1, 0), "nextAttemptAt" = now(), "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING'`;
}

/**
 * A running item's `nextAttemptAt` means nothing to a claim (an expired lease is what makes it
 * claimable again), so a wake marks it with this instant, which no schedule ever writes, and the
 * item's snooze reads the mark. A constant of this code, written into the statements as a literal.
 */
const WOKEN_WHILE_RUNNING = raw(`TIMESTAMP '1970-01-01 00:00:00'`);

/**
 * A step that waits for the world (a pause, a gateway becoming Ready) hands its item back to run
 * again at `until`, at the step it is in: waiting is not a failed attempt, and holds no worker slot.
 * An item woken while it ran (wake) runs again at once instead: what woke it may be what the step
 * read too early to see.
 */
export async function snooze(db: Db, id: string, owner: string, until: Date, note: string): Promise<void> {
  await db.$executeRaw`UPDATE "WorkItem" SET state = 'PENDING', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    attempts = GREATEST(attempts - 1, 0), "lastError" = ${note},
    "nextAttemptAt" = CASE WHEN "nextAttemptAt" = ${WOKEN_WHILE_RUNNING} THEN now() ELSE ${until}::timestamp(3) END, "updatedAt" = now()
    WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING'`;
}

/**
 * Makes a waiting item runnable now (an approval, a resume, a member of a rollout's batch
 * settled): with the caller's commit. One running now is marked instead, and its snooze, if it
 * ends in one, makes it runnable at once: a wake is never lost to a step in progress.
 */
export async function wake(tx: Tx, idempotencyKey: string): Promise<void> {
  await tx.$executeRaw`UPDATE "WorkItem" SET "nextAttemptAt" = CASE WHEN state = 'RUNNING' THEN ${WOKEN_WHILE_RUNNING} ELSE now() END, "updatedAt" = now()
    WHERE "idempotencyKey" = ${idempotencyKey} AND state IN ('PENDING', 'RUNNING')`;
}

export async function failPermanently(tx: Tx, id: string, owner: string, error: string): Promise<boolean> {
  const n = await tx.$executeRaw`UPDATE "WorkItem" SET state = 'FAILED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    "lastError" = ${error}, "updatedAt" = now() WHERE id = ${id} AND "leaseOwner" = ${owner} AND state = 'RUNNING' AND "leaseExpiresAt" > now()`;
  return n > 0;
}
