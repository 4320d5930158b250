import { randomUUID } from 'node:crypto';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInstance, runningGateway } from '../test/instances.ts';
import { CREATE_CONFIGURATION, UPDATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, deployToActive, payload, waitFor } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// SG3 approval, on the whole stack (embedded server, the controller with its clock injected, the
// instance reconciler and the kubelet simulator): an agent whose selfConfigure.approval requires
// skills and envVars is deployed (the deploy carries the setting to its instance); its requests
// that touch those categories wait in AwaitingApproval with their preview and change nothing, and
// an administrator's approval or rejection, audited, decides them; an approval is re-validated;
// an undecided request expires.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';

let stack: TestStack;
let custom: CustomObjectsApi;
let namespaceId: string;
let k8sNamespace: string;
let agentId: string;
let agentKey: string;
let agentPrincipal: string;
let configurationId: string;
let secretId: string;
let admin: { principalId: string; apiKey: string };
let viewer: { principalId: string; apiKey: string };
let stranger: { principalId: string; apiKey: string };
let now = new Date('2026-12-04T08:00:00Z');

const CREATE_AGENT = `mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId selfConfigure { enabled allowedActions approval { skills config workspaceFiles envVars required } } } } ... on Error { code message } } }`;
const REQUEST = `mutation($input: RequestSelfConfigInput!) { requestSelfConfig(input: $input) { __typename ... on RequestSelfConfigSuccess { request { id name } } ... on Error { code message } } }`;
const HISTORY = `query($id: ID!) { selfConfigRequests(agentId: $id, first: 50) { edges { node { id name phase message reason changes { op kind name } awaitingApprovalAt approval { decision reason decidedBy { id } } } } } }`;
const APPROVE = `mutation($input: ApproveSelfConfigInput!) { approveSelfConfig(input: $input) { __typename ... on ApproveSelfConfigSuccess { request { id phase approval { decision decidedBy { id } } } } ... on Error { code message } } }`;
const REJECT = `mutation($input: RejectSelfConfigInput!) { rejectSelfConfig(input: $input) { __typename ... on RejectSelfConfigSuccess { request { id approval { decision reason } } } ... on Error { code message } } }`;
const APPROVALS = `{ selfConfigApprovals(first: 50) { totalCount edges { node { id phase } } } }`;

type Node = { id: string; name: string; phase: string; message: string; reason: string | null; changes: Array<{ op: string; kind: string; name: string }>; awaitingApprovalAt: string | null; approval: { decision: string; reason: string | null; decidedBy: { id: string } | null } | null };


async function node(id: string): Promise<Node | undefined> {
  return payload(await stack.gql(HISTORY, { id: agentId }), 'selfConfigRequests').edges.map((e: { node: Node }) => e.node).find((n: Node) => n.id === id);
}

async function untilPhase(id: string, phases: string[]): Promise<Node> {
  return waitFor(async () => {
    const n = await node(id);
    return n && phases.includes(n.phase) ? n : null;
  }, `request ${id} to reach ${phases.join('/')}`, 60_000);
}

/** As the agent, through GraphQL (the object is created in the embedded cluster); waits until the controller parks or ends it. */
async function request(input: Record<string, unknown>): Promise<Node> {
  const r = payload(await stack.gql(REQUEST, { input: { agentId, ...input } }, { key: agentKey }), 'requestSelfConfig');
  expect(r.__typename, JSON.stringify(r)).toBe('RequestSelfConfigSuccess');
  return untilPhase(r.request.id, ['AwaitingApproval', 'Applied', 'Failed', 'Denied']);
}

async function requestObject(name: string) {
  return (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNamespace, name })) as { status?: { phase?: string; message?: string; changes?: string[] } };
}

const approve = async (id: string, key?: string) => payload(await stack.gql(APPROVE, { input: { requestId: id } }, key ? { key } : {}), 'approveSelfConfig');
const reject = async (id: string, reason: string, key?: string) => payload(await stack.gql(REJECT, { input: { requestId: id, reason } }, key ? { key } : {}), 'rejectSelfConfig');

beforeAll(async () => {
  stack = await startTestStack({
    env: { gatewayReadySeconds: 60, selfConfigBudget: { requestsPerHour: 1000, appliedPerDay: 1000, pauseAfterRollbacks: 3 } },
    selfConfigClock: () => now,
    selfConfigWebhookOnLoopback: true,
  });
  custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  namespaceId = await createReadyNamespace(stack, `approval-${randomUUID().slice(0, 6)}`);
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secretId = (await createSecretOk(stack, namespaceId, 'tool-url', 'https://tool.example')).id;
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'approved', values: { model: 'openai/gpt-6-astra' } } }), 'createConfiguration');
  configurationId = cfg.configuration.id;
  const created = payload(
    await stack.gql(CREATE_AGENT, {
      input: { namespaceId, name: 'careful', configurationId, selfConfigure: { enabled: true, allowedActions: ['skills', 'config', 'workspaceFiles', 'envVars'], approval: { default: 'none', skills: 'required', envVars: 'required' } } },
    }),
    'createAgent',
  );
  expect(created.__typename, JSON.stringify(created)).toBe('CreateAgentSuccess');
  agentId = created.agent.id;
  agentPrincipal = created.agent.servicePrincipalId;
  expect(created.agent.selfConfigure.approval).toEqual({ skills: 'required', config: 'none', workspaceFiles: 'none', envVars: 'required', required: ['skills', 'envVars'] });
  agentKey = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId: agentPrincipal } }), 'createApiKey').apiKey;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  admin = await createHumanPrincipal(stack.runtime.db, 'approver', boot);
  await grantBuiltInRole(stack.runtime.db, admin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId }, boot);
  viewer = await createHumanPrincipal(stack.runtime.db, 'approval-viewer', boot);
  await grantBuiltInRole(stack.runtime.db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId }, boot);
  stranger = await createHumanPrincipal(stack.runtime.db, 'approval-stranger', boot);
  await deployToActive(stack, agentId);
  await waitFor(async () => stack.runtime.selfConfig.running(), 'the SelfConfig controller to start on the leader');
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

describe('SG3 SelfConfig approval', { timeout: 240_000 }, () => {
  it("SG3 a deploy carries the agent's selfConfigure.approval to its instance", async () => {
    const instance = await readInstance(stack, k8sNamespace, agentId);
    expect(instance?.spec.selfConfigure.approval).toEqual({ default: 'none', skills: 'required', envVars: 'required' });
  });

  it('SG3 SC2 a request touching a category that needs approval waits in AwaitingApproval with its preview and changes nothing; one touching none applies', async () => {
    const before = (await readInstance(stack, k8sNamespace, agentId))!;
    const waiting = await request({ addSkills: ['fetch'] });
    expect(waiting.phase).toBe('AwaitingApproval');
    expect(waiting.message).toContain('awaiting approval: skills');
    expect(waiting.changes).toEqual([{ op: 'add', kind: 'skill', name: 'fetch' }]);
    expect(waiting.awaitingApprovalAt).toBe(now.toISOString());
    const object = await requestObject(waiting.name);
    expect(object.status).toMatchObject({ phase: 'AwaitingApproval', changes: ['+ skill "fetch"'] });
    const after = (await readInstance(stack, k8sNamespace, agentId))!;
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec.skills ?? []).not.toContain('fetch');
    // config needs no approval: it applies as before.
    const config = await request({ configPatch: { notes: { style: 'short' } } });
    expect(config.phase, config.message).toBe('Applied');
    // Still waiting, whatever else happened.
    expect((await node(waiting.id))?.phase).toBe('AwaitingApproval');
    await reject(waiting.id, 'cleanup', admin.apiKey);
  });

  it('SG3 A3 P6 only an administrator of the agent decides: a viewer is FORBIDDEN, a stranger NOT_FOUND, the agent itself FORBIDDEN; the approval is audited, applied, and the gateway runs it', async () => {
    const waiting = await request({ addSkills: ['web-search'] });
    expect(waiting.phase).toBe('AwaitingApproval');
    const listed = (key: string) => stack.gql(APPROVALS, {}, { key }).then((r) => r.body.data!.selfConfigApprovals.edges.map((e: { node: { id: string } }) => e.node.id));
    expect(await listed(admin.apiKey)).toContain(waiting.id);
    expect(await listed(viewer.apiKey)).toEqual([]);
    expect(await listed(agentKey)).toEqual([]);

    expect(await approve(waiting.id, viewer.apiKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await approve(waiting.id, stranger.apiKey)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(await approve(`scr_${randomUUID()}`, stranger.apiKey)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(await approve(waiting.id, agentKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await reject(waiting.id, 'no', agentKey)).toMatchObject({ __typename: 'ForbiddenError' });
    expect((await node(waiting.id))?.phase).toBe('AwaitingApproval');

    const approved = await approve(waiting.id, admin.apiKey);
    expect(approved).toMatchObject({ __typename: 'ApproveSelfConfigSuccess', request: { id: waiting.id, approval: { decision: 'approved', decidedBy: { id: admin.principalId } } } });
    const done = await untilPhase(waiting.id, ['Applied', 'Failed', 'Denied']);
    expect(done.phase, done.message).toBe('Applied');
    expect(done.message).toContain(`approved by ${admin.principalId}`);
    expect((await readInstance(stack, k8sNamespace, agentId))!.spec.skills).toContain('web-search');
    await waitFor(async () => {
      const gateway = (await runningGateway(stack, k8sNamespace, agentId)).filter((c) => c.container === 'gateway');
      return gateway.length === 1 && (JSON.parse(gateway[0]!.files['/etc/openclaw/skills.json'] ?? '[]') as string[]).includes('web-search') ? true : null;
    }, 'the gateway to run the approved skill', 60_000);

    const audits = await stack.runtime.db.auditEvent.findMany({ where: { resourceId: agentId, action: { in: ['agent.selfconfig.approve', 'agent.selfconfig.reject'] } }, orderBy: { at: 'asc' } });
    const rows = audits.filter((a) => (a.details as { requestId?: string }).requestId === waiting.id).map((a) => [a.actorId, a.action, a.outcome]);
    expect(rows).toEqual([
      [agentPrincipal, 'agent.selfconfig.approve', 'DENIED'],
      [agentPrincipal, 'agent.selfconfig.reject', 'DENIED'],
      [admin.principalId, 'agent.selfconfig.approve', 'SUCCESS'],
    ]);
    expect(await stack.runtime.db.auditEvent.count({ where: { actorId: viewer.principalId, outcome: 'DENIED', resourceId: agentId } })).toBeGreaterThan(0);
    // Decided once: a second approval is a conflict, and the list no longer holds it.
    expect(await approve(waiting.id, admin.apiKey)).toMatchObject({ __typename: 'ConflictError', code: 'NOT_AWAITING_APPROVAL' });
    expect(await listed(admin.apiKey)).not.toContain(waiting.id);
  });

  it('SG3 a rejected request ends Rejected with the reason, with events, and nothing is applied', async () => {
    const before = (await readInstance(stack, k8sNamespace, agentId))!;
    const waiting = await request({ addSkills: ['shell'], addEnvVars: [{ name: 'SHELL_MODE', value: 'wide' }] });
    expect(waiting.phase).toBe('AwaitingApproval');
    expect(waiting.message).toContain('skills, envVars');
    expect(await reject(waiting.id, 'not on this agent', admin.apiKey)).toMatchObject({ __typename: 'RejectSelfConfigSuccess', request: { approval: { decision: 'rejected', reason: 'not on this agent' } } });
    const done = await untilPhase(waiting.id, ['Rejected', 'Applied', 'Failed', 'Denied']);
    expect(done).toMatchObject({ phase: 'Rejected', reason: 'Rejected' });
    expect(done.message).toBe(`rejected by ${admin.principalId}: not on this agent`);
    const object = await requestObject(waiting.name);
    expect(object.status?.phase).toBe('Rejected');
    const after = (await readInstance(stack, k8sNamespace, agentId))!;
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec.skills ?? []).not.toContain('shell');
    const events = (await stack.core.listNamespacedEvent({ namespace: k8sNamespace })).items;
    expect(events.some((e) => e.involvedObject.name === waiting.name && e.reason === 'Rejected' && e.type === 'Warning')).toBe(true);
    expect(events.some((e) => e.involvedObject.kind === 'OpenClawInstance' && e.reason === 'SelfConfigRejected' && e.message?.includes(waiting.name))).toBe(true);
    const audit = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'agent.selfconfig.reject', actorId: admin.principalId, resourceId: agentId, outcome: 'SUCCESS' }, orderBy: { at: 'desc' } });
    expect(audit.details).toMatchObject({ requestId: waiting.id, reason: 'not on this agent' });
  });

  it('SG3 a request nobody decides within the approval TTL ends Expired, by the controller\'s clock; a late approval is a CONFLICT', async () => {
    const waiting = await request({ addSkills: ['slow'] });
    expect(waiting.phase).toBe('AwaitingApproval');
    now = new Date(now.getTime() + 23 * 3600_000);
    stack.runtime.selfConfig.enqueue(k8sNamespace, waiting.name);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await node(waiting.id))?.phase).toBe('AwaitingApproval');
    now = new Date(now.getTime() + 3600_000 + 1_000);
    stack.runtime.selfConfig.enqueue(k8sNamespace, waiting.name);
    const done = await untilPhase(waiting.id, ['Expired', 'Applied']);
    expect(done).toMatchObject({ phase: 'Expired', reason: 'ApprovalExpired', approval: { decision: 'expired' } });
    expect(done.message).toContain('within 86400s');
    expect((await readInstance(stack, k8sNamespace, agentId))!.spec.skills ?? []).not.toContain('slow');
    expect(await approve(waiting.id, admin.apiKey)).toMatchObject({ __typename: 'ConflictError' });
  });

  it('SG3 SC4 an approval re-validates against the instance as it is then: an env name bound to a Secret since the request ends Failed, and nothing is applied', async () => {
    const waiting = await request({ addEnvVars: [{ name: 'TOOL_URL', value: 'https://elsewhere.example' }] });
    expect(waiting.phase).toBe('AwaitingApproval');
    const bound = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: configurationId, expectedGeneration: 1, values: { model: 'openai/gpt-6-astra' }, secretBindings: [binding('TOOL_URL', secretId)] } }), 'updateConfiguration');
    expect(bound.__typename, JSON.stringify(bound)).toBe('UpdateConfigurationSuccess');
    expect(await approve(waiting.id, admin.apiKey)).toMatchObject({ __typename: 'ApproveSelfConfigSuccess' });
    const done = await untilPhase(waiting.id, ['Failed', 'Denied', 'Applied']);
    expect(done.phase, done.message).toBe('Failed');
    expect(done.message).toContain('refused on re-validation');
    expect(done.message).toContain('TOOL_URL is bound to a Secret');
    const env = ((await readInstance(stack, k8sNamespace, agentId))!.spec.env ?? []) as Array<{ name: string; value?: string }>;
    expect(env.find((e) => e.name === 'TOOL_URL')?.value).toBeUndefined();
  });
});
