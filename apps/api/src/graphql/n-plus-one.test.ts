import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../services/deps.ts';
import { createAgent } from '../services/agents.ts';
import { createConfiguration } from '../services/configurations.ts';
import { grantBuiltInRole } from '../services/principals.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';

// Reading agents with their configuration, bindings, secrets, access bindings, principal and missing
// grants, or secrets with
// their consumers, costs the same number of SQL statements for 10 as for 100 (Prisma query events
// counted). The page size is a variable: a literal `first: 500` is over the cost limit (P3).

let stack: TestStack;
let statements = 0;

let fixtures: { agents: { small: string; large: string }; secrets: { small: string; large: string } };

beforeAll(async () => {
  stack = await startTestStack({ onQuery: () => statements++ });
  fixtures = {
    agents: { small: await namespaceWithAgents('n1-small', 10), large: await namespaceWithAgents('n1-large', 100) },
    secrets: { small: await namespaceWithConsumedSecrets('n1-consumers-small', 10), large: await namespaceWithConsumedSecrets('n1-consumers-large', 100) },
  };
  // The worker polls the queue; its statements would be counted with the request's.
  await stack.runtime.worker.stop();
}, 300_000);
afterAll(() => stack?.close());

const AGENTS = `query($id: ID!, $first: Int) { namespace(id: $id) { agents(first: $first) { edges { node {
  id name servicePrincipal { id name disabled createdAt }
  missingGrants { subjectId resourceId roleId }
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
  const result = payload(await stack.gql(AGENTS, { id: nsId, first: 100 }), 'namespace');
  const count = statements;
  const nodes = result.agents.edges.map((e: { node: unknown }) => e.node);
  expect(nodes).toHaveLength(expectedAgents);
  expect(nodes[0]).toMatchObject({ configuration: { secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', secret: { name: 'channel' } }] }, harnessAuth: { secret: { name: 'model' } } });
  expect(nodes[1].accessBindings).toHaveLength(1);
  // Granted operate on the model secret only: the channel secret of the shared configuration is missing.
  expect(nodes[0].missingGrants).toHaveLength(1);
  expect(nodes[1].missingGrants).toEqual([]);
  expect(nodes[0].servicePrincipal.disabled).toBe(false);
  return count;
}

describe('no N+1', () => {
  it('reading 100 agents with configuration, bindings, secrets and access bindings issues as many SQL statements as reading 10', async () => {
    await statementsFor(fixtures.agents.small, 10); // warm-up: the first request opens pool connections
    const atTen = await statementsFor(fixtures.agents.small, 10);
    const atHundred = await statementsFor(fixtures.agents.large, 100);
    expect(atTen).toBeGreaterThan(3);
    expect(atHundred).toBe(atTen);
  });
});

const SECRETS = `query($id: ID!, $first: Int) { namespace(id: $id) { secrets(first: $first) { edges { node {
  id name consumers { total hiddenCount items { kind id name } }
} } } } }`;

async function namespaceWithConsumedSecrets(name: string, count: number): Promise<string> {
  const nsId = await createReadyNamespace(stack, name);
  const actor: Actor = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
  const plain = await createConfiguration(stack.runtime.deps, actor, { namespaceId: nsId, name: 'plain', values: {}, secretBindings: [] });
  for (let i = 0; i < count; i++) {
    const secret = await createSecretOk(stack, nsId, `s-${i}`, `v-${i}`);
    await createConfiguration(stack.runtime.deps, actor, {
      namespaceId: nsId,
      name: `binds-${i}`,
      values: {},
      secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', source: { id: secret.id } }],
    });
    await createAgent(stack.runtime.deps, actor, { namespaceId: nsId, name: `uses-${i}`, configurationId: plain.id, harnessAuth: { provider: 'openai', source: { id: secret.id } } });
  }
  return nsId;
}

async function secretStatementsFor(nsId: string, expected: number): Promise<number> {
  statements = 0;
  const result = payload(await stack.gql(SECRETS, { id: nsId, first: 100 }), 'namespace');
  const count = statements;
  type Node = { name: string; consumers: { total: number; items: Array<{ kind: string; name: string }> } };
  const nodes: Node[] = result.secrets.edges.map((e: { node: Node }) => e.node);
  expect(nodes).toHaveLength(expected);
  for (const node of nodes) {
    const i = node.name.slice(2);
    expect(node.consumers.total).toBe(2);
    expect(node.consumers.items.map((c) => `${c.kind}:${c.name}`).sort()).toEqual([`agent:uses-${i}`, `configuration:binds-${i}`]);
  }
  return count;
}

describe('P3 no N+1 on Secret.consumers', () => {
  it('P3 a page of 100 secrets with their consumers issues as many SQL statements as a page of 10', async () => {
    await secretStatementsFor(fixtures.secrets.small, 10);
    const atTen = await secretStatementsFor(fixtures.secrets.small, 10);
    const atHundred = await secretStatementsFor(fixtures.secrets.large, 100);
    expect(atTen).toBeGreaterThan(3);
    expect(atHundred).toBe(atTen);
  });
});
