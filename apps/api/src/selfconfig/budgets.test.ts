import { CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions, type CoreV1Event } from '@kubernetes/client-node';
import { agentInstanceName, kubernetesNamespaceName, SELFCONFIG_AGENT_ROLE } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import { kubeConfigAsServiceAccount } from '../kube/service-account-client.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { createReadyNamespace, CREATE_AGENT, payload, waitFor } from '../test/operations.ts';
import { untilTerminal } from '../test/selfconfig.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// SG4 budgets per instance, against the embedded server (or the real one on the lane) with the
// controller's clock injected: requests an hour, applied changes a day, and the pause after K
// rollbacks that only an administrator's resumeSelfConfig ends. Each scenario has an agent and an
// instance of its own, so their budgets do not mix.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const ALL = ['skills', 'config', 'workspaceFiles', 'envVars'];

let stack: TestStack;
let custom: CustomObjectsApi;
let nsId: string;
let k8sNs: string;
let now = new Date('2026-11-30T08:00:00Z');
let counter = 0;

type Obj = { metadata: { name: string; uid: string }; spec: Record<string, unknown>; status?: { phase?: string; message?: string } };

const minutes = (n: number) => n * 60_000;
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};

/** An agent whose instance carries `budget` (as a deploy writes it, through occ-controller). */
async function agentWithBudget(budget: Record<string, number>): Promise<{ agentId: string; instance: string; submit: (spec: Record<string, unknown>) => Promise<Obj> }> {
  const created = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: nsId, name: `b-${++counter}`, selfConfigure: { enabled: true, allowedActions: ALL } } }), 'createAgent');
  expect(created.__typename, JSON.stringify(created)).toBe('CreateAgentSuccess');
  const agentId: string = created.agent.id;
  const instance = agentInstanceName(agentId);
  await custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      plural: 'openclawinstances',
      namespace: k8sNs,
      name: instance,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name: instance }, spec: { image: 'ghcr.io/openclaw/openclaw:1', skills: ['base'], selfConfigure: { enabled: true, allowedActions: ALL, budget } } },
      fieldManager: 'occ-controller',
      force: true,
    },
    apply,
  );
  // SC5: requests come from the instance's own ServiceAccount, bound as a deploy binds it.
  await stack.core.createNamespacedServiceAccount({ namespace: k8sNs, body: { metadata: { name: instance } } });
  await stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: k8sNs,
    body: {
      metadata: { name: `${instance}-selfconfig` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SELFCONFIG_AGENT_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: instance, namespace: k8sNs }],
    },
  });
  const asAgent = (await kubeConfigAsServiceAccount(stack.kubeConfig, k8sNs, instance)).makeApiClient(CustomObjectsApi);
  const submit = async (spec: Record<string, unknown>): Promise<Obj> => {
    const name = `budget-${++counter}`;
    await asAgent.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef: instance, ...spec } } });
    return untilTerminal<Obj>(stack, k8sNs, name);
  };
  return { agentId, instance, submit };
}

async function eventsFor(kind: string, name: string): Promise<CoreV1Event[]> {
  return (await stack.core.listNamespacedEvent({ namespace: k8sNs })).items.filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
}

const history = (uid: string) => stack.runtime.db.selfConfigRequest.findUniqueOrThrow({ where: { uid } });

beforeAll(async () => {
  stack = await startTestStack({ selfConfigClock: () => now, selfConfigWebhookOnLoopback: true });
  custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  // deploy/rbac.yaml's occ-selfconfig-agent, as an installation's manifests install it: where the
  // server judges RBAC and nothing installed it yet, the agents below could file nothing.
  await stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRole({
    body: { metadata: { name: SELFCONFIG_AGENT_ROLE }, rules: [{ apiGroups: [GROUP], resources: ['openclawselfconfigs'], verbs: ['create', 'get', 'list', 'watch'] }] },
  }).catch((e: { code?: number }) => {
    if (e.code !== 409) throw e;
  });
  nsId = await createReadyNamespace(stack, 'budgets');
  k8sNs = kubernetesNamespaceName(nsId);
  await waitFor(async () => stack.runtime.selfConfig.running(), 'the SelfConfig controller to start on the leader');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('SG4 SelfConfig budgets', { timeout: 180_000 }, () => {
  it('SG4 a request over the hourly budget is Denied naming the budget and when it refills; a refused request costs nothing; an hour on it applies', async () => {
    const { instance, submit } = await agentWithBudget({ requestsPerHour: 2 });
    expect((await submit({ addSkills: ['one'] })).status?.phase).toBe('Applied');
    advance(minutes(10));
    expect((await submit({ addSkills: ['two'] })).status?.phase).toBe('Applied');
    advance(minutes(10));
    const over = await submit({ addSkills: ['three'] });
    expect(over.status?.phase).toBe('Denied');
    expect(over.status?.message).toContain('2 request(s) in the last hour (at most 2 per hour)');
    expect(over.status?.message).toContain('refills in 40m 0s, at 2026-11-30T09:00:00.000Z');
    expect((await eventsFor('OpenClawInstance', instance)).some((e) => e.reason === 'SelfConfigDenied' && e.type === 'Warning' && e.message?.includes(over.metadata.name) && e.message.includes('at most 2 per hour'))).toBe(true);
    expect(await history(over.metadata.uid)).toMatchObject({ phase: 'Denied', reason: 'RequestBudgetExceeded', message: over.status?.message });
    // The refused request is not counted: the refill is still an hour after the first.
    advance(minutes(10));
    const again = await submit({ addSkills: ['three'] });
    expect(again.status?.message).toContain('refills in 30m 0s');
    expect((await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name: instance }) as Obj).spec.skills).not.toContain('three');
    advance(minutes(31));
    expect((await submit({ addSkills: ['three'] })).status?.phase).toBe('Applied');
  });

  it('SG4 applied changes per day: the third apply in a day with a budget of 2 is Denied until a day after the first; a refused request is no applied change', async () => {
    const { submit } = await agentWithBudget({ requestsPerHour: 100, appliedPerDay: 2 });
    expect((await submit({ addSkills: ['a'] })).status?.phase).toBe('Applied');
    advance(minutes(60));
    expect((await submit({ addSkills: ['b'] })).status?.phase).toBe('Applied');
    expect((await submit({ configPatch: { gateway: { auth: { mode: 'none' } } } })).status?.phase).toBe('Failed');
    advance(minutes(30));
    const over = await submit({ addSkills: ['c'] });
    expect(over.status?.phase).toBe('Denied');
    expect(over.status?.message).toContain('2 change(s) applied in the last day (at most 2 per day)');
    expect(over.status?.message).toContain('refills in 22h 30m 0s');
    expect(await history(over.metadata.uid)).toMatchObject({ phase: 'Denied', reason: 'AppliedBudgetExceeded' });
    advance(minutes(22 * 60 + 30) + 1_000);
    expect((await submit({ addSkills: ['c'] })).status?.phase).toBe('Applied');
  });

  it('SG4 after K rollbacks the agent is paused until an administrator resumes it: resumeSelfConfig needs administer on the agent and is audited', async () => {
    const { agentId, instance, submit } = await agentWithBudget({ pauseAfterRollbacks: 2 });
    // SG1's rollbacks, as history records them (the health gate writes these rows).
    const rollback = () =>
      stack.runtime.db.selfConfigRequest.create({
        data: { id: newId('selfConfigRequest'), uid: `rolled-back-${++counter}`, k8sNamespace: k8sNs, name: `rb-${counter}`, instanceRef: instance, namespaceId: nsId, agentId, phase: 'RolledBack', completedAt: now },
      });
    await rollback();
    expect((await submit({ addSkills: ['after-one'] })).status?.phase).toBe('Applied');
    await rollback();
    const paused = await submit({ addSkills: ['paused'] });
    expect(paused.status?.phase).toBe('Denied');
    expect(paused.status?.message).toContain('paused after 2 rollback(s)');
    expect(await history(paused.metadata.uid)).toMatchObject({ reason: 'SelfConfigPaused' });
    // Time does not end a pause.
    advance(minutes(3 * 24 * 60));
    expect((await submit({ addSkills: ['paused'] })).status?.phase).toBe('Denied');

    const RESUME = `mutation($input: ResumeSelfConfigInput!) { resumeSelfConfig(input: $input) { __typename ... on ResumeSelfConfigSuccess { rollbacksResumed agent { id } } ... on Error { code } } }`;
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    const viewer = await createHumanPrincipal(stack.runtime.db, `viewer-${counter}`, boot);
    await grantBuiltInRole(stack.runtime.db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, boot);
    const stranger = await createHumanPrincipal(stack.runtime.db, `stranger-${counter}`, boot);
    const admin = await createHumanPrincipal(stack.runtime.db, `admin-${counter}`, boot);
    await grantBuiltInRole(stack.runtime.db, admin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, boot);
    const agentPrincipal = (await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: agentId } })).servicePrincipalId;
    const agentKey = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId: agentPrincipal } }), 'createApiKey').apiKey as string;
    const resume = async (key: string) => payload(await stack.gql(RESUME, { input: { agentId } }, { key }), 'resumeSelfConfig');

    expect(await resume(viewer.apiKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await resume(stranger.apiKey)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    // The agent may not lift its own pause, whatever it can read of itself.
    expect((await resume(agentKey)).__typename).not.toBe('ResumeSelfConfigSuccess');
    expect((await submit({ addSkills: ['paused'] })).status?.phase).toBe('Denied');

    expect(await resume(admin.apiKey)).toMatchObject({ __typename: 'ResumeSelfConfigSuccess', rollbacksResumed: 2, agent: { id: agentId } });
    const audited = await stack.runtime.db.auditEvent.findMany({ where: { action: 'agent.selfconfig.resume', resourceId: agentId } });
    expect(audited.map((a) => [a.actorId, a.outcome, (a.details as { rollbacksResumed?: number }).rollbacksResumed])).toEqual([[admin.principalId, 'SUCCESS', 2]]);
    expect((await submit({ addSkills: ['resumed'] })).status?.phase).toBe('Applied');
    // The next pause comes after K more rollbacks, not after one.
    await rollback();
    expect((await submit({ addSkills: ['one-more'] })).status?.phase).toBe('Applied');
    await rollback();
    expect((await submit({ addSkills: ['two-more'] })).status?.phase).toBe('Denied');
  });
});
