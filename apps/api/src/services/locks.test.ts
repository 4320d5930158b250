import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, transaction, type Db } from '../db/client.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace } from '../test/operations.ts';
import { lockNamespace } from './locks.ts';

// The namespace lock is a Postgres row lock, so it holds across processes: a second client with
// its own connection pool (as another replica would have) waits until the first commits.

let stack: TestStack;
let other: Db;
beforeAll(async () => {
  stack = await startTestStack({ worker: true });
  other = createDb(stack.databaseUrl, { poolSize: 2 });
});
afterAll(async () => {
  await other?.$disconnect();
  await stack?.close();
});

describe('namespace lock', () => {
  it('S1 a second client cannot take the namespace lock until the first transaction ends', async () => {
    const nsId = await createReadyNamespace(stack, 'locked');
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let acquired!: () => void;
    const firstHasLock = new Promise<void>((r) => (acquired = r));

    const first = transaction(stack.runtime.db, async (tx) => {
      await lockNamespace(tx, nsId);
      events.push('first locked');
      acquired();
      await held;
      events.push('first commits');
    });
    await firstHasLock;
    const second = transaction(other, async (tx) => {
      await lockNamespace(tx, nsId);
      events.push('second locked');
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(events).toEqual(['first locked']);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['first locked', 'first commits', 'second locked']);
  });
});
