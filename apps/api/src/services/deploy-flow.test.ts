import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, type V1Deployment } from '@kubernetes/client-node';
import { gatewayDeploymentName, harnessSecretName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, dumpKubernetes, findCanary } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, CREATE_SECRET, NAMESPACE, binding, payload } from '../test/operations.ts';
import { gatewayConfigMapOf, readInstance } from '../test/instances.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// The seed flow ("Secret Storage and Gateway Delivery") over GraphQL, on the
// whole stack: store, bind, create an agent, grant its principal, deploy, reach active; then the
// refusals of A3 and W2. The worker runs only when the test drains it, so the test decides what
// happens between a deploy and its activation.

let stack: TestStack;
const canaries = { telegram: `tg-${randomUUID()}`, github: `gh-${randomUUID()}`, model: `sk-${randomUUID()}` };

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on GrantAccessSuccess { binding { id } } ... on Error { code message } } }`;
const REVOKE = `mutation($input: RevokeAccessInput!) { revokeAccess(input: $input) { __typename ... on RevokeAccessSuccess { changed } ... on Error { code message } } }`;
const REVISION_FIELDS = `id number state failure { code message } configurationId configurationGeneration secretDriverId servicePrincipalId
  secrets { purpose envName version source { kind namespaceId id } }`;
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename
  ... on DeployAgentSuccess { revision { ${REVISION_FIELDS} } }
  ... on ForbiddenError { missingGrant { subjectId action resourceKind resourceId namespaceId roleId } }
  ... on Error { code message } } }`;
const EXPLAIN = `query($agentId: ID!) { explainDeploy(agentId: $agentId) { __typename
  ... on DeployExplanation { allowed checks { id rule passed message fix secretId missingGrant { subjectId action resourceKind resourceId roleId } } }
  ... on Error { code message } } }`;
const AGENT = `query($id: ID!) { agent(id: $id) { id status desiredState activeRevision { ${REVISION_FIELDS} }
  revisions(first: 10) { totalCount edges { node { id number state failure { code message } } } } } }`;

async function drain(): Promise<void> {
  await stack.runtime.worker.drain();
}

let namespaceId: string;
let k8sNamespace: string;
const secrets: Record<'telegram' | 'github' | 'model', { id: string; backendLocator: { name: string } }> = {} as never;
let agent: { id: string; servicePrincipalId: string };
const grantIds: Record<string, string> = {};

async function grantAgent(secretId: string): Promise<string> {
  const r = payload(await stack.gql(GRANT, { input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } }), 'grantAccess');
  expect(r.__typename, JSON.stringify(r)).toBe('GrantAccessSuccess');
  return r.binding.id;
}

async function revokeAgent(secretId: string): Promise<void> {
  const r = payload(await stack.gql(REVOKE, { input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } }), 'revokeAccess');
  expect(r).toMatchObject({ __typename: 'RevokeAccessSuccess', changed: true });
}

async function deploy() {
  return payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent');
}

async function readAgent() {
  return payload(await stack.gql(AGENT, { id: agent.id }), 'agent');
}

async function gateway(): Promise<V1Deployment> {
  return stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agent.id), namespace: k8sNamespace });
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 20 } });
  const created = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `flow-${randomUUID().slice(0, 8)}` } }), 'createNamespace');
  namespaceId = created.namespace.id;
  await drain();
  expect(payload(await stack.gql(NAMESPACE, { id: namespaceId }), 'namespace').status).toBe('READY');
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  for (const [name, value] of Object.entries(canaries) as Array<[keyof typeof canaries, string]>) {
    const r = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId, name: `${name}-key`, value } }), 'createSecret');
    expect(r.__typename).toBe('CreateSecretSuccess');
    secrets[name] = r.secret;
  }
  const cfg = payload(
    await stack.gql(CREATE_CONFIGURATION, {
      input: {
        namespaceId,
        name: 'gateway',
        values: { skills: ['github'], channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
        secretBindings: [binding('TELEGRAM_TOKEN', secrets.telegram.id), binding('GITHUB_TOKEN', secrets.github.id)],
      },
    }),
    'createConfiguration',
  );
  expect(cfg.__typename, JSON.stringify(cfg)).toBe('CreateConfigurationSuccess');
  const a = payload(
    await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'helper', configurationId: cfg.configuration.id, harnessAuth: { provider: 'openai', source: { id: secrets.model.id } } } }),
    'createAgent',
  );
  expect(a.__typename, JSON.stringify(a)).toBe('CreateAgentSuccess');
  agent = a.agent;
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('seed flow: store, bind, grant, deploy', { timeout: 180_000 }, () => {
  it('D6 explainDeploy names every missing Agent grant with its fix, and writes nothing', async () => {
    const auditBefore = await stack.runtime.db.auditEvent.count();
    const revisionsBefore = await stack.runtime.db.agentRevision.count();
    const e = payload(await stack.gql(EXPLAIN, { agentId: agent.id }), 'explainDeploy');
    expect(e.__typename).toBe('DeployExplanation');
    expect(e.allowed).toBe(false);
    const failing = e.checks.filter((c: { passed: boolean }) => !c.passed);
    expect(failing.map((c: { id: string; secretId: string }) => [c.id, c.secretId])).toEqual([
      ['AGENT_MAY_OPERATE_SECRET', secrets.github.id],
      ['AGENT_MAY_OPERATE_SECRET', secrets.telegram.id],
      ['AGENT_MAY_OPERATE_SECRET', secrets.model.id],
    ]);
    expect(failing[0]).toMatchObject({
      rule: 'D2',
      fix: `Grant ${agent.servicePrincipalId} the role secret-operator on secret ${secrets.github.id}.`,
      missingGrant: { subjectId: agent.servicePrincipalId, action: 'operate', resourceKind: 'secret', resourceId: secrets.github.id, roleId: 'rol_secret-operator' },
    });
    const passed = e.checks.filter((c: { passed: boolean }) => c.passed).map((c: { id: string }) => c.id);
    expect(passed).toEqual(expect.arrayContaining(['CALLER_MAY_DEPLOY', 'NAMESPACE_READY', 'AGENT_ACTIVE', 'CHANNEL_BINDINGS', 'CALLER_MAY_OPERATE_SECRET', 'BACKEND_IDENTITY']));
    expect(await stack.runtime.db.auditEvent.count()).toBe(auditBefore);
    expect(await stack.runtime.db.agentRevision.count()).toBe(revisionsBefore);
  });

  it('A3 D2 a deploy refused for the Agent\'s principal names it and the grant to add; nothing is queued', async () => {
    const r = await deploy();
    expect(r).toEqual({
      __typename: 'ForbiddenError',
      code: 'FORBIDDEN',
      message: `The agent's service principal ${agent.servicePrincipalId} may not operate secret ${secrets.github.id}: grant it the role secret-operator on that secret.`,
      missingGrant: { subjectId: agent.servicePrincipalId, action: 'operate', resourceKind: 'secret', resourceId: secrets.github.id, namespaceId, roleId: 'rol_secret-operator' },
    });
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await stack.runtime.db.workItem.count({ where: { kind: 'revision.deploy' } })).toBe(0);
    const denied = await stack.runtime.db.auditEvent.findFirst({ where: { action: 'agent.deploy', outcome: 'DENIED', resourceId: agent.id } });
    expect(denied?.reason).toBe('AGENT_NOT_AUTHORIZED');
  });

  it('D4 W1 W4 W5 after the grants a deploy freezes a revision, and the worker brings it to active with exactly the bound secretKeyRefs on the gateway container', async () => {
    for (const s of Object.values(secrets)) grantIds[s.id] = await grantAgent(s.id);
    const r = await deploy();
    expect(r.__typename, JSON.stringify(r)).toBe('DeployAgentSuccess');
    expect(r.revision).toMatchObject({ number: 1, state: 'QUEUED', secretDriverId: 'kubernetes-secret/v1', servicePrincipalId: agent.servicePrincipalId, configurationGeneration: 1 });
    expect(r.revision.secrets).toEqual([
      { purpose: 'binding', envName: 'GITHUB_TOKEN', version: 1, source: { kind: 'secret', namespaceId, id: secrets.github.id } },
      { purpose: 'binding', envName: 'TELEGRAM_TOKEN', version: 1, source: { kind: 'secret', namespaceId, id: secrets.telegram.id } },
      { purpose: 'harnessAuth', envName: 'OPENAI_API_KEY', version: 1, source: { kind: 'secret', namespaceId, id: secrets.model.id } },
    ]);
    // S7's handle on pending work: the item names every secret it delivers.
    const item = await stack.runtime.db.workItem.findFirstOrThrow({ where: { kind: 'revision.deploy' } });
    expect(item.payload).toMatchObject({ revisionId: r.revision.id, secretIds: [secrets.github.id, secrets.telegram.id, secrets.model.id] });
    await drain();
    const a = await readAgent();
    expect(a, JSON.stringify(a)).toMatchObject({ status: 'running', desiredState: 'running', activeRevision: { id: r.revision.id, state: 'ACTIVE', failure: null } });
    const d = await gateway();
    const containers = d.spec!.template.spec!.containers;
    const refs = (c: (typeof containers)[number]) => (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => ({ name: e.name, ref: e.valueFrom!.secretKeyRef }));
    expect(refs(containers.find((c) => c.name === 'gateway')!)).toEqual([
      { name: 'GITHUB_TOKEN', ref: { name: secrets.github.backendLocator.name, key: 'value', optional: false } },
      { name: 'TELEGRAM_TOKEN', ref: { name: secrets.telegram.backendLocator.name, key: 'value', optional: false } },
    ]);
    for (const c of containers.filter((x) => x.name !== 'gateway')) expect(refs(c)).toEqual([]);
    const modelAuth = await stack.core.readNamespacedSecret({ name: harnessSecretName(agent.id, 1), namespace: k8sNamespace });
    expect(Buffer.from(modelAuth.data!.value!, 'base64').toString('utf8')).toBe(canaries.model);
    // RC1 RC2: the gateway is the instance's rendering: an immutable ConfigMap named by its content, owned by the instance.
    const instance = await readInstance(stack, k8sNamespace, agent.id);
    expect(instance?.spec.revision).toEqual({ id: r.revision.id, number: 1 });
    const cm = await gatewayConfigMapOf(stack, k8sNamespace, agent.id);
    expect(cm.immutable).toBe(true);
    expect(cm.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'OpenClawInstance', uid: instance!.metadata.uid, controller: true })]);
    expect(d.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'OpenClawInstance', uid: instance!.metadata.uid, controller: true })]);
  });

  it('S3 P1 no secret value reaches the database, a log line, a response or any Kubernetes object but its own Secret and the harness copy', async () => {
    const own = new Set([...Object.values(secrets).map((s) => `Secret/${k8sNamespace}/${s.backendLocator.name}`), `Secret/${k8sNamespace}/${harnessSecretName(agent.id, 1)}`]);
    const kube = await dumpKubernetes(stack.core, stack.apps);
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    const instances = (await custom.listNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', namespace: k8sNamespace, plural: 'openclawinstances' })) as { items: unknown[] };
    const accounts = await stack.core.listNamespacedServiceAccount({ namespace: k8sNamespace });
    const texts = [
      ...(await dumpDatabase(stack.databaseUrl)),
      ...stack.logs,
      ...stack.responses,
      ...[...kube].filter(([key]) => !own.has(key)).map(([, v]) => v),
      ...instances.items.map((i) => JSON.stringify(i)),
      ...accounts.items.map((i) => JSON.stringify(i)),
    ];
    expect(kube.size).toBeGreaterThan(own.size);
    for (const value of Object.values(canaries)) expect(findCanary(texts, value)).toEqual([]);
    // The search can fail: the harness copy holds the model key.
    expect(findCanary([kube.get(`Secret/${k8sNamespace}/${harnessSecretName(agent.id, 1)}`)!], canaries.model)).not.toEqual([]);
  });

  it('D4 W3 neither a revision nor its work item holds a locator: no Kubernetes Secret name or uid is stored with them', async () => {
    const rows = (await dumpDatabase(stack.databaseUrl)).filter((r) => /^(AgentRevision|AgentRevisionSecret|WorkItem): /.test(r));
    expect(rows.some((r) => r.startsWith('AgentRevision: '))).toBe(true);
    const locators = Object.values(secrets).flatMap((s) => [s.backendLocator.name, (s.backendLocator as { uid?: string }).uid ?? '']).filter(Boolean);
    expect(locators.length).toBe(6);
    for (const locator of locators) expect(rows.filter((r) => r.includes(locator))).toEqual([]);
  });

  it('A3 after a revoke the next deploy is refused naming the missing grant, and the running gateway is untouched', async () => {
    const before = await gateway();
    await revokeAgent(secrets.telegram.id);
    const r = await deploy();
    expect(r).toMatchObject({
      __typename: 'ForbiddenError',
      code: 'FORBIDDEN',
      missingGrant: { subjectId: agent.servicePrincipalId, action: 'operate', resourceKind: 'secret', resourceId: secrets.telegram.id, namespaceId, roleId: 'rol_secret-operator' },
    });
    await drain();
    const after = await gateway();
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect((await readAgent()).activeRevision).toMatchObject({ number: 1, state: 'ACTIVE' });
    grantIds[secrets.telegram.id] = await grantAgent(secrets.telegram.id);
  });

  it('W2 a grant revoked between deploy and activation fails the revision with an authorization code before anything is delivered', async () => {
    const before = await gateway();
    const r = await deploy();
    expect(r.__typename).toBe('DeployAgentSuccess');
    expect(r.revision.number).toBe(2);
    await revokeAgent(secrets.github.id);
    await drain();
    const a = await readAgent();
    const second = a.revisions.edges.map((e: { node: unknown }) => e.node).find((n: { number: number }) => n.number === 2);
    expect(second).toMatchObject({ state: 'FAILED', failure: { code: 'AGENT_NOT_AUTHORIZED' } });
    expect(second.failure.message).toContain(secrets.github.id);
    // Nothing of revision 2 reached the cluster, and revision 1 still runs.
    expect((await readInstance(stack, k8sNamespace, agent.id))?.spec.revision).toMatchObject({ number: 1 });
    await expect(stack.core.readNamespacedSecret({ name: harnessSecretName(agent.id, 2), namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    expect((await gateway()).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(a.activeRevision).toMatchObject({ number: 1, state: 'ACTIVE' });
    const failed = await stack.runtime.db.auditEvent.findFirst({ where: { action: 'revision.fail', resourceId: second.id } });
    expect(failed).toMatchObject({ outcome: 'FAILURE', reason: 'AGENT_NOT_AUTHORIZED' });
    grantIds[secrets.github.id] = await grantAgent(secrets.github.id);
  });

  it('D5 W4 W1 a Secret that is not ours under the revision\'s model-auth name fails the revision with BACKEND_IDENTITY_CHANGED at once, adopts nothing, and revision 1 keeps running', async () => {
    const before = await gateway();
    // Someone else's object where revision 3's harness copy goes: the control plane must not adopt it.
    const squatter = harnessSecretName(agent.id, 3);
    await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: squatter }, stringData: { value: 'not the model key' } } });
    const r = await deploy();
    expect(r.__typename, JSON.stringify(r)).toBe('DeployAgentSuccess');
    expect(r.revision.number).toBe(3);
    await drain();
    const a = await readAgent();
    const third = a.revisions.edges.map((e: { node: unknown }) => e.node).find((n: { number: number }) => n.number === 3);
    // Permanent on the first attempt (not retried until ATTEMPTS_EXHAUSTED), with a message free of Kubernetes names.
    expect(third).toMatchObject({ state: 'FAILED', failure: { code: 'BACKEND_IDENTITY_CHANGED' } });
    expect(third.failure.message).toContain('not ours');
    expect(third.failure.message).not.toContain(squatter);
    const item = await stack.runtime.db.workItem.findFirstOrThrow({ where: { payload: { path: ['revisionId'], equals: third.id } } });
    expect(item).toMatchObject({ attempts: 1 });
    const live = await stack.core.readNamespacedSecret({ name: squatter, namespace: k8sNamespace });
    expect(Buffer.from(live.data!.value!, 'base64').toString()).toBe('not the model key');
    expect(live.metadata?.labels ?? {}).toEqual({});
    expect((await gateway()).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(a.activeRevision).toMatchObject({ number: 1, state: 'ACTIVE' });
    const failed = await stack.runtime.db.auditEvent.findFirst({ where: { action: 'revision.fail', resourceId: third.id } });
    expect(failed).toMatchObject({ outcome: 'FAILURE', reason: 'BACKEND_IDENTITY_CHANGED' });
    await stack.core.deleteNamespacedSecret({ name: squatter, namespace: k8sNamespace });
  });
});
