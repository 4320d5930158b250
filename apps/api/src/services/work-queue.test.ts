import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, transaction } from '../db/client.ts';
import { newId } from '../ids.ts';
import { testDatabaseMode } from '../test/database.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { z } from 'zod';
import { waitFor } from '../test/operations.ts';
import { defineWorkKind, startWorker } from '../worker.ts';
import { audit } from './audit.ts';
import { advance, claim, complete, enqueue, failPermanently, snooze, wake } from './work-queue.ts';

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

  it('W1 a wake is never lost: one that comes while the item runs makes the snooze it ends in runnable at once; one that comes while it waits makes it runnable now; without one, it waits', async () => {
    const db = stack.runtime.db;
    const hour = () => new Date(Date.now() + 3_600_000);
    // Each case: [woken while running, woken while waiting].
    for (const [whileRunning, whileWaiting] of [[false, false], [true, false], [false, true], [true, true]] as const) {
      const key = `wake-${newId('workItem')}`;
      const id = await transaction(db, (tx) => enqueue(tx, 'wake-test', key, {}));
      const owner = `waker-${whileRunning}-${whileWaiting}`;
      expect((await claim(db, owner, 30))?.id).toBe(id);
      if (whileRunning) await transaction(db, (tx) => wake(tx, key));
      // The wake left the running item running, under its owner.
      expect(await db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'RUNNING', leaseOwner: owner });
      await snooze(db, id, owner, hour(), 'waiting for the test');
      const due = async () => (await db.workItem.findUniqueOrThrow({ where: { id } })).nextAttemptAt.getTime() <= Date.now();
      expect(await due(), `woken while running: ${whileRunning}`).toBe(whileRunning);
      if (whileWaiting) await transaction(db, (tx) => wake(tx, key));
      expect(await due(), `woken while running: ${whileRunning}, while waiting: ${whileWaiting}`).toBe(whileRunning || whileWaiting);
      // A runnable item is claimed again; a waiting one is not (and nothing else is runnable here).
      const again = await claim(db, `${owner}-again`, 30);
      expect(again?.id ?? null).toBe(whileRunning || whileWaiting ? id : null);
      if (again) {
        // The mark is spent: the next snooze without a wake waits its time.
        await snooze(db, id, `${owner}-again`, hour(), 'waiting again');
        expect(await due()).toBe(false);
      }
      await db.workItem.update({ where: { id }, data: { state: 'SUCCEEDED', leaseOwner: null } });
    }
  });

  it('W1 R4 a step that always throws is retried with backoff, and its last allowed attempt fails the item permanently with ATTEMPTS_EXHAUSTED', async () => {
    const id = await add('flaky');
    const attempts: number[] = [];
    const failures: string[] = [];
    const worker = startWorker({
      db: stack.runtime.db,
      logger: stack.runtime.deps.logger,
      pollMs: 20,
      maxAttempts: 3,
      backoffMs: () => 10,
      kinds: [
        defineWorkKind({
          kind: 'flaky',
          payload: z.object({}),
          steps: [
            {
              name: 'only',
              async run(_p, ctx) {
                attempts.push(ctx.item.attempts);
                throw new Error(`attempt ${ctx.item.attempts} failed`);
              },
            },
          ],
          async onPermanentFailure(_tx, _p, failure) {
            failures.push(failure.code);
          },
        }),
      ],
    });
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'FAILED', 'the item to fail permanently');
    } finally {
      await worker.stop();
    }
    expect(attempts).toEqual([1, 2, 3]);
    expect(failures).toEqual(['ATTEMPTS_EXHAUSTED']);
    expect(await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'FAILED', lastError: 'ATTEMPTS_EXHAUSTED', attempts: 3 });
  });

  it('R4 a payload that does not parse against its kind\'s schema fails the item permanently with INVALID_PAYLOAD, and no step runs', async () => {
    const id = await add('typed', { namespaceId: 42 });
    const ran: string[] = [];
    const worker = startWorker({
      db: stack.runtime.db,
      logger: stack.runtime.deps.logger,
      pollMs: 20,
      kinds: [defineWorkKind({ kind: 'typed', payload: z.object({ namespaceId: z.string() }), steps: [{ name: 'only', run: async () => void ran.push('only') }] })],
    });
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'FAILED', 'the item to fail');
    } finally {
      await worker.stop();
    }
    expect(ran).toEqual([]);
    expect(await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'FAILED', lastError: 'INVALID_PAYLOAD', attempts: 1 });
  });

  it('R4 an item of several steps records each committed step, and a retry resumes at the step that failed', async () => {
    const id = await add('stepped', { n: 1 });
    const ran: string[] = [];
    let failSecond = true;
    const worker = startWorker({
      db: stack.runtime.db,
      logger: stack.runtime.deps.logger,
      pollMs: 20,
      backoffMs: () => 10,
      kinds: [
        defineWorkKind({
          kind: 'stepped',
          payload: z.object({ n: z.number() }),
          steps: [
            { name: 'first', run: async (p, ctx) => void ran.push(`first#${ctx.item.attempts}`) },
            {
              name: 'second',
              async run(_p, ctx) {
                ran.push(`second#${ctx.item.attempts}`);
                if (failSecond) {
                  failSecond = false;
                  throw new Error('transient');
                }
              },
            },
            { name: 'third', run: async (_p, ctx) => void ran.push(`third#${ctx.item.attempts}`) },
          ],
        }),
      ],
    });
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'SUCCEEDED', 'the item to succeed');
    } finally {
      await worker.stop();
    }
    expect(ran).toEqual(['first#1', 'second#1', 'second#2', 'third#2']);
    expect(await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'SUCCEEDED', step: 'third', attempts: 2 });
  });

  it('R5 a stopping worker finishes its current step, starts no other, and hands the item back at once for another to resume', async () => {
    const id = await add('stopping', {});
    const ran: string[] = [];
    let inFirst!: () => void;
    const firstStarted = new Promise<void>((r) => (inFirst = r));
    let finishFirst!: () => void;
    const firstMayEnd = new Promise<void>((r) => (finishFirst = r));
    const kind = defineWorkKind({
      kind: 'stopping',
      payload: z.object({}),
      steps: [
        {
          name: 'first',
          async run(_p, ctx) {
            inFirst();
            await firstMayEnd;
            ran.push(`first by ${ctx.owner}`);
          },
        },
        { name: 'second', run: async (_p, ctx) => void ran.push(`second by ${ctx.owner}`) },
      ],
    });
    const options = { db: stack.runtime.db, logger: stack.runtime.deps.logger, pollMs: 20, leaseSeconds: 60, kinds: [kind] };
    const a = startWorker(options);
    await firstStarted;
    let stopped = false;
    const stopping = a.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false); // it waits for the step in progress
    finishFirst();
    await stopping;
    expect(ran).toEqual([`first by ${a.owner}`]);
    // Handed back now, not when its 60 s lease would run out, at the step it reached.
    expect(await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'PENDING', step: 'second', leaseOwner: null, attempts: 0 });
    const b = startWorker(options);
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'SUCCEEDED', 'another worker to finish the item');
    } finally {
      await b.stop();
    }
    expect(ran).toEqual([`first by ${a.owner}`, `second by ${b.owner}`]);
  });

  it('R4 a worker whose lease expired mid-step, and was taken by another, commits nothing and makes no further side effect', async () => {
    const id = await add('lease-lost', {});
    const effects: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let firstEntered!: () => void;
    const entered = new Promise<void>((r) => (firstEntered = r));
    let calls = 0;
    const kind = defineWorkKind({
      kind: 'lease-lost',
      payload: z.object({}),
      steps: [
        {
          name: 'write',
          async run(_p, ctx) {
            effects.push(`write:${ctx.owner}`);
            if (calls++ === 0) {
              firstEntered();
              await gate; // the first worker stalls here (a long GC pause, a slow call) past its lease
            }
            await ctx.commit((tx) =>
              audit(tx, { actorId: null, system: 'worker', action: 'test.lease-step', resourceKind: 'work', resourceId: id, namespaceId: null, outcome: 'SUCCESS', details: { owner: ctx.owner } }),
            );
          },
        },
        { name: 'after', run: async (_p, ctx) => void effects.push(`after:${ctx.owner}`) },
      ],
    });
    const options = { db: stack.runtime.db, logger: stack.runtime.deps.logger, pollMs: 20, leaseSeconds: 30, kinds: [kind] };
    const a = startWorker(options);
    await entered;
    // The lease runs out while the step is in flight.
    await stack.runtime.db.workItem.update({ where: { id }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
    const b = startWorker(options);
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'SUCCEEDED', 'the second worker to finish the item');
      release();
      await a.stop();
    } finally {
      release();
      await a.stop();
      await b.stop();
    }
    expect(effects).toEqual([`write:${a.owner}`, `write:${b.owner}`, `after:${b.owner}`]);
    const commits = await stack.runtime.db.auditEvent.findMany({ where: { action: 'test.lease-step', resourceId: id } });
    expect(commits.map((c) => (c.details as { owner: string }).owner)).toEqual([b.owner]);
    expect(await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: 'SUCCEEDED', attempts: 2 });
    expect(stack.logs.some((l) => l.includes('lease lost') && l.includes(id))).toBe(true);
  });

  // R4 W1: every write that ends a step (its advance, the item's completion, its permanent
  // failure) carries the lease check: under a lease that expired (taken by another worker or not
  // yet), it matches nothing, and the caller rolls the step's writes back with it.
  const leases = ['held', 'expired, not yet taken', 'taken by another worker'] as const;
  const endings = {
    advance: (tx: Parameters<typeof complete>[0], id: string, owner: string) => advance(tx, id, owner, 'next'),
    complete: (tx: Parameters<typeof complete>[0], id: string, owner: string) => complete(tx, id, owner),
    'permanent failure': (tx: Parameters<typeof complete>[0], id: string, owner: string) => failPermanently(tx, id, owner, 'TEST'),
  };
  for (const lease of leases) {
    for (const [ending, end] of Object.entries(endings)) {
      it(`R4 W1 a step's ${ending} under a lease ${lease} ${lease === 'held' ? 'matches' : 'matches nothing'}`, async () => {
        const id = await add(`lease-matrix-${ending}`);
        expect((await claim(stack.runtime.db, 'me', 30))?.id).toBe(id);
        if (lease !== 'held') await stack.runtime.db.workItem.update({ where: { id }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
        if (lease === 'taken by another worker') expect((await claim(stack.runtime.db, 'other', 30))?.id).toBe(id);
        const before = await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } });
        const matched = await transaction(stack.runtime.db, (tx) => end(tx, id, 'me'));
        expect(matched).toBe(lease === 'held');
        const after = await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } });
        if (lease === 'held') expect(after.state).toBe(ending === 'advance' ? 'RUNNING' : ending === 'complete' ? 'SUCCEEDED' : 'FAILED');
        else expect(after).toEqual(before);
        await stack.runtime.db.workItem.update({ where: { id }, data: { state: 'SUCCEEDED', leaseOwner: null } });
      });
    }
  }

  it('R4 an item left at a step this release retired resumes at the step that took its work, and the steps before it do not run again', async () => {
    const id = await add('retired', {});
    await stack.runtime.db.workItem.update({ where: { id }, data: { step: 'old-wait' } });
    const ran: string[] = [];
    const worker = startWorker({
      db: stack.runtime.db,
      logger: stack.runtime.deps.logger,
      pollMs: 20,
      kinds: [
        defineWorkKind({
          kind: 'retired',
          payload: z.object({}),
          steps: [
            { name: 'prepare', run: async () => void ran.push('prepare') },
            { name: 'apply', run: async () => void ran.push('apply') },
            { name: 'report', run: async () => void ran.push('report') },
          ],
          retiredSteps: { 'old-wait': 'apply' },
        }),
      ],
    });
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'SUCCEEDED', 'the item to succeed');
    } finally {
      await worker.stop();
    }
    expect(ran).toEqual(['apply', 'report']);
  });

  it('W1 RC8 a worker of concurrency 3 runs three items at once, and items of one agent (one concurrency key) still one at a time, each slot under its own owner', async () => {
    let active = 0;
    let most = 0;
    let keyedActive = 0;
    let keyedMost = 0;
    const owners = new Set<string>();
    const kind = defineWorkKind({
      kind: 'concurrency-test',
      payload: z.object({ keyed: z.boolean() }),
      steps: [
        {
          name: 'work',
          async run(payload, ctx) {
            owners.add(ctx.owner);
            active++;
            most = Math.max(most, active);
            if (payload.keyed) keyedMost = Math.max(keyedMost, ++keyedActive);
            // Stay until three run together (or long enough that a fourth would have been claimed).
            const until = Date.now() + 1_500;
            while (active < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
            await new Promise((r) => setTimeout(r, 100));
            if (payload.keyed) keyedActive--;
            active--;
          },
        },
      ],
    });
    const free = await Promise.all(Array.from({ length: 6 }, () => add('concurrency-test', { keyed: false })));
    const keyed = await Promise.all(
      Array.from({ length: 3 }, () => transaction(stack.runtime.db, (tx) => enqueue(tx, 'concurrency-test', newId('workItem'), { keyed: true }, { concurrencyKey: 'agent-one' }))),
    );
    const worker = startWorker({ db: stack.runtime.db, logger: stack.runtime.deps.logger, pollMs: 20, leaseSeconds: 30, kinds: [kind], concurrency: 3 });
    try {
      await waitFor(async () => (await stack.runtime.db.workItem.count({ where: { id: { in: [...free, ...keyed] }, state: 'SUCCEEDED' } })) === 9, 'the nine items to finish', 60_000);
    } finally {
      await worker.stop();
    }
    expect(most).toBe(3);
    expect(keyedMost).toBe(1);
    expect([...owners].every((o) => o.startsWith(`${worker.owner}/`))).toBe(true);
    expect(owners.size).toBeGreaterThan(1);
  });
});
