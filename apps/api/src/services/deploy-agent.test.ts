import { randomUUID } from 'node:crypto';
import { gatewayDeploymentName, harnessSecretName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, CREATE_SECRET, NAMESPACE, binding, payload } from '../test/operations.ts';
import { readInstance } from '../test/instances.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { asEarlierReleaseSecret } from '../test/earlier-release-secret.ts';
import { pendingDeployWorkFor } from './deploy-work-payload.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// deployAgent's admission (D1, D3) and what the worker does with a source that changed or a key
// that is missing (W4, W5). The worker runs only when a test drains it.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
let boot: string;

const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename
  ... on DeployAgentSuccess { revision { id number state } }
  ... on ForbiddenError { missingGrant { subjectId } }
  ... on NamespaceNotReadyError { namespaceStatus }
  ... on Error { code message } } }`;
const REVISION = `query($id: ID!) { node(id: $id) { ... on AgentRevision { id number state failure { code message } } } }`;
const EXPLAIN_ACCESS = `query($s: ID!, $id: ID) { explainAccess(subjectId: $s, action: "deploy", resourceKind: "agent", resourceId: $id) { __typename
  ... on AccessDecision { allowed summary } ... on Error { code } } }`;

async function deploy(agentId: string, key?: string) {
  return payload(await stack.gql(DEPLOY, { input: { agentId } }, { key }), 'deployAgent');
}

async function revision(id: string) {
  return payload(await stack.gql(REVISION, { id }), 'node');
}

async function secret(name: string, value: string) {
  const r = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId, name, value } }), 'createSecret');
  return r.secret as { id: string; backendLocator: { name: string; uid: string } };
}

/** An agent whose configuration binds `secrets` as NAME_i, with its principal granted operate on each. */
async function agentWith(secretIds: string[]): Promise<{ id: string; servicePrincipalId: string }> {
  const cfg = payload(
    await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: `cfg-${randomUUID().slice(0, 8)}`, values: {}, secretBindings: secretIds.map((id, i) => binding(`TOKEN_${i}`, id)) } }),
    'createConfiguration',
  );
  const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: `agent-${randomUUID().slice(0, 8)}`, configurationId: cfg.configuration.id } }), 'createAgent').agent;
  for (const id of secretIds) await grantBuiltInRole(stack.runtime.db, a.servicePrincipalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: id, namespaceId }, boot);
  return a;
}

/** What a test makes happen inside the activation's transaction, once its locks are held. */
let duringActivation: ((revisionId: string) => Promise<void>) | null = null;

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 30 }, deployWork: { onActivationLocked: async (id) => duringActivation?.(id) } });
  boot = stack.runtime.installation.bootstrapPrincipalId;
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `deploy-${randomUUID().slice(0, 8)}` } }), 'createNamespace').namespace.id;
  await stack.runtime.worker.drain();
  expect(payload(await stack.gql(NAMESPACE, { id: namespaceId }), 'namespace').status).toBe('READY');
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('deployAgent admission', { timeout: 180_000 }, () => {
  it('D1 deploy on one Agent is a grant target: it allows that agent and no other, and every other denial is bare', async () => {
    const mine = await agentWith([]);
    const other = await agentWith([]);
    const user = await createHumanPrincipal(stack.runtime.db, `deployer-${randomUUID().slice(0, 6)}`, boot);
    // Readable but not deployable: a bare, audited FORBIDDEN (A3: not the Agent's grant).
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId }, boot);
    expect(await deploy(mine.id, user.apiKey)).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.', missingGrant: null });
    expect(await stack.runtime.db.auditEvent.count({ where: { actorId: user.principalId, action: 'agent.deploy', outcome: 'DENIED', resourceId: mine.id } })).toBe(1);
    const g = await stack.gql(
      `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`,
      { input: { subjectId: user.principalId, roleId: 'rol_namespace-editor', scope: { kind: 'RESOURCE', resourceKind: 'agent', resourceId: mine.id } } },
    );
    expect(g.body.data?.grantAccess.__typename).toBe('GrantAccessSuccess');
    const ok = await deploy(mine.id, user.apiKey);
    expect(ok).toMatchObject({ __typename: 'DeployAgentSuccess', revision: { number: 1, state: 'QUEUED' } });
    expect(await deploy(other.id, user.apiKey)).toMatchObject({ __typename: 'ForbiddenError', missingGrant: null });
    // explainAccess answers for the agent kind, with the binding as evidence.
    const why = payload(await stack.gql(EXPLAIN_ACCESS, { s: user.principalId, id: mine.id }), 'explainAccess');
    expect(why).toMatchObject({ __typename: 'AccessDecision', allowed: true });
    expect(why.summary).toContain(`agent ${mine.id}`);
    expect(payload(await stack.gql(EXPLAIN_ACCESS, { s: user.principalId, id: other.id }), 'explainAccess')).toMatchObject({ allowed: false });
    // A caller who cannot read the agent learns nothing of it (P6).
    const stranger = await createHumanPrincipal(stack.runtime.db, `stranger-${randomUUID().slice(0, 6)}`, boot);
    expect(await deploy(mine.id, stranger.apiKey)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  });

  it('D1 a namespace that is not ready refuses the deploy with its status, and nothing is queued', async () => {
    const a = await agentWith([]);
    await stack.runtime.db.namespace.update({ where: { id: namespaceId }, data: { status: 'FAILED' } });
    try {
      expect(await deploy(a.id)).toMatchObject({ __typename: 'NamespaceNotReadyError', code: 'NAMESPACE_NOT_READY', namespaceStatus: 'FAILED' });
    } finally {
      await stack.runtime.db.namespace.update({ where: { id: namespaceId }, data: { status: 'READY' } });
    }
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: a.id } })).toBe(0);
  });

  it('D3 a Secret whose live object was replaced (new uid) answers BACKEND_IDENTITY_CHANGED and creates nothing', async () => {
    const s = await secret(`replaced-${randomUUID().slice(0, 6)}`, 'v1');
    const a = await agentWith([s.id]);
    const live = await stack.core.readNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
    await stack.core.deleteNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
    await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: s.backendLocator.name, labels: live.metadata?.labels }, data: live.data } });
    const r = await deploy(a.id);
    expect(r).toMatchObject({ __typename: 'ConflictError', code: 'BACKEND_IDENTITY_CHANGED' });
    expect(r.message).toContain(s.id);
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: a.id } })).toBe(0);
    expect(await stack.runtime.db.workItem.count({ where: { kind: 'revision.deploy', payload: { path: ['agentId'], equals: a.id } } })).toBe(0);
  });
});

describe('the worker', { timeout: 180_000 }, () => {
  it('S7 pending deploy work is found by any secret it delivers, and no longer once it ended', async () => {
    const s = await secret(`pending-${randomUUID().slice(0, 6)}`, 'v');
    const a = await agentWith([s.id]);
    const r = await deploy(a.id);
    expect(await pendingDeployWorkFor(stack.runtime.db, s.id)).toEqual([expect.objectContaining({ revisionId: r.revision.id, agentId: a.id })]);
    await stack.runtime.worker.drain();
    expect(await pendingDeployWorkFor(stack.runtime.db, s.id)).toEqual([]);
    expect(await revision(r.revision.id)).toMatchObject({ state: 'ACTIVE' });
  });

  it('W4 D3 a source replaced after admission stops delivery with BACKEND_IDENTITY_CHANGED: nothing of the revision reaches the instance', async () => {
    const s = await secret(`late-${randomUUID().slice(0, 6)}`, 'v1');
    const a = await agentWith([s.id]);
    const r = await deploy(a.id);
    expect(r.__typename).toBe('DeployAgentSuccess');
    const live = await stack.core.readNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
    await stack.core.deleteNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
    await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: s.backendLocator.name, labels: live.metadata?.labels }, data: live.data } });
    await stack.runtime.worker.drain();
    expect(await revision(r.revision.id)).toMatchObject({ state: 'FAILED', failure: { code: 'BACKEND_IDENTITY_CHANGED' } });
    expect(await readInstance(stack, k8sNamespace, a.id)).toBeNull();
    await expect(stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(a.id), namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    expect(await stack.runtime.db.auditEvent.findFirst({ where: { action: 'revision.fail', resourceId: r.revision.id } })).toMatchObject({ outcome: 'FAILURE', reason: 'BACKEND_IDENTITY_CHANGED' });
  });

  it('RC4 D3 a value changed outside the product (same object, same uid) is never delivered as the version admitted: the revision fails naming who changed it', async () => {
    const s = await secret(`edited-${randomUUID().slice(0, 6)}`, 'v1');
    const a = await agentWith([s.id]);
    const first = await deploy(a.id);
    expect(first.__typename).toBe('DeployAgentSuccess');
    // Between admission and preparation the object stays the recorded one (same uid and labels), but its bytes change:
    // possible only for an object an earlier release wrote (V1 objects are immutable).
    await asEarlierReleaseSecret(stack, s.id);
    const live = await stack.core.readNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
    await stack.core.replaceNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace, body: { ...live, data: { value: Buffer.from('edited').toString('base64') } }, fieldManager: 'kubectl-edit' });
    await stack.runtime.worker.drain();
    const failed = await revision(first.revision.id);
    expect(failed).toMatchObject({ state: 'FAILED', failure: { code: 'BACKEND_IDENTITY_CHANGED' } });
    expect(failed.failure.message).toContain('changed outside the product by kubectl-edit (Update)');
    expect(failed.failure.message).not.toContain(s.backendLocator.name);
    expect(await readInstance(stack, k8sNamespace, a.id)).toBeNull();
  });

  it("W5 a gateway that cannot start (its model-auth Secret gone after preparation) fails the revision with GATEWAY_NOT_READY and the kubelet's message; a corrected deploy recovers", async () => {
    const model = await secret(`w5-model-${randomUUID().slice(0, 6)}`, 'sk-w5');
    const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: `w5-${randomUUID().slice(0, 6)}`, harnessAuth: { provider: 'openai', source: { id: model.id } } } }), 'createAgent').agent;
    await grantBuiltInRole(stack.runtime.db, a.servicePrincipalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: model.id, namespaceId }, boot);
    const first = await deploy(a.id);
    expect(first.__typename).toBe('DeployAgentSuccess');
    // Prepared (the copy exists), then deleted before the gateway starts: its Pod cannot mount it.
    duringActivation = async (id) => {
      if (id === first.revision.id) await stack.core.deleteNamespacedSecret({ name: harnessSecretName(a.id, 1), namespace: k8sNamespace });
    };
    try {
      await stack.runtime.worker.drain();
    } finally {
      duringActivation = null;
    }
    const failed = await revision(first.revision.id);
    expect(failed).toMatchObject({ state: 'FAILED', failure: { code: 'GATEWAY_NOT_READY' } });
    expect(failed.failure.message).toContain('FailedMount');
    expect(failed.failure.message).toContain(`secret "${harnessSecretName(a.id, 1)}" not found`);
    // The agent shows it: its active revision failed.
    expect(payload(await stack.gql(`query($id: ID!) { agent(id: $id) { status runtime { ready reason } } }`, { id: a.id }), 'agent')).toMatchObject({ status: 'failed', runtime: { ready: false, reason: 'FailedMount' } });
    // Corrected: a new deploy prepares its own copy; it becomes active and the gateway runs.
    const second = await deploy(a.id);
    await stack.runtime.worker.drain();
    expect(await revision(second.revision.id)).toMatchObject({ number: 2, state: 'ACTIVE', failure: null });
    const gateway = await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(a.id), namespace: k8sNamespace });
    expect(gateway.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    expect((await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: a.id } })).activeRevisionId).toBe(second.revision.id);
    expect(payload(await stack.gql(`query($id: ID!) { agent(id: $id) { status } }`, { id: a.id }), 'agent').status).toBe('running');
  });

  it('D5 each revision reads the current model key into its own Secret, and a revision retires its predecessor\'s copy once it is active', async () => {
    const model = await secret(`model-${randomUUID().slice(0, 6)}`, 'sk-first');
    const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: `harness-${randomUUID().slice(0, 6)}`, harnessAuth: { provider: 'anthropic', source: { id: model.id } } } }), 'createAgent').agent;
    await grantBuiltInRole(stack.runtime.db, a.servicePrincipalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: model.id, namespaceId }, boot);
    const copy = async (n: number) => {
      const s = await stack.core.readNamespacedSecret({ name: harnessSecretName(a.id, n), namespace: k8sNamespace });
      return Buffer.from(s.data!.value!, 'base64').toString('utf8');
    };
    await deploy(a.id);
    await stack.runtime.worker.drain();
    expect(await copy(1)).toBe('sk-first');
    const rotated = payload(await stack.gql(`mutation($input: UpdateSecretInput!) { updateSecret(input: $input) { __typename } }`, { input: { id: model.id, value: 'sk-second' } }), 'updateSecret');
    expect(rotated.__typename).toBe('UpdateSecretSuccess');
    // Stored, not delivered: the running revision's copy keeps the old key until a deploy.
    expect(await copy(1)).toBe('sk-first');
    const second = await deploy(a.id);
    await stack.runtime.worker.drain();
    expect(await revision(second.revision.id)).toMatchObject({ state: 'ACTIVE' });
    expect(await copy(2)).toBe('sk-second');
    await expect(copy(1)).rejects.toMatchObject({ code: 404 });
    // Only the model-auth container mounts it; no container gets it as env.
    const d = await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(a.id), namespace: k8sNamespace });
    const mounts = d.spec!.template.spec!.containers.map((c) => [c.name, (c.volumeMounts ?? []).map((m) => m.name)]);
    expect(mounts).toEqual([
      ['gateway', ['config']],
      ['model-auth', ['model-auth']],
    ]);
    expect(JSON.stringify(d.spec!.template.spec!.containers)).not.toContain('secretKeyRef');
  });
});
