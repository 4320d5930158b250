import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLabels, gatewayConfigMapName, gatewayDeploymentName } from '@occ/domain/kubernetes-names';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// deleteAgent: only a stopped agent, only its own objects (found by its labels in this
// installation), its grants and keys gone with it. deleteConfiguration: refused, naming the
// agents, while any selects it.

let stack: TestStack;
let nsId: string;
let k8sNs: string;
let installationId: string;

const DELETE_AGENT = `mutation($input: DeleteAgentInput!) { deleteAgent(input: $input) {
  __typename ... on DeleteAgentSuccess { deletedAgentId removedObjects { kind name alreadyGone } } ... on Error { code message } } }`;
const DELETE_CONFIGURATION = `mutation($input: DeleteConfigurationInput!) { deleteConfiguration(input: $input) {
  __typename ... on DeleteConfigurationSuccess { deletedConfigurationId }
  ... on ConfigurationInUseError { agents { total hiddenCount items { id name } } } ... on Error { code message } } }`;

beforeAll(async () => {
  stack = await startTestStack();
  installationId = stack.runtime.installation.installationId;
  nsId = await createReadyNamespace(stack, 'agent-delete');
  k8sNs = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
}, 90_000);
afterAll(() => stack?.close());

async function newAgent(name: string, configurationId?: string): Promise<{ id: string; servicePrincipalId: string }> {
  const created = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: nsId, name, configurationId } }), 'createAgent');
  expect(created.__typename, JSON.stringify(created)).toBe('CreateAgentSuccess');
  return created.agent;
}

async function newConfiguration(name: string): Promise<string> {
  const secret = await createSecretOk(stack, nsId, `${name}-token`, 'v');
  const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name, values: {}, secretBindings: [binding('TELEGRAM_BOT_TOKEN', secret.id)] } }), 'createConfiguration');
  return created.configuration.id;
}

/** Objects as the deploy path labels them, for an agent of some installation. */
async function plantAgentObjects(agentId: string, installation: string, suffix = ''): Promise<string[]> {
  const labels = agentLabels(nsId, agentId, installation);
  const cm = `${gatewayConfigMapName(agentId, 1)}${suffix}`;
  const dep = `${gatewayDeploymentName(agentId)}${suffix}`;
  await stack.core.createNamespacedConfigMap({ namespace: k8sNs, body: { metadata: { name: cm, labels }, data: { 'openclaw.json': '{}' } } });
  await stack.core.createNamespacedSecret({ namespace: k8sNs, body: { metadata: { name: `model-auth-x${suffix}-${agentId.slice(4, 12)}`, labels }, data: { value: 'eA==' } } });
  await stack.apps.createNamespacedDeployment({
    namespace: k8sNs,
    body: {
      metadata: { name: dep, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: dep } },
        template: { metadata: { labels: { app: dep } }, spec: { containers: [{ name: 'gateway', image: 'openclaw/gateway:test' }] } },
      },
    },
  });
  return [cm, dep];
}

async function names(): Promise<string[]> {
  const [cms, secrets, deps] = await Promise.all([
    stack.core.listNamespacedConfigMap({ namespace: k8sNs }),
    stack.core.listNamespacedSecret({ namespace: k8sNs }),
    stack.apps.listNamespacedDeployment({ namespace: k8sNs }),
  ]);
  return [...cms.items, ...secrets.items, ...deps.items].map((o) => o.metadata!.name!).sort();
}

describe('deleteAgent', () => {
  it('W6 a running agent is refused with AGENT_NOT_STOPPED, audited, and keeps its objects', async () => {
    const agent = await newAgent('running-one');
    await plantAgentObjects(agent.id, installationId);
    await stack.runtime.db.agent.update({ where: { id: agent.id }, data: { desiredState: 'running' } });
    const before = await names();
    const result = payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }), 'deleteAgent');
    expect(result).toMatchObject({ __typename: 'ConflictError', code: 'AGENT_NOT_STOPPED' });
    expect(await names()).toEqual(before);
    expect(await stack.runtime.db.agent.count({ where: { id: agent.id } })).toBe(1);
    expect(await stack.runtime.db.auditEvent.count({ where: { action: 'agent.delete', resourceId: agent.id, outcome: 'FAILURE', reason: 'AGENT_NOT_STOPPED' } })).toBe(1);
  });

  it("R3 a stopped agent's objects are deleted by its labels: not another agent's, not another installation's, not an unlabelled namesake", async () => {
    const agent = await newAgent('stopped-one');
    const other = await newAgent('other-one');
    const ours = await plantAgentObjects(agent.id, installationId);
    const othersObjects = await plantAgentObjects(other.id, installationId);
    const foreign = await plantAgentObjects(agent.id, randomUUID(), '-foreign');
    const namesake = `${gatewayConfigMapName(agent.id, 1)}-namesake`;
    await stack.core.createNamespacedConfigMap({ namespace: k8sNs, body: { metadata: { name: namesake }, data: {} } });

    const result = payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }), 'deleteAgent');
    expect(result.__typename, JSON.stringify(result)).toBe('DeleteAgentSuccess');
    expect(result.removedObjects.map((o: { kind: string }) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Secret']);
    const left = await names();
    for (const name of ours) expect(left).not.toContain(name);
    for (const name of [...othersObjects, ...foreign, namesake]) expect(left).toContain(name);
    expect(await stack.runtime.db.agent.count({ where: { id: agent.id } })).toBe(0);
    const event = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'agent.delete', resourceId: agent.id, outcome: 'SUCCESS' } });
    expect(event.details).toMatchObject({ name: 'stopped-one', servicePrincipalId: agent.servicePrincipalId });
  });

  it("A2 the deleted agent's principal is disabled, its keys revoked, and the grants it held and those on it are removed", async () => {
    const agent = await newAgent('granted-one');
    const secret = await createSecretOk(stack, nsId, 'granted-one-key', 'v');
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    await grantBuiltInRole(stack.runtime.db, agent.servicePrincipalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId: nsId }, boot);
    const user = await createHumanPrincipal(stack.runtime.db, 'agent-deployer', boot);
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-editor', { kind: 'resource', resourceKind: 'agent', resourceId: agent.id, namespaceId: nsId }, boot);
    const result = payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }), 'deleteAgent');
    expect(result.__typename).toBe('DeleteAgentSuccess');
    const principal = await stack.runtime.db.principal.findUniqueOrThrow({ where: { id: agent.servicePrincipalId } });
    expect(principal.disabledAt).not.toBeNull();
    expect(await stack.runtime.db.accessBinding.count({ where: { subjectId: agent.servicePrincipalId } })).toBe(0);
    expect(await stack.runtime.db.accessBinding.count({ where: { resourceKind: 'agent', resourceId: agent.id } })).toBe(0);
  });

  it('P6 a namespace viewer may not delete: FORBIDDEN (it can read the agent); an unrelated user gets NOT_FOUND', async () => {
    const agent = await newAgent('guarded-one');
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    const viewer = await createHumanPrincipal(stack.runtime.db, 'agent-viewer', boot);
    await grantBuiltInRole(stack.runtime.db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, boot);
    const stranger = await createHumanPrincipal(stack.runtime.db, 'agent-stranger', boot);
    expect(payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }, { key: viewer.apiKey }), 'deleteAgent')).toMatchObject({ __typename: 'ForbiddenError' });
    expect(payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }, { key: stranger.apiKey }), 'deleteAgent')).toMatchObject({ __typename: 'NotFoundError' });
    expect(await stack.runtime.db.agent.count({ where: { id: agent.id } })).toBe(1);
  });
});

describe('deleteConfiguration', () => {
  it('C4 refused with CONFIGURATION_IN_USE while agents select it: readable agents named, the rest counted; audited; nothing removed', async () => {
    const cfg = await newConfiguration('selected');
    const a = await newAgent('selector-a', cfg);
    const b = await newAgent('selector-b', cfg);
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    // A caller who may delete the configuration and read agent a only.
    const user = await createHumanPrincipal(stack.runtime.db, 'cfg-deleter', boot);
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-editor', { kind: 'resource', resourceKind: 'configuration', resourceId: cfg, namespaceId: nsId }, boot);
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'agent', resourceId: a.id, namespaceId: nsId }, boot);

    const asUser = payload(await stack.gql(DELETE_CONFIGURATION, { input: { id: cfg } }, { key: user.apiKey }), 'deleteConfiguration');
    expect(asUser).toMatchObject({ __typename: 'ConfigurationInUseError', code: 'CONFIGURATION_IN_USE', agents: { total: 2, hiddenCount: 1, items: [{ id: a.id, name: 'selector-a' }] } });
    const asAdmin = payload(await stack.gql(DELETE_CONFIGURATION, { input: { id: cfg } }), 'deleteConfiguration');
    expect(asAdmin.agents).toEqual({ total: 2, hiddenCount: 0, items: [{ id: a.id, name: 'selector-a' }, { id: b.id, name: 'selector-b' }] });
    expect(await stack.runtime.db.configuration.count({ where: { id: cfg } })).toBe(1);
    expect(await stack.runtime.db.auditEvent.count({ where: { action: 'configuration.delete', resourceId: cfg, outcome: 'FAILURE', reason: 'CONFIGURATION_IN_USE' } })).toBe(2);
  });

  it('C4 once no agent selects it, it is deleted with its bindings and the grants on it, audited', async () => {
    const cfg = await newConfiguration('released');
    const agent = await newAgent('releaser', cfg);
    await stack.gql(`mutation($i: UpdateAgentInput!) { updateAgent(input: $i) { __typename } }`, { i: { id: agent.id, clearConfiguration: true } });
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    const user = await createHumanPrincipal(stack.runtime.db, 'cfg-reader', boot);
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'configuration', resourceId: cfg, namespaceId: nsId }, boot);

    const result = payload(await stack.gql(DELETE_CONFIGURATION, { input: { id: cfg } }), 'deleteConfiguration');
    expect(result).toEqual({ __typename: 'DeleteConfigurationSuccess', deletedConfigurationId: cfg });
    expect(await stack.runtime.db.configuration.count({ where: { id: cfg } })).toBe(0);
    expect(await stack.runtime.db.configurationSecretBinding.count({ where: { configurationId: cfg } })).toBe(0);
    expect(await stack.runtime.db.accessBinding.count({ where: { resourceKind: 'configuration', resourceId: cfg } })).toBe(0);
    expect(await stack.runtime.db.auditEvent.count({ where: { action: 'configuration.delete', resourceId: cfg, outcome: 'SUCCESS' } })).toBe(1);
    // Its secrets are free again (S7: the binding was their consumer).
    expect(payload(await stack.gql(DELETE_CONFIGURATION, { input: { id: cfg } }), 'deleteConfiguration')).toMatchObject({ __typename: 'NotFoundError' });
  });
});
