import { randomUUID } from 'node:crypto';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { AGENT_ID_LABEL, agentServiceAccountName, gatewayDeploymentName, harnessSecretName, selfConfigRoleBindingName } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, CREATE_SECRET, DELETE_SECRET, NAMESPACE, UPDATE_AGENT, UPDATE_SECRET, binding, payload, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// The rest of the seed flow over GraphQL (deploy-flow.test.ts holds its first
// half): a running agent's secret is rotated, the running revision shows as a stale consumer,
// redeployConsumers brings a fresh one with visible progress; deleteSecret is refused while
// anything uses the secret; stopAgent scales the gateway to zero; deleteAgent then removes its
// objects and keeps its revisions. The worker runs only when the test drains it.

let stack: TestStack;
const values = { telegram: `tg-${randomUUID()}`, model: `sk-${randomUUID()}`, modelRotated: `sk-rotated-${randomUUID()}` };

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number state } } ... on Error { code message } } }`;
const AGENT = `query($id: ID!) { agent(id: $id) { id status desiredState activeRevision { id number state secrets { envName version } }
  revisions(first: 10) { totalCount edges { node { id number state } } } } }`;
const STALE = `query($id: ID!) { secret(id: $id) { id version staleConsumers { total hiddenCount items {
  revisionId revisionNumber agentId agentName envName purpose deliveredVersion currentVersion redeploy { revisionId number state failureCode } } } } }`;
const STALE_LIST = `query($ns: ID!, $stale: Boolean) { namespace(id: $ns) { secrets(stale: $stale) { edges { node { id } } } } }`;
const REDEPLOY = `mutation($input: RedeployConsumersInput!) { redeployConsumers(input: $input) { __typename
  ... on RedeployConsumersSuccess { secret { id version } redeploys { agentId agentName outcome revision { id number state } inProgressRevisionId errorCode } }
  ... on Error { code message } } }`;
const STOP = `mutation($input: StopAgentInput!) { stopAgent(input: $input) { __typename
  ... on StopAgentSuccess { agent { id desiredState status activeRevision { id } } stoppedRevisionIds gatewayScaledToZero } ... on Error { code message } } }`;
const DELETE_AGENT = `mutation($input: DeleteAgentInput!) { deleteAgent(input: $input) { __typename
  ... on DeleteAgentSuccess { deletedAgentId removedObjects { kind name alreadyGone } } ... on Error { code message } } }`;

let namespaceId: string;
let k8sNamespace: string;
const secrets = {} as Record<'telegram' | 'model', { id: string; backendLocator: { name: string } }>;
let agent: { id: string; servicePrincipalId: string };
let configurationId: string;
let firstRevisionId: string;

const drain = () => stack.runtime.worker.drain();
const readAgent = async () => payload(await stack.gql(AGENT, { id: agent.id }), 'agent');
const stale = async (secretId: string) => payload(await stack.gql(STALE, { id: secretId }), 'secret').staleConsumers;
const staleList = async (stale: boolean | null) =>
  payload(await stack.gql(STALE_LIST, { ns: namespaceId, stale }), 'namespace').secrets.edges.map((e: { node: { id: string } }) => e.node.id).sort();
const gatewayReplicas = async () => (await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agent.id), namespace: k8sNamespace })).spec?.replicas;

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 20 } });
  const created = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `lifecycle-${randomUUID().slice(0, 8)}` } }), 'createNamespace');
  namespaceId = created.namespace.id;
  await drain();
  expect(payload(await stack.gql(NAMESPACE, { id: namespaceId }), 'namespace').status).toBe('READY');
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  for (const name of ['telegram', 'model'] as const) {
    const r = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId, name: `${name}-key`, value: values[name] } }), 'createSecret');
    secrets[name] = r.secret;
  }
  const cfg = payload(
    await stack.gql(CREATE_CONFIGURATION, {
      input: {
        namespaceId,
        name: 'gateway',
        values: { channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
        secretBindings: [binding('TELEGRAM_TOKEN', secrets.telegram.id)],
      },
    }),
    'createConfiguration',
  );
  configurationId = cfg.configuration.id;
  agent = payload(
    await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'rotating', configurationId, harnessAuth: { provider: 'openai', source: { id: secrets.model.id } } } }),
    'createAgent',
  ).agent;
  for (const s of Object.values(secrets)) {
    const g = payload(await stack.gql(GRANT, { input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: s.id } } }), 'grantAccess');
    expect(g.__typename).toBe('GrantAccessSuccess');
  }
  const d = payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent');
  expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
  firstRevisionId = d.revision.id;
  await drain();
  expect(await readAgent()).toMatchObject({ status: 'running', activeRevision: { id: firstRevisionId, state: 'ACTIVE' } });
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('seed flow, continued: rotate, redeploy, refuse, stop, delete', { timeout: 180_000 }, () => {
  it('S6 W7 a fresh deploy has no stale consumer', async () => {
    expect(await stale(secrets.model.id)).toEqual({ total: 0, hiddenCount: 0, items: [] });
    expect(await staleList(true)).toEqual([]);
  });

  it('S6 W7 rotating the model key answers "stored, not delivered" naming the running revision, which shows as a stale consumer and in the stale filter', async () => {
    const r = payload(await stack.gql(UPDATE_SECRET, { input: { id: secrets.model.id, value: values.modelRotated } }), 'updateSecret');
    expect(r.__typename, JSON.stringify(r)).toBe('UpdateSecretSuccess');
    expect(r.secret.version).toBe(2);
    expect(r.delivery).toEqual({
      stored: true,
      delivered: false,
      staleRevisionIds: [firstRevisionId],
      message: 'Stored as version 2, not delivered: 1 running revision(s) still hold an older version until redeployed (redeployConsumers).',
    });
    expect(await stale(secrets.model.id)).toEqual({
      total: 1,
      hiddenCount: 0,
      items: [
        {
          revisionId: firstRevisionId,
          revisionNumber: 1,
          agentId: agent.id,
          agentName: 'rotating',
          envName: 'OPENAI_API_KEY',
          purpose: 'harnessAuth',
          deliveredVersion: 1,
          currentVersion: 2,
          redeploy: null,
        },
      ],
    });
    expect(await staleList(true)).toEqual([secrets.model.id]);
    expect(await staleList(false)).toEqual([secrets.telegram.id]);
    // The running model workload still has the bytes it started with (D5: its own copy).
    const copy = await stack.core.readNamespacedSecret({ name: harnessSecretName(agent.id, 1), namespace: k8sNamespace });
    expect(Buffer.from(copy.data!.value!, 'base64').toString('utf8')).toBe(values.model);
  });

  it('S7 deleteSecret is refused while the configuration, the agent, the active revision and pending work reference the secret', async () => {
    const queued = payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent');
    expect(queued.__typename).toBe('DeployAgentSuccess');
    const r = payload(await stack.gql(DELETE_SECRET, { input: { id: secrets.model.id } }), 'deleteSecret');
    expect(r).toMatchObject({ __typename: 'SecretInUseError', code: 'SECRET_IN_USE' });
    const named = r.consumers.items.map((c: { kind: string; id: string }) => `${c.kind}:${c.kind === 'work' ? c.id.slice(0, 4) : c.id}`).sort();
    expect(named).toEqual([`agent:${agent.id}`, `revision:${firstRevisionId}`, 'work:wrk_'].sort());
    const bound = payload(await stack.gql(DELETE_SECRET, { input: { id: secrets.telegram.id } }), 'deleteSecret');
    expect(bound.consumers.items.map((c: { kind: string }) => c.kind).sort()).toEqual(['configuration', 'revision', 'work']);
    // While its redeploy is queued, the stale consumer shows that redeploy's progress.
    expect((await stale(secrets.model.id)).items[0].redeploy).toEqual({ revisionId: queued.revision.id, number: 2, state: 'QUEUED', failureCode: null });
    await drain();
  });

  it('W7 the redeploy that activates leaves the consumer fresh: its revision holds the new version, its model copy the new bytes, and the old copy is retired', async () => {
    expect(await stale(secrets.model.id)).toEqual({ total: 0, hiddenCount: 0, items: [] });
    const a = await readAgent();
    expect(a.activeRevision).toMatchObject({ number: 2, state: 'ACTIVE' });
    expect(a.activeRevision.secrets).toContainEqual({ envName: 'OPENAI_API_KEY', version: 2 });
    const copy = await stack.core.readNamespacedSecret({ name: harnessSecretName(agent.id, 2), namespace: k8sNamespace });
    expect(Buffer.from(copy.data!.value!, 'base64').toString('utf8')).toBe(values.modelRotated);
    await expect(stack.core.readNamespacedSecret({ name: harnessSecretName(agent.id, 1), namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    expect(a.revisions.edges.map((e: { node: { number: number; state: string } }) => [e.node.number, e.node.state])).toEqual([
      [2, 'ACTIVE'],
      [1, 'SUPERSEDED'],
    ]);
  });

  it('W7 redeployConsumers deploys each stale consumer once, and its progress is visible until it is fresh', async () => {
    const rotated = payload(await stack.gql(UPDATE_SECRET, { input: { id: secrets.telegram.id, value: `tg-rotated-${randomUUID()}` } }), 'updateSecret');
    const active = (await readAgent()).activeRevision;
    expect(rotated.delivery.staleRevisionIds).toEqual([active.id]);
    const r = payload(await stack.gql(REDEPLOY, { input: { secretId: secrets.telegram.id } }), 'redeployConsumers');
    expect(r.__typename, JSON.stringify(r)).toBe('RedeployConsumersSuccess');
    expect(r.redeploys).toEqual([{ agentId: agent.id, agentName: 'rotating', outcome: 'STARTED', revision: { id: expect.any(String), number: 3, state: 'QUEUED' }, inProgressRevisionId: null, errorCode: null }]);
    const progress = await stale(secrets.telegram.id);
    expect(progress.items).toEqual([expect.objectContaining({ revisionId: active.id, deliveredVersion: 1, currentVersion: 2, redeploy: { revisionId: r.redeploys[0].revision.id, number: 3, state: 'QUEUED', failureCode: null } })]);
    // Asked again while it is on its way, it does not queue another.
    const again = payload(await stack.gql(REDEPLOY, { input: { secretId: secrets.telegram.id } }), 'redeployConsumers');
    expect(again.redeploys).toEqual([expect.objectContaining({ outcome: 'IN_PROGRESS', inProgressRevisionId: r.redeploys[0].revision.id, revision: null })]);
    await drain();
    expect(await stale(secrets.telegram.id)).toEqual({ total: 0, hiddenCount: 0, items: [] });
    expect((await readAgent()).activeRevision).toMatchObject({ id: r.redeploys[0].revision.id, state: 'ACTIVE', secrets: expect.arrayContaining([{ envName: 'TELEGRAM_TOKEN', version: 2 }]) });
    const audit = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'secret.redeployConsumers', resourceId: secrets.telegram.id } });
    expect(audit.details).toMatchObject({ version: 2, redeploys: [{ agentId: agent.id, outcome: 'STARTED', revisionId: r.redeploys[0].revision.id }, ] });
  });

  it('D4 an agent\'s revisions page the same whether read alone or in a list of agents, newest first, and a cursor continues the first page', async () => {
    const LISTED = `query($ns: ID!) { namespace(id: $ns) { agents(first: 10) { edges { node { id revisions(first: 1) { totalCount edges { cursor node { number } } pageInfo { hasNextPage } } } } } } }`;
    const ALONE = `query($id: ID!, $after: String) { agent(id: $id) { revisions(first: 1, after: $after) { totalCount edges { cursor node { number } } pageInfo { hasNextPage } } } }`;
    const all = (await readAgent()).revisions;
    expect(all.totalCount).toBeGreaterThanOrEqual(2);
    const numbers: number[] = all.edges.map((e: { node: { number: number } }) => e.node.number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    const listed = payload(await stack.gql(LISTED, { ns: namespaceId }), 'namespace').agents.edges.find((e: { node: { id: string } }) => e.node.id === agent.id).node.revisions;
    const alone = payload(await stack.gql(ALONE, { id: agent.id, after: null }), 'agent').revisions;
    expect(listed).toEqual(alone);
    expect(alone).toMatchObject({ totalCount: all.totalCount, edges: [{ node: { number: numbers[0] } }], pageInfo: { hasNextPage: true } });
    const next = payload(await stack.gql(ALONE, { id: agent.id, after: alone.edges[0].cursor }), 'agent').revisions;
    expect(next.edges.map((e: { node: { number: number } }) => e.node.number)).toEqual([numbers[1]]);
  });

  it('S3 the rotated values reach no database row', async () => {
    const rows = await dumpDatabase(stack.databaseUrl);
    expect(findCanary(rows, values.modelRotated)).toEqual([]);
  });

  it('W6 deleteAgent refuses a running agent; stopAgent scales the gateway to zero, sets the desired state stopped and stops the revision', async () => {
    expect(payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }), 'deleteAgent')).toMatchObject({ __typename: 'ConflictError', code: 'AGENT_NOT_STOPPED' });
    expect(await gatewayReplicas()).toBe(1);
    const active = (await readAgent()).activeRevision;
    const r = payload(await stack.gql(STOP, { input: { agentId: agent.id } }), 'stopAgent');
    expect(r).toEqual({
      __typename: 'StopAgentSuccess',
      agent: { id: agent.id, desiredState: 'stopped', status: 'stopped', activeRevision: null },
      stoppedRevisionIds: [active.id],
      gatewayScaledToZero: true,
    });
    expect(await gatewayReplicas()).toBe(0);
    const a = await readAgent();
    expect(a.revisions.edges.find((e: { node: { id: string } }) => e.node.id === active.id).node.state).toBe('STOPPED');
    // D5: the stopped revision's model copy is retired with it.
    await expect(stack.core.readNamespacedSecret({ name: harnessSecretName(agent.id, active.number), namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    // A stopped revision runs nothing: it is no consumer of the secret any more, and never stale.
    const model = payload(await stack.gql(DELETE_SECRET, { input: { id: secrets.model.id } }), 'deleteSecret');
    expect(model.consumers.items.map((c: { kind: string }) => c.kind)).toEqual(['agent']);
    const event = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'agent.stop', resourceId: agent.id } });
    expect(event.details).toMatchObject({ previousDesiredState: 'running', stoppedRevisionIds: [active.id], gateway: 'scaled' });
  });

  it('W6 a deploy queued before a stop never starts the gateway again', async () => {
    const d = payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent');
    expect(d.__typename).toBe('DeployAgentSuccess');
    const r = payload(await stack.gql(STOP, { input: { agentId: agent.id } }), 'stopAgent');
    expect(r.stoppedRevisionIds).toEqual([d.revision.id]);
    await drain();
    expect(await gatewayReplicas()).toBe(0);
    expect((await readAgent()).revisions.edges.find((e: { node: { id: string } }) => e.node.id === d.revision.id).node.state).toBe('STOPPED');
  });

  it('SC5 W4 a revision with selfConfigure binds the agent\'s ServiceAccount to occ-selfconfig-agent in its namespace; one without it removes the binding', async () => {
    const rbac = stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const name = selfConfigRoleBindingName(agent.id);
    const deployWith = async (enabled: boolean) => {
      const u = payload(await stack.gql(UPDATE_AGENT, { input: { id: agent.id, selfConfigure: { enabled, allowedActions: enabled ? ['skills'] : [] } } }), 'updateAgent');
      expect(u.__typename, JSON.stringify(u)).toBe('UpdateAgentSuccess');
      const d = payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent');
      expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
      // The worker waits for the gateway's readiness between runs; on a real server (the E8 lane)
      // that takes longer than one drain, so drain until the revision has settled.
      const settled = await waitFor(async () => {
        await drain();
        const r = await stack.runtime.db.agentRevision.findUniqueOrThrow({ where: { id: d.revision.id }, select: { state: true, failureCode: true, failureMessage: true } });
        return ['ACTIVE', 'FAILED'].includes(r.state) ? r : null;
      }, 'the revision to settle', 60_000);
      if (settled.state === 'FAILED') console.log('DEBUG', stack.logs.filter((l) => /fail|error/i.test(l)).slice(-6).join('\n'));
      expect((await readAgent()).activeRevision, JSON.stringify(settled)).toMatchObject({ id: d.revision.id, state: 'ACTIVE' });
    };
    await deployWith(true);
    const binding = await rbac.readNamespacedRoleBinding({ name, namespace: k8sNamespace });
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-selfconfig-agent' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: agentServiceAccountName(agent.id), namespace: k8sNamespace }]);
    await deployWith(false);
    await expect(rbac.readNamespacedRoleBinding({ name, namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    // On again, and stopped, so that deleteAgent below has the binding to remove.
    await deployWith(true);
    expect(payload(await stack.gql(STOP, { input: { agentId: agent.id } }), 'stopAgent').__typename).toBe('StopAgentSuccess');
    await drain();
  });

  it('deleteAgent removes a stopped agent\'s Kubernetes objects and keeps its revisions; then its configuration and secrets can go', async () => {
    const revisions = await stack.runtime.db.agentRevision.count({ where: { agentId: agent.id } });
    const r = payload(await stack.gql(DELETE_AGENT, { input: { id: agent.id } }), 'deleteAgent');
    expect(r.__typename, JSON.stringify(r)).toBe('DeleteAgentSuccess');
    // The instance goes first (the reconciler renders nothing more from it).
    expect(r.removedObjects[0]).toMatchObject({ kind: 'OpenClawInstance' });
    // RC2: the instance's children go with it (by garbage collection where a collector runs, by
    // deleteAgent where none does, as on the E8 lane): nothing labelled as the agent's is left.
    const selector = `${AGENT_ID_LABEL}=${uuidOf(agent.id)}`;
    await waitFor(
      async () =>
        (await stack.core.listNamespacedConfigMap({ namespace: k8sNamespace, labelSelector: selector })).items.length === 0 &&
        (await stack.core.listNamespacedServiceAccount({ namespace: k8sNamespace, labelSelector: selector })).items.length === 0 &&
        (await stack.apps.listNamespacedDeployment({ namespace: k8sNamespace, labelSelector: selector })).items.length === 0,
      "the agent's ConfigMaps, ServiceAccount and Deployment gone",
    );
    await expect(stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).readNamespacedRoleBinding({ name: selfConfigRoleBindingName(agent.id), namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    await expect(stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agent.id), namespace: k8sNamespace })).rejects.toMatchObject({ code: 404 });
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: agent.id } })).toBe(revisions);
    const cfg = payload(
      await stack.gql(`mutation($input: DeleteConfigurationInput!) { deleteConfiguration(input: $input) { __typename } }`, { input: { id: configurationId } }),
      'deleteConfiguration',
    );
    expect(cfg.__typename).toBe('DeleteConfigurationSuccess');
    for (const s of Object.values(secrets)) {
      expect(payload(await stack.gql(DELETE_SECRET, { input: { id: s.id } }), 'deleteSecret')).toMatchObject({ __typename: 'DeleteSecretSuccess' });
    }
  });
});
