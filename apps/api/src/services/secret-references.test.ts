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
