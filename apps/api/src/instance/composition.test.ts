import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { agentInstanceName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { readInstance, runningGateway } from '../test/instances.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, UPDATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, payload, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// The composition scenario, over GraphQL as an administrator and as the agent, on the whole
// stack (embedded server, or the real kube-apiserver on the E8 lane): one desired state per agent,
// two field managers on it. The agent changes its own config, env, skills and files (SelfConfig);
// its gateway runs them (SC10, read through the kubelet simulator's view of the Pods). Then an
// administrator deploys a configuration that sets one of the agent's keys and binds one of its
// names: explainDeploy lists both takeovers before the click, the deploy takes them and records
// them (event, audit, the request's history, the revision); everything else the agent set stays.
// The two managers share no first-level config key except the one the deploy takes: kube-apiserver
// 1.20 (the E8 lane) owns keys apart at the first level only (REAL-SERVER-DIFFERENCES.md D10);
// deeper keys are covered by the emulator's tests and the domain's.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
let agentId: string;
let agentKey: string;
let configurationId: string;
let secretId: string;
const TOKEN_VALUE = `tok-${randomUUID()}`;
const LITERAL = `literal-${randomUUID()}`;

const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number state } } ... on Error { code message } } }`;
const REVISION = `query($id: ID!) { node(id: $id) { ... on AgentRevision { id number state failure { code message } takeovers { kind name action setAt requestId } instanceGeneration } } }`;
const EXPLAIN = `query($agentId: ID!) { explainDeploy(agentId: $agentId) { __typename ... on DeployExplanation { allowed takeovers { kind name path action setAt description setBy { manager operation } } } ... on Error { code message } } }`;
const REQUEST = `mutation($input: RequestSelfConfigInput!) { requestSelfConfig(input: $input) { __typename ... on RequestSelfConfigSuccess { request { id } } ... on Error { code message } } }`;
const HISTORY = `query($id: ID!) { selfConfigRequests(agentId: $id, first: 50) { edges { node { id phase message overriddenBy { revisionId number items at } } } } }`;
const AGENT = `query($id: ID!) { agent(id: $id) { status runtime { phase ready reason runningGeneration runningRevision { number } } fieldOwnership { items { kind name owners { manager } } } } }`;

async function deployAndWait(): Promise<{ id: string; number: number }> {
  const r = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(r.__typename, JSON.stringify(r)).toBe('DeployAgentSuccess');
  const done = await waitFor(async () => {
    const rev = payload(await stack.gql(REVISION, { id: r.revision.id }), 'node');
    return ['ACTIVE', 'FAILED'].includes(rev.state) ? rev : null;
  }, `revision ${r.revision.number} to end`, 90_000);
  expect(done, JSON.stringify(done)).toMatchObject({ state: 'ACTIVE', failure: null });
  return done as { id: string; number: number };
}

/** As the agent (its own principal's key), through GraphQL; waits for the controller's terminal phase. */
async function selfConfig(input: Record<string, unknown>): Promise<{ id: string; phase: string; message: string }> {
  const r = payload(await stack.gql(REQUEST, { input: { agentId, ...input } }, { key: agentKey }), 'requestSelfConfig');
  expect(r.__typename, JSON.stringify(r)).toBe('RequestSelfConfigSuccess');
  return waitFor(async () => {
    const node = payload(await stack.gql(HISTORY, { id: agentId }), 'selfConfigRequests').edges.map((e: { node: unknown }) => e.node).find((n: { id: string }) => n.id === r.request.id);
    return node && ['Applied', 'Failed', 'Denied'].includes(node.phase) ? node : null;
  }, 'the request to end', 60_000);
}

/** The gateway's Pods once they run the instance's current generation, as the kubelet started them. */
async function gatewayAtCurrentGeneration() {
  return waitFor(async () => {
    const instance = await readInstance(stack, k8sNamespace, agentId);
    const ready = instance?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
    if (!instance || ready?.status !== 'True' || instance.status?.running?.generation !== instance.metadata.generation) return null;
    const containers = (await runningGateway(stack, k8sNamespace, agentId)).filter((c) => c.container === 'gateway');
    // Only the new template's Pods: old ones are gone once the rollout completed.
    return containers.length === 1 ? { instance, gateway: containers[0]! } : null;
  }, 'the gateway to run the current generation', 60_000);
}

beforeAll(async () => {
  stack = await startTestStack({ selfConfigWebhookOnLoopback: true, env: { gatewayReadySeconds: 60 } });
  namespaceId = await createReadyNamespace(stack, `compose-${randomUUID().slice(0, 6)}`);
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secretId = (await createSecretOk(stack, namespaceId, 'tool-token', TOKEN_VALUE)).id;
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'composed', values: { model: 'openai/gpt-6-astra', web: { enabled: false } } } }), 'createConfiguration');
  expect(cfg.__typename, JSON.stringify(cfg)).toBe('CreateConfigurationSuccess');
  configurationId = cfg.configuration.id;
  const created = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'composer', configurationId, selfConfigure: { enabled: true, allowedActions: ['skills', 'config', 'workspaceFiles', 'envVars'] } } }), 'createAgent');
  agentId = created.agent.id;
  const key = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId: created.agent.servicePrincipalId } }), 'createApiKey');
  agentKey = key.apiKey;
  const grant = payload(
    await stack.gql(`mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`, { input: { subjectId: created.agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } }),
    'grantAccess',
  );
  expect(grant.__typename).toBe('GrantAccessSuccess');
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

describe('one desired state: deploy and SelfConfig compose on the instance', { timeout: 240_000 }, () => {
  it('RC1 RC2 RC6 a deploy writes the revision into the instance, and the gateway the reconciler renders from it runs that document', async () => {
    const r1 = await deployAndWait();
    const { instance, gateway } = await gatewayAtCurrentGeneration();
    expect(instance.spec.revision).toEqual({ id: r1.id, number: 1 });
    expect(JSON.parse(gateway.files['/etc/openclaw/openclaw.json']!)).toEqual({ model: 'openai/gpt-6-astra', web: { enabled: false } });
    expect(gateway.env.OPENCLAW_INSTANCE_NAME).toBe(agentInstanceName(agentId));
    expect(gateway.annotations['openclaw.rocks/revision-id']).toBe(r1.id);
    const agent = payload(await stack.gql(AGENT, { id: agentId }), 'agent');
    expect(agent).toMatchObject({ status: 'running', runtime: { phase: 'Running', ready: true, runningRevision: { number: 1 }, runningGeneration: instance.metadata.generation } });
  });

  it("SC10 RC1 an applied SelfConfig reaches the agent: its gateway's Pods run the instance's new generation (env, files, config, skills)", async () => {
    const done = await selfConfig({
      configPatch: { x: 1, temperature: 0.2, notes: { style: 'short' } },
      // Not named like a credential: such a name with a literal is refused (SC4).
      addEnvVars: [{ name: 'TOOL_ENDPOINT', value: LITERAL }, { name: 'MY_FLAG', value: 'on' }],
      addSkills: ['fetch'],
      addWorkspaceFiles: [{ path: 'notes/today.md', content: 'hello' }],
    });
    expect(done.phase, done.message).toBe('Applied');
    const { gateway } = await gatewayAtCurrentGeneration();
    expect(JSON.parse(gateway.files['/etc/openclaw/openclaw.json']!)).toEqual({ model: 'openai/gpt-6-astra', web: { enabled: false }, x: 1, temperature: 0.2, notes: { style: 'short' } });
    expect(gateway.env).toMatchObject({ TOOL_ENDPOINT: LITERAL, MY_FLAG: 'on' });
    expect(JSON.parse(gateway.files['/etc/openclaw/skills.json']!)).toEqual(['fetch']);
    expect(gateway.files['/workspace/notes/today.md']).toBe('hello');
  });

  it('RC3 explainDeploy lists, before the click, each item the agent set that the next deploy would take: a key it replaces and a literal it binds', async () => {
    const cfg = payload(
      await stack.gql(UPDATE_CONFIGURATION, {
        input: { id: configurationId, expectedGeneration: 1, values: { model: 'openai/gpt-6-astra', web: { enabled: true }, x: 2 }, secretBindings: [binding('TOOL_ENDPOINT', secretId)] },
      }),
      'updateConfiguration',
    );
    expect(cfg.__typename, JSON.stringify(cfg)).toBe('UpdateConfigurationSuccess');
    const explained = payload(await stack.gql(EXPLAIN, { agentId }), 'explainDeploy');
    expect(explained.allowed).toBe(true);
    const takeovers = explained.takeovers.map((t: { kind: string; name: string; action: string }) => [t.kind, t.name, t.action]);
    expect(takeovers.sort()).toEqual([
      ['config', 'x', 'replace'],
      ['envVar', 'TOOL_ENDPOINT', 'bind'],
    ]);
    for (const t of explained.takeovers) {
      expect(t.setBy).toEqual([{ manager: 'openclaw-selfconfig', operation: 'Apply' }]);
      expect(t.setAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(explained.takeovers.find((t: { kind: string }) => t.kind === 'config').description).toMatch(/^config\.x, set by the agent on .+, will be replaced$/);
  });

  it("RC3 the deploy takes them with force and records it (event, audit, the request's history, the revision); the agent's other changes stay; the name holds the secret's reference, never both", async () => {
    const r2 = await deployAndWait();
    const { instance, gateway } = await gatewayAtCurrentGeneration();
    const token = (instance.spec.env as Array<{ name: string; value?: string; valueFrom?: unknown }>).find((e) => e.name === 'TOOL_ENDPOINT');
    expect(token?.value).toBeUndefined();
    expect(token?.valueFrom).toBeDefined();
    // The gateway gets the secret's bytes now, and keeps every other change the agent made.
    expect(gateway.env.TOOL_ENDPOINT).toBe(TOKEN_VALUE);
    expect(gateway.env.MY_FLAG).toBe('on');
    expect(JSON.parse(gateway.files['/etc/openclaw/openclaw.json']!)).toEqual({ model: 'openai/gpt-6-astra', web: { enabled: true }, x: 2, temperature: 0.2, notes: { style: 'short' } });
    expect(JSON.parse(gateway.files['/etc/openclaw/skills.json']!)).toEqual(['fetch']);
    // Recorded four ways.
    const revision = payload(await stack.gql(REVISION, { id: r2.id }), 'node');
    expect(revision.takeovers.map((t: { kind: string; name: string; action: string }) => [t.kind, t.name, t.action]).sort()).toEqual([
      ['config', 'x', 'replace'],
      ['envVar', 'TOOL_ENDPOINT', 'bind'],
    ]);
    const history = payload(await stack.gql(HISTORY, { id: agentId }), 'selfConfigRequests').edges.map((e: { node: unknown }) => e.node);
    const setter = history.find((n: { overriddenBy: unknown[] }) => n.overriddenBy.length > 0);
    expect(setter.overriddenBy).toEqual([{ revisionId: r2.id, number: 2, items: expect.arrayContaining([expect.stringContaining('config.x'), expect.stringContaining('env TOOL_ENDPOINT')]), at: expect.any(String) }]);
    expect(revision.takeovers.every((t: { requestId: string }) => t.requestId === setter.id)).toBe(true);
    const audited = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'revision.takeover', resourceId: r2.id } });
    expect(JSON.stringify(audited.details)).toContain('"name":"x"');
    const events = await stack.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: k8sNamespace, fieldSelector: `involvedObject.name=${agentInstanceName(agentId)}` });
    const took = events.items.filter((e) => e.reason === 'RevisionTookOverSelfConfig');
    expect(took.map((e) => e.message)).toEqual([expect.stringMatching(/^revision 2: env TOOL_ENDPOINT, set by the agent as a literal on .*, was bound to its secret instead; config\.x, set by the agent on .*, was replaced$/)]);
    // Who holds what now: the bound name and the replaced key are occ-controller's; the agent's other items its own.
    const owners = Object.fromEntries(
      payload(await stack.gql(AGENT, { id: agentId }), 'agent').fieldOwnership.items.map((i: { kind: string; name: string; owners: Array<{ manager: string }> }) => [`${i.kind}:${i.name}`, i.owners.map((o) => o.manager).sort()]),
    );
    expect(owners['envVar:TOOL_ENDPOINT']).toEqual(['occ-controller']);
    expect(owners['config:x']).toEqual(['occ-controller']);
    expect(owners['envVar:MY_FLAG']).toEqual(['openclaw-selfconfig']);
    expect(owners['config:temperature']).toEqual(['openclaw-selfconfig']);
  });

  it('SC4 SC6 after the deploy the agent can no longer set the bound name, and still removes what it alone holds', async () => {
    const bound = await selfConfig({ addEnvVars: [{ name: 'TOOL_ENDPOINT', value: 'again' }] });
    expect(bound).toMatchObject({ phase: 'Failed' });
    expect(bound.message).toContain('TOOL_ENDPOINT');
    const removed = await selfConfig({ removeSkills: ['fetch'], configPatch: { temperature: null, x: null } });
    expect(removed.phase).toBe('Applied');
    // x is occ-controller's now: its removal is skipped, naming it.
    expect(removed.message).toContain('config "x"');
    expect(removed.message).toContain('occ-controller');
    const { gateway } = await gatewayAtCurrentGeneration();
    expect(JSON.parse(gateway.files['/etc/openclaw/skills.json']!)).toEqual([]);
    expect(JSON.parse(gateway.files['/etc/openclaw/openclaw.json']!)).toEqual({ model: 'openai/gpt-6-astra', web: { enabled: true }, x: 2, notes: { style: 'short' } });
  });

  it('S3 P1 neither the secret value nor the literal the agent sent reaches a database row or an object other than the Secret and the instance', async () => {
    expect(findCanary(await dumpDatabase(stack.databaseUrl), TOKEN_VALUE)).toEqual([]);
    expect(findCanary(await dumpDatabase(stack.databaseUrl), LITERAL)).toEqual([]);
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    const instances = (await custom.listNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', namespace: k8sNamespace, plural: 'openclawinstances' })) as { items: unknown[] };
    expect(findCanary(instances.items.map((i) => JSON.stringify(i)), TOKEN_VALUE)).toEqual([]);
    expect(findCanary(stack.logs, TOKEN_VALUE)).toEqual([]);
    expect(findCanary(stack.logs, LITERAL)).toEqual([]);
  });
});
