import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../services/deps.ts';
import { createAgent } from '../services/agents.ts';
import { createConfiguration } from '../services/configurations.ts';
import { grantBuiltInRole } from '../services/principals.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';

// Reading agents with their configuration, bindings, secrets and access bindings costs the same
// number of SQL statements for 10 agents as for 100 (Prisma query events counted).

let stack: TestStack;
let statements = 0;

beforeAll(async () => {
  stack = await startTestStack({ onQuery: () => statements++ });
});
afterAll(() => stack?.close());

const AGENTS = `query($id: ID!) { namespace(id: $id) { agents(first: 500) { edges { node {
  id name servicePrincipal { id name }
  configuration { id name generation secretBindings { envName source { id } secret { id name version } } }
  harnessAuth { envName secret { id name } }
  accessBindings { id role { name } scope { kind resourceId } }
} } } } }`;

async function namespaceWithAgents(name: string, count: number): Promise<string> {
  const nsId = await createReadyNamespace(stack, name);
  const actor: Actor = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
  const channel = await createSecretOk(stack, nsId, 'channel', 'c');
  const model = await createSecretOk(stack, nsId, 'model', 'm');
  const cfg = await createConfiguration(stack.runtime.deps, actor, {
    namespaceId: nsId,
    name: 'shared',
    values: {},
    secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', source: { id: channel.id } }],
  });
  const own = await createConfiguration(stack.runtime.deps, actor, { namespaceId: nsId, name: 'own', values: {}, secretBindings: [] });
  for (let i = 0; i < count; i++) {
    const agent = await createAgent(stack.runtime.deps, actor, {
      namespaceId: nsId,
      name: `agent-${i}`,
      configurationId: i % 2 === 0 ? cfg.id : own.id,
      harnessAuth: { provider: 'openai', source: { id: model.id } },
    });
    await grantBuiltInRole(stack.runtime.db, agent.servicePrincipalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: model.id, namespaceId: nsId }, 'test');
  }
  return nsId;
}

async function statementsFor(nsId: string, expectedAgents: number): Promise<number> {
  statements = 0;
  const result = payload(await stack.gql(AGENTS, { id: nsId }), 'namespace');
  const count = statements;
  const nodes = result.agents.edges.map((e: { node: unknown }) => e.node);
  expect(nodes).toHaveLength(expectedAgents);
  expect(nodes[0]).toMatchObject({ configuration: { secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', secret: { name: 'channel' } }] }, harnessAuth: { secret: { name: 'model' } } });
  expect(nodes[1].accessBindings).toHaveLength(1);
  return count;
}

describe('no N+1', () => {
  it('reading 100 agents with configuration, bindings, secrets and access bindings issues as many SQL statements as reading 10', async () => {
    const small = await namespaceWithAgents('n1-small', 10);
    const large = await namespaceWithAgents('n1-large', 100);
    // The worker polls the queue; its statements would be counted with the request's.
    await stack.runtime.worker.stop();
    await statementsFor(small, 10); // warm-up: the first request opens pool connections
    const atTen = await statementsFor(small, 10);
    const atHundred = await statementsFor(large, 100);
    expect(atTen).toBeGreaterThan(3);
    expect(atHundred).toBe(atTen);
  }, 120_000);
});
