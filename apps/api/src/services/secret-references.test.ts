import { randomUUID } from 'node:crypto';
import { gatewayDeploymentName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCanary } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, NAMESPACE, UPDATE_AGENT, UPDATE_SECRET, binding, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// Secret.references, the graph an auditor follows from a secret to the gateways that
// hold it. Fixture: one secret bound by two configurations (alpha under one env name, beta under
// two), three agents (one per configuration, one using it as harnessAuth), deployed so that one
// running revision holds the version before a rotation and the others the current one. The
// worker runs only when the test drains it.

let stack: TestStack;
const canary = `ref-graph-canary-${randomUUID()}`;
const rotated = `ref-graph-rotated-${randomUUID()}`;

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number state } } ... on Error { code message } } }`;
const GRAPH = `query($id: ID!) { secret(id: $id) { id version references {
  currentVersion
  configurations { id name namespaceId generation envNames }
  agents { id name namespaceId status configurationId viaConfiguration harnessAuthProvider }
  revisions { id agentId number state stale deliveries { purpose envName version stale } gateway { k8sNamespace name } }
  hidden { configurations agents revisions }
} } }`;

let namespaceId: string;
let k8sNamespace: string;
let secret: { id: string; backendLocator: { name: string; uid: string } };
const configurations = {} as Record<'alpha' | 'beta', string>;
const agents = {} as Record<'one' | 'two' | 'three', string>;
const revisions = {} as Record<'one' | 'twoFirst' | 'twoSecond' | 'three', string>;

const drain = () => stack.runtime.worker.drain();
async function deploy(agentId: string): Promise<string> {
  const d = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
  await drain();
  return d.revision.id;
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 20 } });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `refs-${randomUUID().slice(0, 8)}` } }), 'createNamespace').namespace.id;
  await drain();
  expect(payload(await stack.gql(NAMESPACE, { id: namespaceId }), 'namespace').status).toBe('READY');
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secret = await createSecretOk(stack, namespaceId, 'shared-token', canary);

  for (const [key, envNames] of [['alpha', ['ALPHA_TOKEN']], ['beta', ['BETA_TOKEN', 'BETA_BACKUP']]] as const) {
    const c = payload(
      await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: key, values: {}, secretBindings: envNames.map((n) => binding(n, secret.id)) } }),
      'createConfiguration',
    );
    expect(c.__typename, JSON.stringify(c)).toBe('CreateConfigurationSuccess');
    configurations[key] = c.configuration.id;
  }
  const agentInputs = {
    one: { name: 'agent-one', configurationId: configurations.alpha },
    two: { name: 'agent-two', configurationId: configurations.beta },
    three: { name: 'agent-three', harnessAuth: { provider: 'openai', source: { id: secret.id } } },
  };
  for (const [key, input] of Object.entries(agentInputs) as Array<[keyof typeof agents, Record<string, unknown>]>) {
    const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, ...input } }), 'createAgent');
    expect(a.__typename, JSON.stringify(a)).toBe('CreateAgentSuccess');
    agents[key] = a.agent.id;
    const g = payload(
      await stack.gql(GRANT, { input: { subjectId: a.agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } } }),
      'grantAccess',
    );
    expect(g.__typename).toBe('GrantAccessSuccess');
  }
  revisions.one = await deploy(agents.one);
  revisions.twoFirst = await deploy(agents.two);
  const r = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: rotated } }), 'updateSecret');
  expect(r.__typename, JSON.stringify(r)).toBe('UpdateSecretSuccess');
  // After the rotation: agent-two is redeployed (its first revision is superseded) and
  // agent-three deployed for the first time; only agent-one's revision holds version 1.
  revisions.twoSecond = await deploy(agents.two);
  revisions.three = await deploy(agents.three);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

const graphOf = async (key?: string) => payload(await stack.gql(GRAPH, { id: secret.id }, { key }), 'secret').references;
const gateway = (agentId: string) => ({ k8sNamespace, name: gatewayDeploymentName(agentId) });

describe('Secret.references: secret → configurations → agents → revisions → gateways', { timeout: 120_000 }, () => {
  it('W7 S6 the graph of two configurations, three agents and their running revisions, the one holding the old version marked stale', async () => {
    const graph = await graphOf();
    const byAgent = (a: { agentId: string }, b: { agentId: string }) => Object.values(agents).indexOf(a.agentId) - Object.values(agents).indexOf(b.agentId);
    expect({ ...graph, revisions: [...graph.revisions].sort(byAgent) }).toEqual({
      currentVersion: 2,
      configurations: [
        { id: configurations.alpha, name: 'alpha', namespaceId, generation: 1, envNames: ['ALPHA_TOKEN'] },
        { id: configurations.beta, name: 'beta', namespaceId, generation: 1, envNames: ['BETA_BACKUP', 'BETA_TOKEN'] },
      ],
      agents: [
        { id: agents.one, name: 'agent-one', namespaceId, status: 'running', configurationId: configurations.alpha, viaConfiguration: true, harnessAuthProvider: null },
        { id: agents.three, name: 'agent-three', namespaceId, status: 'running', configurationId: null, viaConfiguration: false, harnessAuthProvider: 'openai' },
        { id: agents.two, name: 'agent-two', namespaceId, status: 'running', configurationId: configurations.beta, viaConfiguration: true, harnessAuthProvider: null },
      ],
      revisions: [
        {
          id: revisions.one,
          agentId: agents.one,
          number: 1,
          state: 'ACTIVE',
          stale: true,
          deliveries: [{ purpose: 'binding', envName: 'ALPHA_TOKEN', version: 1, stale: true }],
          gateway: gateway(agents.one),
        },
        {
          id: revisions.twoSecond,
          agentId: agents.two,
          number: 2,
          state: 'ACTIVE',
          stale: false,
          deliveries: [
            { purpose: 'binding', envName: 'BETA_BACKUP', version: 2, stale: false },
            { purpose: 'binding', envName: 'BETA_TOKEN', version: 2, stale: false },
          ],
          gateway: gateway(agents.two),
        },
        {
          id: revisions.three,
          agentId: agents.three,
          number: 1,
          state: 'ACTIVE',
          stale: false,
          deliveries: [{ purpose: 'harnessAuth', envName: 'OPENAI_API_KEY', version: 2, stale: false }],
          gateway: gateway(agents.three),
        },
      ],
      hidden: { configurations: 0, agents: 0, revisions: 0 },
    });
    // The superseded revision runs nothing and is not in the graph.
    expect(JSON.stringify(graph)).not.toContain(revisions.twoFirst);
  });

  it('W4 each gateway node names the Deployment the worker applied, which references the secret', async () => {
    const graph = await graphOf();
    for (const revision of graph.revisions) {
      const deployment = await stack.apps.readNamespacedDeployment({ name: revision.gateway.name, namespace: revision.gateway.k8sNamespace });
      expect(deployment.metadata?.name).toBe(revision.gateway.name);
    }
  });

  it('P6 a caller with partial grants sees only the nodes it may read; the others are counted, never named', async () => {
    const auditor = await createHumanPrincipal(stack.runtime.db, `auditor-${randomUUID().slice(0, 8)}`, stack.runtime.installation.bootstrapPrincipalId);
    const grant = (resourceKind: string, resourceId: string) =>
      grantBuiltInRole(stack.runtime.db, auditor.principalId, 'namespace-viewer', { kind: 'resource', resourceKind, resourceId, namespaceId }, stack.runtime.installation.bootstrapPrincipalId);
    await grant('secret', secret.id);
    await grant('configuration', configurations.alpha);
    await grant('agent', agents.one);
    await grant('agentRevision', revisions.one);
    await grant('agent', agents.three);

    const result = await stack.gql(GRAPH, { id: secret.id }, { key: auditor.apiKey });
    const graph = payload(result, 'secret').references;
    expect(graph.configurations.map((c: { id: string }) => c.id)).toEqual([configurations.alpha]);
    expect(graph.agents.map((a: { id: string; configurationId: string | null }) => [a.id, a.configurationId])).toEqual([
      [agents.one, configurations.alpha],
      [agents.three, null],
    ]);
    expect(graph.revisions.map((r: { id: string; stale: boolean }) => [r.id, r.stale])).toEqual([[revisions.one, true]]);
    expect(graph.hidden).toEqual({ configurations: 1, agents: 1, revisions: 2 });
    const text = JSON.stringify(result.body);
    for (const unseen of [configurations.beta, 'beta', 'BETA_TOKEN', agents.two, 'agent-two', revisions.twoSecond, revisions.three]) expect(text).not.toContain(unseen);
  });

  it('P6 with a grant on the secret alone the graph is all counts', async () => {
    const reader = await createHumanPrincipal(stack.runtime.db, `reader-${randomUUID().slice(0, 8)}`, stack.runtime.installation.bootstrapPrincipalId);
    await grantBuiltInRole(stack.runtime.db, reader.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId }, stack.runtime.installation.bootstrapPrincipalId);
    expect(await graphOf(reader.apiKey)).toEqual({
      currentVersion: 2,
      configurations: [],
      agents: [],
      revisions: [],
      hidden: { configurations: 2, agents: 3, revisions: 3 },
    });
  });

  it('W7 an agent whose configuration no longer binds the secret stays in the graph while its running revision delivers it', async () => {
    const c = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'gamma', values: {} } }), 'createConfiguration');
    expect(c.__typename, JSON.stringify(c)).toBe('CreateConfigurationSuccess');
    const u = payload(await stack.gql(UPDATE_AGENT, { input: { id: agents.one, configurationId: c.configuration.id } }), 'updateAgent');
    expect(u.__typename, JSON.stringify(u)).toBe('UpdateAgentSuccess');
    const graph = await graphOf();
    expect(graph.agents.find((a: { id: string }) => a.id === agents.one)).toEqual({
      id: agents.one,
      name: 'agent-one',
      namespaceId,
      status: 'running',
      configurationId: null,
      viaConfiguration: false,
      harnessAuthProvider: null,
    });
    expect(graph.revisions.find((r: { id: string }) => r.id === revisions.one)).toMatchObject({ agentId: agents.one, stale: true, gateway: gateway(agents.one) });
    expect(graph.configurations.map((x: { name: string }) => x.name)).toEqual(['alpha', 'beta']);
  });

  it('S3 S4 P1 neither value nor backend locator appears in the graph', async () => {
    const result = await stack.gql(GRAPH, { id: secret.id });
    expect(result.body.errors).toBeUndefined();
    const text = JSON.stringify(result.body);
    expect(findCanary([text], canary)).toEqual([]);
    expect(findCanary([text], rotated)).toEqual([]);
    expect(text).not.toContain(secret.backendLocator.name);
    expect(text).not.toContain(secret.backendLocator.uid);
  });
});

// Namespace.referenceGraph, the whole namespace's picture, read on the same fixture as the tests
// above leave it (agent-one moved to the configuration gamma, its running revision still holding
// version 1 of the secret). Checked against Secret.references: what the namespace graph reaches
// from the secret is what the secret's own graph lists.
const NAMESPACE_GRAPH = `query($id: ID!, $first: Int, $after: String) { namespace(id: $id) { referenceGraph(first: $first, after: $after) {
  nodes { id kind name health detail } edges { from to kind label stale } hidden { secrets configurations agents revisions } totalCount hasNextPage endCursor
} } }`;
type GraphNode = { id: string; kind: string; name: string; health: string; detail: string };
type GraphEdge = { from: string; to: string; kind: string; label: string; stale: boolean };
type NamespaceGraph = { nodes: GraphNode[]; edges: GraphEdge[]; hidden: Record<string, number>; pages: number };

async function namespaceGraph(key?: string, first?: number): Promise<NamespaceGraph | null> {
  const graph: NamespaceGraph = { nodes: [], edges: [], hidden: {}, pages: 0 };
  let after: string | null = null;
  for (;;) {
    const result = await stack.gql(NAMESPACE_GRAPH, { id: namespaceId, first, after }, { key });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const page = result.body.data!.namespace?.referenceGraph;
    if (!page) return null;
    graph.nodes.push(...page.nodes);
    graph.edges.push(...page.edges);
    graph.hidden = page.hidden;
    graph.pages++;
    expect(page.totalCount).toBeGreaterThanOrEqual(graph.nodes.length);
    if (!page.hasNextPage) return graph;
    after = page.endCursor;
  }
}

/** Node ids reachable from `from` along the graph's edges. */
function reachable(graph: NamespaceGraph, from: string): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const e of graph.edges) {
      if (e.from !== at || seen.has(e.to)) continue;
      seen.add(e.to);
      queue.push(e.to);
    }
  }
  return seen;
}

const edgeKey = (e: GraphEdge) => `${e.kind} ${e.from}>${e.to} ${e.label}${e.stale ? ' stale' : ''}`;

describe('Namespace.referenceGraph: the namespace as one picture', { timeout: 120_000 }, () => {
  it('W7 holds every secret, configuration, agent, live revision and gateway, with health, and the stale delivery as an edge of its own', async () => {
    const graph = (await namespaceGraph())!;
    const node = (id: string) => graph.nodes.find((n) => n.id === id);
    expect(node(secret.id)).toEqual({ id: secret.id, kind: 'SECRET', name: 'shared-token', health: 'STALE', detail: 'version 2' });
    expect(graph.nodes.filter((n) => n.kind === 'CONFIGURATION').map((n) => n.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(graph.nodes.filter((n) => n.kind === 'AGENT').map((n) => [n.name, n.health])).toEqual([
      ['agent-one', 'OK'],
      ['agent-three', 'OK'],
      ['agent-two', 'OK'],
    ]);
    expect(graph.nodes.filter((n) => n.kind === 'REVISION').map((n) => [n.id, n.health])).toEqual([
      [revisions.one, 'STALE'],
      [revisions.three, 'OK'],
      [revisions.twoSecond, 'OK'],
    ]);
    expect(graph.nodes.filter((n) => n.kind === 'GATEWAY').map((n) => n.name)).toEqual([agents.one, agents.three, agents.two].map(gatewayDeploymentName).sort());
    const gamma = graph.nodes.find((n) => n.name === 'gamma')!.id;
    expect(graph.edges.map(edgeKey).sort()).toEqual(
      [
        `BINDS ${secret.id}>${configurations.alpha} ALPHA_TOKEN`,
        `BINDS ${secret.id}>${configurations.beta} BETA_BACKUP, BETA_TOKEN`,
        `SELECTS ${gamma}>${agents.one} `,
        `SELECTS ${configurations.beta}>${agents.two} `,
        `HARNESS_AUTH ${secret.id}>${agents.three} `,
        `REVISION ${agents.one}>${revisions.one} `,
        `REVISION ${agents.two}>${revisions.twoSecond} `,
        `REVISION ${agents.three}>${revisions.three} `,
        `RUNS ${revisions.one}>gateway:${gatewayDeploymentName(agents.one)} `,
        `RUNS ${revisions.twoSecond}>gateway:${gatewayDeploymentName(agents.two)} `,
        `RUNS ${revisions.three}>gateway:${gatewayDeploymentName(agents.three)} `,
        `DELIVERS ${secret.id}>${revisions.one} ALPHA_TOKEN stale`,
      ].sort(),
    );
    expect(graph.hidden).toEqual({ secrets: 0, configurations: 0, agents: 0, revisions: 0 });
    expect(JSON.stringify(graph)).not.toContain(revisions.twoFirst);
  });

  it('W7 what it reaches from a secret is what Secret.references lists', async () => {
    const [graph, references] = await Promise.all([namespaceGraph(), graphOf()]);
    const from = reachable(graph!, secret.id);
    // The secret's own graph also lists the agents whose reached revisions still deliver it.
    for (const e of graph!.edges) if (e.kind === 'REVISION' && from.has(e.to)) from.add(e.from);
    const ofKind = (kind: string) => graph!.nodes.filter((n) => n.kind === kind && from.has(n.id)).map((n) => n.id).sort();
    expect(ofKind('CONFIGURATION')).toEqual(references.configurations.map((c: { id: string }) => c.id).sort());
    expect(ofKind('AGENT')).toEqual(references.agents.map((a: { id: string }) => a.id).sort());
    expect(ofKind('REVISION')).toEqual(references.revisions.map((r: { id: string }) => r.id).sort());
    expect(ofKind('GATEWAY')).toEqual(references.revisions.map((r: { gateway: { name: string } }) => `gateway:${r.gateway.name}`).sort());
  });

  it('pages of any size hold the same graph; a bad cursor or size is refused naming the argument', async () => {
    const whole = (await namespaceGraph())!;
    expect(whole.pages).toBe(1);
    for (const size of [1, 2, 5]) {
      const paged = (await namespaceGraph(undefined, size))!;
      expect(paged.pages).toBe(Math.ceil(whole.nodes.length / size));
      expect(paged.nodes).toEqual(whole.nodes);
      expect(paged.edges.map(edgeKey).sort()).toEqual(whole.edges.map(edgeKey).sort());
    }
    for (const [variables, argument] of [
      [{ first: 0 }, 'first'],
      [{ first: 501 }, 'first'],
      [{ after: 'not-a-cursor!' }, 'after'],
      [{ after: Buffer.from('["planet","x","y"]').toString('base64url') }, 'after'],
      [{ after: Buffer.from('{').toString('base64url') }, 'after'],
    ] as const) {
      const result = await stack.gql(`query($id: ID!, $first: Int, $after: String) { namespace(id: $id) { referenceGraph(first: $first, after: $after) { totalCount } } }`, { id: namespaceId, ...variables });
      expect(result.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
  });

  it('P6 every kind of reader: a namespace admin sees it all, a reader of single resources only those and counts, an agent token no namespace', async () => {
    const by = stack.runtime.installation.bootstrapPrincipalId;
    const admin = (await namespaceGraph())!;
    const nsAdmin = await createHumanPrincipal(stack.runtime.db, `ns-admin-${randomUUID().slice(0, 6)}`, by);
    await grantBuiltInRole(stack.runtime.db, nsAdmin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId }, by);
    const asNsAdmin = (await namespaceGraph(nsAdmin.apiKey))!;
    expect(asNsAdmin.nodes).toEqual(admin.nodes);
    expect(asNsAdmin.edges.map(edgeKey).sort()).toEqual(admin.edges.map(edgeKey).sort());

    const reader = await createHumanPrincipal(stack.runtime.db, `reader-${randomUUID().slice(0, 6)}`, by);
    const grant = (resourceKind: string, resourceId: string) => grantBuiltInRole(stack.runtime.db, reader.principalId, 'namespace-viewer', { kind: 'resource', resourceKind, resourceId, namespaceId }, by);
    await grant('secret', secret.id);
    await grant('configuration', configurations.beta);
    await grant('agent', agents.two);
    // Without a grant on the namespace itself, the namespace is not there for them (P6), graph and all.
    const without = await stack.gql(NAMESPACE_GRAPH, { id: namespaceId }, { key: reader.apiKey });
    expect(without.body).toEqual({ data: { namespace: null } });
    await grant('namespace', namespaceId);
    const result = await stack.gql(NAMESPACE_GRAPH, { id: namespaceId }, { key: reader.apiKey });
    const partial = result.body.data!.namespace.referenceGraph;
    expect(partial.nodes.map((n: GraphNode) => n.id).sort()).toEqual([secret.id, configurations.beta, agents.two].sort());
    expect(partial.edges.map(edgeKey).sort()).toEqual([`BINDS ${secret.id}>${configurations.beta} BETA_BACKUP, BETA_TOKEN`, `SELECTS ${configurations.beta}>${agents.two} `].sort());
    // alpha binds the secret; agent-three uses it as harnessAuth; agent-one's and agent-three's
    // revisions deliver it, and agent-two's revision is agent-two's (agent-one itself is next only
    // to hidden nodes, so not counted).
    expect(partial.hidden).toEqual({ secrets: 0, configurations: 1, agents: 1, revisions: 3 });
    expect(partial.totalCount).toBe(3);
    const text = JSON.stringify(result.body);
    for (const unseen of [configurations.alpha, 'alpha', 'gamma', agents.one, agents.three, 'agent-one', revisions.one, revisions.twoSecond, revisions.three, 'gateway:']) expect(text).not.toContain(unseen);

    const token = payload(
      await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } } }`, {
        i: { principalId: (await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: agents.two } })).servicePrincipalId },
      }),
      'createApiKey',
    );
    const asAgent = await stack.gql(NAMESPACE_GRAPH, { id: namespaceId }, { key: token.apiKey });
    // The agent's principal operates its secret and reads no namespace: the namespace is not there for it.
    expect(asAgent.body).toEqual({ data: { namespace: null } });
  });

  it('S3 S4 P1 neither value nor backend locator appears in the namespace graph', async () => {
    const text = JSON.stringify(await namespaceGraph(undefined, 2));
    expect(findCanary([text], canary)).toEqual([]);
    expect(findCanary([text], rotated)).toEqual([]);
    expect(text).not.toContain(secret.backendLocator.name);
    expect(text).not.toContain(secret.backendLocator.uid);
  });
});
