import { randomUUID } from 'node:crypto';
import { agentInstanceName, gatewayDeploymentName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, NAMESPACE, binding, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// V6: Secret.blastRadius and Configuration.blastRadius, read by every kind of reader. Fixture:
// one secret bound by two configurations (alpha, beta), agent-one on alpha and agent-two on beta
// (both deployed: active revisions and gateways), agent-three using the secret as harnessAuth
// (never deployed). The worker runs only when the test drains it.

let stack: TestStack;
const canary = `blast-radius-canary-${randomUUID()}`;

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number state } } ... on Error { code message } } }`;
const RADIUS = `
  configurations { id name generation envNames }
  agents { id name status via }
  revisions { id agentId number state envNames versions }
  gateways { agentId agentName k8sNamespace instanceName deploymentName revisionId revisionNumber }
  total { configurations agents revisions gateways }
  hidden { configurations agents revisions gateways }`;
const SECRET_RADIUS = `query($id: ID!) { secret(id: $id) { id blastRadius { ${RADIUS} } } }`;
const CONFIGURATION_RADIUS = `query($id: ID!) { configuration(id: $id) { id blastRadius { ${RADIUS} } } }`;

let namespaceId: string;
let k8sNamespace: string;
let secret: { id: string; backendLocator: { name: string; uid: string } };
const configurations = {} as Record<'alpha' | 'beta', string>;
const agents = {} as Record<'one' | 'two' | 'three', { id: string; servicePrincipalId: string }>;
const revisions = {} as Record<'one' | 'two', string>;

async function deploy(agentId: string): Promise<string> {
  const d = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
  await stack.runtime.worker.drain();
  return d.revision.id;
}

async function reader(role: string, scope: Array<Parameters<typeof grantBuiltInRole>[3]>): Promise<string> {
  const p = await createHumanPrincipal(stack.runtime.db, `${role}-${randomUUID().slice(0, 8)}`, stack.runtime.installation.bootstrapPrincipalId);
  for (const s of scope) await grantBuiltInRole(stack.runtime.db, p.principalId, role, s, stack.runtime.installation.bootstrapPrincipalId);
  return p.apiKey;
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 20 } });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `blast-${randomUUID().slice(0, 8)}` } }), 'createNamespace').namespace.id;
  await stack.runtime.worker.drain();
  expect(payload(await stack.gql(NAMESPACE, { id: namespaceId }), 'namespace').status).toBe('READY');
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secret = await createSecretOk(stack, namespaceId, 'shared-token', canary);
  for (const [key, envNames] of [['alpha', ['ALPHA_TOKEN']], ['beta', ['BETA_TOKEN', 'BETA_BACKUP']]] as const) {
    const c = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: key, values: { agents: { defaults: { model: { primary: `m-${key}` } } } }, secretBindings: envNames.map((n) => binding(n, secret.id)) } }), 'createConfiguration');
    expect(c.__typename, JSON.stringify(c)).toBe('CreateConfigurationSuccess');
    configurations[key] = c.configuration.id;
  }
  const inputs = {
    one: { name: 'agent-one', configurationId: configurations.alpha },
    two: { name: 'agent-two', configurationId: configurations.beta },
    three: { name: 'agent-three', harnessAuth: { provider: 'openai', source: { id: secret.id } } },
  };
  for (const [key, input] of Object.entries(inputs) as Array<[keyof typeof agents, Record<string, unknown>]>) {
    const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, ...input } }), 'createAgent');
    expect(a.__typename, JSON.stringify(a)).toBe('CreateAgentSuccess');
    agents[key] = { id: a.agent.id, servicePrincipalId: a.agent.servicePrincipalId };
    const g = payload(await stack.gql(GRANT, { input: { subjectId: a.agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } } }), 'grantAccess');
    expect(g.__typename).toBe('GrantAccessSuccess');
  }
  revisions.one = await deploy(agents.one.id);
  revisions.two = await deploy(agents.two.id);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

const gateway = (key: 'one' | 'two', name: string, revisionReadable = true) => ({
  agentId: agents[key].id,
  agentName: name,
  k8sNamespace,
  instanceName: agentInstanceName(agents[key].id),
  deploymentName: gatewayDeploymentName(agents[key].id),
  revisionId: revisionReadable ? revisions[key] : null,
  revisionNumber: revisionReadable ? 1 : null,
});

const everything = () => ({
  configurations: [
    { id: configurations.alpha, name: 'alpha', generation: 1, envNames: ['ALPHA_TOKEN'] },
    { id: configurations.beta, name: 'beta', generation: 1, envNames: ['BETA_BACKUP', 'BETA_TOKEN'] },
  ],
  agents: [
    { id: agents.one.id, name: 'agent-one', status: 'running', via: ['CONFIGURATION', 'REVISION'] },
    { id: agents.three.id, name: 'agent-three', status: 'created', via: ['HARNESS_AUTH'] },
    { id: agents.two.id, name: 'agent-two', status: 'running', via: ['CONFIGURATION', 'REVISION'] },
  ],
  revisions: expect.arrayContaining([
    { id: revisions.one, agentId: agents.one.id, number: 1, state: 'ACTIVE', envNames: ['ALPHA_TOKEN'], versions: [1] },
    { id: revisions.two, agentId: agents.two.id, number: 1, state: 'ACTIVE', envNames: ['BETA_BACKUP', 'BETA_TOKEN'], versions: [1] },
  ]),
  gateways: expect.arrayContaining([gateway('one', 'agent-one'), gateway('two', 'agent-two')]),
  total: { configurations: 2, agents: 3, revisions: 2, gateways: 2 },
  hidden: { configurations: 0, agents: 0, revisions: 0, gateways: 0 },
});

describe('V6 blast radius', { timeout: 120_000 }, () => {
  it('V6 an installation administrator sees every configuration, agent, running revision and gateway a rotate or delete of the secret touches', async () => {
    const radius = payload(await stack.gql(SECRET_RADIUS, { id: secret.id }), 'secret').blastRadius;
    expect(radius).toEqual(everything());
    expect(radius.revisions).toHaveLength(2);
    expect(radius.gateways).toHaveLength(2);
  });

  it('V6 each gateway names the Deployment and the OpenClawInstance that exist in the cluster', async () => {
    const radius = payload(await stack.gql(SECRET_RADIUS, { id: secret.id }), 'secret').blastRadius;
    for (const g of radius.gateways) {
      const deployment = await stack.apps.readNamespacedDeployment({ name: g.deploymentName, namespace: g.k8sNamespace });
      expect(deployment.metadata?.name).toBe(g.deploymentName);
      const instance = await stack.runtime.kubeConfig
        .makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi)
        .getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', namespace: g.k8sNamespace, plural: 'openclawinstances', name: g.instanceName });
      expect((instance as { metadata: { name: string } }).metadata.name).toBe(g.instanceName);
    }
  });

  it('V6 a namespace administrator and a namespace viewer see the whole radius of their namespace', async () => {
    const admin = await reader('namespace-admin', [{ kind: 'namespace', namespaceId }]);
    const viewer = await reader('namespace-viewer', [{ kind: 'namespace', namespaceId }]);
    for (const key of [admin, viewer]) expect(payload(await stack.gql(SECRET_RADIUS, { id: secret.id }, { key }), 'secret').blastRadius).toEqual(everything());
  });

  it('V6 P6 a viewer with partial grants sees what it may read; the rest is counted, never named', async () => {
    const key = await reader('namespace-viewer', [
      { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId },
      { kind: 'resource', resourceKind: 'configuration', resourceId: configurations.alpha, namespaceId },
      { kind: 'resource', resourceKind: 'agent', resourceId: agents.one.id, namespaceId },
    ]);
    const result = await stack.gql(SECRET_RADIUS, { id: secret.id }, { key });
    const radius = payload(result, 'secret').blastRadius;
    expect(radius).toEqual({
      configurations: [{ id: configurations.alpha, name: 'alpha', generation: 1, envNames: ['ALPHA_TOKEN'] }],
      agents: [{ id: agents.one.id, name: 'agent-one', status: 'running', via: ['CONFIGURATION', 'REVISION'] }],
      revisions: [],
      // The gateway belongs to a readable agent; the revision it runs is not readable, so not named.
      gateways: [gateway('one', 'agent-one', false)],
      total: { configurations: 2, agents: 3, revisions: 2, gateways: 2 },
      hidden: { configurations: 1, agents: 2, revisions: 2, gateways: 1 },
    });
    const text = JSON.stringify(result.body);
    for (const unseen of [configurations.beta, 'BETA_TOKEN', agents.two.id, 'agent-two', agents.three.id, 'agent-three', revisions.one, revisions.two]) expect(text).not.toContain(unseen);
  });

  it("V6 P6 an agent's own token, which may operate the secret but not read it, gets no radius (NOT_FOUND as for any unreadable secret)", async () => {
    const key = payload(
      await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId: agents.one.servicePrincipalId } }),
      'createApiKey',
    ).apiKey;
    const result = await stack.gql(SECRET_RADIUS, { id: secret.id }, { key });
    expect(payload(result, 'secret')).toBeNull();
    expect(payload(await stack.gql(CONFIGURATION_RADIUS, { id: configurations.alpha }, { key }), 'configuration')).toBeNull();
    expect(JSON.stringify(result.body)).not.toContain('agent-two');
  });

  it('V6 a configuration radius: itself, the agents selecting it, their running revisions and gateways', async () => {
    expect(payload(await stack.gql(CONFIGURATION_RADIUS, { id: configurations.beta }), 'configuration').blastRadius).toEqual({
      configurations: [{ id: configurations.beta, name: 'beta', generation: 1, envNames: ['BETA_BACKUP', 'BETA_TOKEN'] }],
      agents: [{ id: agents.two.id, name: 'agent-two', status: 'running', via: ['CONFIGURATION', 'REVISION'] }],
      revisions: [{ id: revisions.two, agentId: agents.two.id, number: 1, state: 'ACTIVE', envNames: ['BETA_BACKUP', 'BETA_TOKEN'], versions: [] }],
      gateways: [gateway('two', 'agent-two')],
      total: { configurations: 1, agents: 1, revisions: 1, gateways: 1 },
      hidden: { configurations: 0, agents: 0, revisions: 0, gateways: 0 },
    });
    const key = await reader('namespace-viewer', [{ kind: 'resource', resourceKind: 'configuration', resourceId: configurations.beta, namespaceId }]);
    const partial = payload(await stack.gql(CONFIGURATION_RADIUS, { id: configurations.beta }, { key }), 'configuration').blastRadius;
    expect(partial).toMatchObject({ agents: [], revisions: [], gateways: [], total: { agents: 1, revisions: 1, gateways: 1 }, hidden: { configurations: 0, agents: 1, revisions: 1, gateways: 1 } });
  });

  it('V6 S3 S4 P1 canary: neither the value nor the backend locator appears in a radius or the database', async () => {
    const texts: string[] = [];
    for (const q of [
      stack.gql(SECRET_RADIUS, { id: secret.id }),
      stack.gql(CONFIGURATION_RADIUS, { id: configurations.alpha }),
      stack.gql(CONFIGURATION_RADIUS, { id: configurations.beta }),
    ]) {
      const result = await q;
      expect(result.body.errors).toBeUndefined();
      texts.push(JSON.stringify(result.body));
    }
    expect(findCanary(texts, canary)).toEqual([]);
    for (const t of texts) {
      expect(t).not.toContain(secret.backendLocator.name);
      expect(t).not.toContain(secret.backendLocator.uid);
    }
    expect(findCanary(await dumpDatabase(stack.databaseUrl), canary)).toEqual([]);
    expect(findCanary(stack.logs, canary)).toEqual([]);
  });
});
