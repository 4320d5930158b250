import { ConflictError } from '@occ/domain/errors';
import type { SecretDriver } from '@occ/domain/secret-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, transaction, type Db } from '../db/client.ts';
import { testDatabaseMode } from '../test/database.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace } from '../test/operations.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { createSecret } from './secrets.ts';

// The namespace lock is a Postgres row lock, so it holds across processes: a second client with
// its own connection pool (as another replica would have) waits until the first commits.
// Embedded PGlite runs one transaction at a time whatever the lock, so there these tests would
// pass without it and prove nothing: they run on PostgreSQL only.
const POSTGRES = testDatabaseMode() === 'postgres';
const ONLY_POSTGRES = 'PostgreSQL only (PGlite serializes every connection, so a lock test there passes without the lock)';

let stack: TestStack;
let other: Db;
beforeAll(async () => {
  if (!POSTGRES) return;
  stack = await startTestStack({ worker: true });
  other = createDb(stack.databaseUrl, { poolSize: 2 });
});
afterAll(async () => {
  await other?.$disconnect();
  await stack?.close();
});

describe(`namespace lock (${POSTGRES ? 'PostgreSQL' : `skipped: ${ONLY_POSTGRES}`})`, () => {
  it.runIf(POSTGRES)('S1 a second client cannot take the namespace lock until the first transaction ends', async () => {
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

  it.runIf(POSTGRES)('S1 two replicas (two pools) creating the same name at once: exactly one succeeds, the other is NAME_TAKEN, one backend object', async () => {
    const nsId = await createReadyNamespace(stack, 'racing');
    const boot: Actor = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
    // Each replica's driver waits, inside the transaction, until both have reached Kubernetes or
    // half a second passed. Under the lock the second cannot get there while the first holds it;
    // without it both would write a backend object and race to insert the row.
    let arrived = 0;
    let bothArrived!: () => void;
    const meeting = new Promise<void>((r) => (bothArrived = r));
    const real = stack.runtime.deps.secretDriver;
    const meetingDriver: SecretDriver = Object.assign(Object.create(real) as SecretDriver, {
      async create(input: Parameters<SecretDriver['create']>[0]) {
        if (++arrived === 2) bothArrived();
        await Promise.race([meeting, new Promise((r) => setTimeout(r, 500))]);
        return real.create(input);
      },
    });
    const replica = (db: Db): Deps => ({ ...stack.runtime.deps, db, secretDriver: meetingDriver });
    const results = await Promise.allSettled([
      createSecret(replica(stack.runtime.db), boot, { namespaceId: nsId, name: 'same-name', value: 'a' }),
      createSecret(replica(other), boot, { namespaceId: nsId, name: 'same-name', value: 'b' }),
    ]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(ConflictError);
    expect(refused[0]).toMatchObject({ code: 'NAME_TAKEN' });
    expect(arrived).toBe(1);
    const k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
    expect((await stack.core.listNamespacedSecret({ namespace: k8sNamespace })).items).toHaveLength(1);
  });
});
