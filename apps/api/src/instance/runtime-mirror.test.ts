import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseMode } from '../test/database.ts';
import { CREATE_AGENT, CREATE_NAMESPACE, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { writeRuntime } from './runtime-mirror.ts';

// RC5: a mirror write racing the namespace's loss. The loss is written in a transaction holding the
// namespace's row (as markNamespaceLost does); a mirror write that starts while it is open must not
// overwrite NamespaceLost once it commits. Two connections at once: PostgreSQL only (PGlite
// serialises them).

let stack: TestStack;
let namespaceId: string;
let agentId: string;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `mirror-${randomUUID().slice(0, 8)}` } }), 'createNamespace').namespace.id;
  await stack.runtime.db.namespace.update({ where: { id: namespaceId }, data: { status: 'READY' } });
  const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'raced' } }), 'createAgent');
  expect(a.__typename, JSON.stringify(a)).toBe('CreateAgentSuccess');
  agentId = a.agent.id;
}, 120_000);
afterAll(() => stack?.close());

describe('the runtime mirror and a lost namespace', () => {
  it.runIf(testDatabaseMode() === 'postgres')('RC5 a mirror write begun while the loss is being written does not overwrite NamespaceLost', async () => {
    const db = stack.runtime.db;
    const at = new Date();
    let mirror: Promise<void> | null = null;
    await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "Namespace" WHERE id = ${namespaceId} FOR UPDATE`;
      await tx.namespace.update({ where: { id: namespaceId }, data: { status: 'LOST', statusMessage: 'lost in a test' } });
      await tx.$executeRaw`
        INSERT INTO "AgentRuntime" ("agentId", "instanceGeneration", "observedGeneration", "phase", "ready", "reason", "message", "runningRevisionId", "runningGeneration", "observedAt")
        VALUES (${agentId}, 0, 0, 'Missing', false, 'NamespaceLost', 'gone with its namespace', NULL, NULL, ${at})
        ON CONFLICT ("agentId") DO UPDATE SET "reason" = 'NamespaceLost', "phase" = 'Missing'`;
      // The reconciler sees the instance gone and mirrors it, on another connection, while this is open.
      mirror = writeRuntime(db, agentId, { phase: 'Missing', ready: false, reason: 'InstanceMissing', message: 'no instance', runningRevisionId: null, runningGeneration: null, instanceGeneration: 0, observedGeneration: 0 }, at);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await mirror;
    const row = await db.agentRuntime.findUniqueOrThrow({ where: { agentId } });
    expect(row.reason).toBe('NamespaceLost');
  });
});
