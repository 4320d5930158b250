import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, transaction } from '../db/client.ts';
import { newId } from '../ids.ts';
import { testDatabaseMode } from '../test/database.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { startWorker } from '../worker.ts';
import { claim, complete, enqueue, failPermanently } from './work-queue.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
});
afterAll(() => stack?.close());

async function add(kind: string, payload: Record<string, unknown> = {}) {
  const key = newId('workItem');
  return transaction(stack.runtime.db, (tx) => enqueue(tx, kind, key, payload));
}

describe('work queue', () => {
  it('W1 enqueue is idempotent by key', async () => {
    const a = await transaction(stack.runtime.db, (tx) => enqueue(tx, 'k', 'same-key', {}));
    const b = await transaction(stack.runtime.db, (tx) => enqueue(tx, 'k', 'same-key', {}));
    expect(a).toBe(b);
    expect(await stack.runtime.db.workItem.count({ where: { idempotencyKey: 'same-key' } })).toBe(1);
    await transaction(stack.runtime.db, async (tx) => {
      await tx.workItem.update({ where: { id: a }, data: { state: 'SUCCEEDED' } });
    });
  });

  it('W1 concurrent claims never take the same item (FOR UPDATE SKIP LOCKED) and take a lease', async () => {
    const ids = await Promise.all([add('claim-test'), add('claim-test'), add('claim-test')]);
    const claims = await Promise.all([1, 2, 3, 4].map((n) => claim(stack.runtime.db, `owner-${n}`, 30)));
    const got = claims.filter((c) => c !== null).map((c) => c!.id).sort();
    expect(got).toEqual([...ids].sort());
    const rows = await stack.runtime.db.workItem.findMany({ where: { id: { in: ids } } });
    for (const row of rows) {
      expect(row.state).toBe('RUNNING');
      expect(row.attempts).toBe(1);
      expect(row.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    }
    for (const c of claims) if (c) await transaction(stack.runtime.db, (tx) => complete(tx, c.id, `owner-${claims.indexOf(c) + 1}`));
    expect(await stack.runtime.db.workItem.count({ where: { id: { in: ids }, state: 'SUCCEEDED' } })).toBe(3);
  });

  // PGlite runs one statement at a time, so there concurrent claims cannot collide whatever the
  // SQL says; on PostgreSQL, claimers on two pools (two replicas) race for real.
  it.runIf(testDatabaseMode() === 'postgres')('W1 on PostgreSQL, claimers on two pools never take the same item (skipped on PGlite, which serializes connections)', async () => {
    const other = createDb(stack.databaseUrl, { poolSize: 8 });
    try {
      for (let round = 0; round < 5; round++) {
        const kind = `race-${round}`;
        const ids = await Promise.all(Array.from({ length: 12 }, () => add(kind)));
        const claims = await Promise.all(Array.from({ length: 16 }, (_, n) => claim(n % 2 === 0 ? stack.runtime.db : other, `racer-${round}-${n}`, 30)));
        const got = claims.filter((c) => c !== null).map((c) => c!.id);
        expect(new Set(got).size, `round ${round}: an item was claimed twice`).toBe(got.length);
        expect(got.sort()).toEqual([...ids].sort());
        const owners = await stack.runtime.db.workItem.findMany({ where: { id: { in: ids } }, select: { leaseOwner: true, attempts: true } });
        expect(owners.every((o) => o.attempts === 1)).toBe(true);
        await stack.runtime.db.workItem.updateMany({ where: { id: { in: ids } }, data: { state: 'SUCCEEDED', leaseOwner: null } });
      }
    } finally {
      await other.$disconnect();
    }
  });

  it('W1 an expired lease is claimed again by another worker', async () => {
    const id = await add('lease-test');
    const first = await claim(stack.runtime.db, 'dead-worker', 30);
    expect(first?.id).toBe(id);
    expect(await claim(stack.runtime.db, 'other', 30)).toBeNull();
    await stack.runtime.db.workItem.update({ where: { id }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
    const second = await claim(stack.runtime.db, 'other', 30);
    expect(second).toMatchObject({ id, attempts: 2 });
    await transaction(stack.runtime.db, (tx) => failPermanently(tx, id, 'other', 'TEST_DONE'));
    const row = await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ state: 'FAILED', lastError: 'TEST_DONE', leaseOwner: null });
    // The old owner can no longer complete it.
    await transaction(stack.runtime.db, (tx) => complete(tx, id, 'dead-worker'));
    expect((await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state).toBe('FAILED');
  });

  it('W1 a failing handler is retried with backoff until its last attempt records a permanent failure', async () => {
    const id = await add('flaky');
    const attempts: number[] = [];
    const worker = startWorker({
      db: stack.runtime.db,
      logger: stack.runtime.deps.logger,
      pollMs: 20,
      maxAttempts: 3,
      backoffMs: () => 10,
      handlers: {
        flaky: {
          async run(item, { final, owner }) {
            attempts.push(item.attempts);
            if (!final) throw new Error(`attempt ${item.attempts} failed`);
            await transaction(stack.runtime.db, (tx) => failPermanently(tx, item.id, owner, 'GAVE_UP'));
          },
        },
      },
    });
    const deadline = Date.now() + 10_000;
    while ((await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state !== 'FAILED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
    }
    await worker.stop();
    expect(attempts).toEqual([1, 2, 3]);
    expect(await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'FAILED', lastError: 'GAVE_UP', attempts: 3 });
  });
});
