import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { contentHash } from '@occ/domain/content-hash';
import { uuidOf } from '@occ/domain/ids';
import { AGENT_ID_LABEL, agentInstanceName, gatewayDeploymentName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInstance, runningGateway } from '../test/instances.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_SECRET, UPDATE_CONFIGURATION, UPDATE_SECRET, binding, createReadyNamespace, createSecretOk, payload, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { asEarlierReleaseSecret } from '../test/earlier-release-secret.ts';

// The instance reconciler (RC2) and what it does with changes made outside the product (RC4, RC5),
// tried as a cluster user would make them: kubectl-style deletes and patches under their own field
// managers, against the embedded server or the real kube-apiserver (E8 lane). Each change is
// repaired or shown, and recorded naming who made it.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
const VALUE = `v1-${randomUUID()}`;
let secret: { id: string; backendLocator: { name: string } };

/** Lets a test act inside a revision's activation (its locks held). */
let duringActivation: ((revisionId: string) => Promise<void>) | null = null;

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number } } ... on Error { code message } } }`;
const REVISION = `query($id: ID!) { node(id: $id) { ... on AgentRevision { id number state failure { code message } secrets { envName version } } } }`;
const AGENT = `query($id: ID!) { agent(id: $id) { status runtime { phase ready reason message } } }`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read back as JSON and checked by assertions
async function deployed(agentId: string): Promise<Record<string, any>> {
  const r = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(r.__typename, JSON.stringify(r)).toBe('DeployAgentSuccess');
  return waitFor(async () => {
    const rev = payload(await stack.gql(REVISION, { id: r.revision.id }), 'node');
    return ['ACTIVE', 'FAILED'].includes(rev.state) ? rev : null;
  }, `revision ${r.revision.number} to end`, 90_000);
}

/** An agent binding TOKEN to the test's secret, granted, and deployed to running. */
async function runningAgent(name: string): Promise<string> {
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: `${name}-cfg`, values: { tools: { a: 1 } }, secretBindings: [binding('TOKEN', secret.id)] } }), 'createConfiguration');
  const agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name, configurationId: cfg.configuration.id } }), 'createAgent').agent;
  await stack.gql(`mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`, {
    input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } },
  });
  expect(await deployed(agent.id)).toMatchObject({ state: 'ACTIVE' });
  await waitFor(async () => payload(await stack.gql(AGENT, { id: agent.id }), 'agent').status === 'running', `${name} running`);
  return agent.id;
}

async function events(agentId: string, reason: string): Promise<string[]> {
  const list = await stack.core.listNamespacedEvent({ namespace: k8sNamespace, fieldSelector: `involvedObject.name=${agentInstanceName(agentId)}` });
  return list.items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
}

async function audits(agentId: string, reason: string) {
  return stack.runtime.db.auditEvent.findMany({ where: { action: 'instance.driftRepaired', resourceId: agentId, reason }, orderBy: { at: 'asc' } });
}

beforeAll(async () => {
  stack = await startTestStack({ env: { gatewayReadySeconds: 60 }, instanceResyncMs: 2_000, deployWork: { onActivationLocked: async (id) => duringActivation?.(id) } });
  namespaceId = await createReadyNamespace(stack, `drift-${randomUUID().slice(0, 6)}`);
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secret = await createSecretOk(stack, namespaceId, 'token', VALUE);
}, 180_000);

afterAll(async () => {
  duringActivation = null;
  await stack?.close();
});

describe('the instance reconciler', { timeout: 240_000 }, () => {
  it('RC2 renders every child from the instance, owned by it, and a resync with nothing changed writes nothing', async () => {
    const agentId = await runningAgent('rendered');
    const instance = (await readInstance(stack, k8sNamespace, agentId))!;
    const owner = { kind: 'OpenClawInstance', name: instance.metadata.name, uid: instance.metadata.uid, controller: true };
    const selector = `${AGENT_ID_LABEL}=${uuidOf(agentId)}`;
    const configMaps = (await stack.core.listNamespacedConfigMap({ namespace: k8sNamespace, labelSelector: selector })).items;
    expect(configMaps.map((c) => c.metadata?.name)).toEqual([instance.status?.configMap]);
    expect(configMaps[0]!.metadata?.name).toBe(`gateway-config-${uuidOf(agentId)}-${contentHash(configMaps[0]!.data)}`);
    for (const child of [configMaps[0]!, await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agentId), namespace: k8sNamespace }), await stack.core.readNamespacedServiceAccount({ name: instance.metadata.name, namespace: k8sNamespace })]) {
      expect(child.metadata?.ownerReferences).toEqual([expect.objectContaining(owner)]);
    }
    expect(instance.status).toMatchObject({ observedGeneration: instance.metadata.generation, phase: 'Running', running: { generation: instance.metadata.generation } });
    const writes = () => ['apply', 'update', 'patch', 'delete', 'create'].map((v) => stack.runtime.instances.calls[v] ?? 0);
    await stack.runtime.instances.idle();
    const before = writes();
    await stack.runtime.instances.resync();
    await stack.runtime.instances.idle();
    expect(writes()).toEqual(before);
  });

  it('RC2 a new rendering replaces the ConfigMap: the old one is deleted once, after the gateway runs the new one, and never again', async () => {
    const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'rerendered-cfg', values: { tools: { a: 1 } }, secretBindings: [binding('TOKEN', secret.id)] } }), 'createConfiguration').configuration;
    const agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'rerendered', configurationId: cfg.id } }), 'createAgent').agent;
    await stack.gql(`mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`, {
      input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } },
    });
    expect(await deployed(agent.id)).toMatchObject({ state: 'ACTIVE' });
    const selector = `${AGENT_ID_LABEL}=${uuidOf(agent.id)}`;
    const [first] = (await stack.core.listNamespacedConfigMap({ namespace: k8sNamespace, labelSelector: selector })).items;
    await stack.runtime.instances.idle();
    const deletes = () => stack.runtime.instances.calls.delete ?? 0;
    const before = deletes();
    const updated = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: cfg.id, expectedGeneration: 1, values: { tools: { a: 2 } } } }), 'updateConfiguration');
    expect(updated.__typename, JSON.stringify(updated)).toBe('UpdateConfigurationSuccess');
    expect(await deployed(agent.id)).toMatchObject({ state: 'ACTIVE' });
    const after = await waitFor(async () => {
      const items = (await stack.core.listNamespacedConfigMap({ namespace: k8sNamespace, labelSelector: selector })).items;
      return items.length === 1 && items[0]!.metadata?.uid !== first!.metadata?.uid ? items : null;
    }, 'the old ConfigMap gone');
    expect(JSON.parse(after[0]!.data?.['openclaw.json'] ?? '{}')).toMatchObject({ tools: { a: 2 } });
    // Events of the rollout keep coming after the delete; a resync looks at everything again.
    await stack.runtime.instances.resync();
    await stack.runtime.instances.idle();
    expect(deletes() - before).toBe(1);
  });

  it('RC4 a gateway Deployment deleted outside the product is re-created, recorded as deleted outside, and the agent runs again', async () => {
    const agentId = await runningAgent('deleted-gateway');
    const first = await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agentId), namespace: k8sNamespace });
    await stack.apps.deleteNamespacedDeployment({ name: gatewayDeploymentName(agentId), namespace: k8sNamespace });
    const again = await waitFor(async () => {
      const d = await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agentId), namespace: k8sNamespace }).catch(() => null);
      return d && d.metadata?.uid !== first.metadata?.uid ? d : null;
    }, 'the gateway re-created');
    expect(again.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'TOKEN')?.valueFrom?.secretKeyRef?.name).toBe(secret.backendLocator.name);
    await waitFor(async () => (await events(agentId, 'DriftRepaired')).some((m) => m.includes('was deleted outside the product')), 'the DriftRepaired event');
    expect((await audits(agentId, 'DELETED_OUTSIDE')).length).toBeGreaterThan(0);
    await waitFor(async () => payload(await stack.gql(AGENT, { id: agentId }), 'agent').status === 'running', 'running again');
  });

  it('RC4 a secretKeyRef pointed at another Secret, and an env var added, by kubectl on the Deployment are undone; the event and the audit name kubectl-patch and the paths', async () => {
    const agentId = await runningAgent('repointed');
    const name = gatewayDeploymentName(agentId);
    const live = await stack.apps.readNamespacedDeployment({ name, namespace: k8sNamespace });
    const env = live.spec!.template.spec!.containers[0]!.env!.map((e) => (e.name === 'TOKEN' ? { ...e, valueFrom: { secretKeyRef: { name: 'someone-elses', key: 'value' } } } : e));
    await stack.apps.patchNamespacedDeployment(
      { name, namespace: k8sNamespace, fieldManager: 'kubectl-patch', body: { spec: { template: { spec: { containers: [{ ...live.spec!.template.spec!.containers[0]!, env: [...env, { name: 'EXTRA', value: 'x' }] }, ...live.spec!.template.spec!.containers.slice(1)] } } } } },
      mergePatch,
    );
    await waitFor(async () => {
      const d = await stack.apps.readNamespacedDeployment({ name, namespace: k8sNamespace });
      const names = d.spec!.template.spec!.containers[0]!.env!;
      return names.find((e) => e.name === 'TOKEN')?.valueFrom?.secretKeyRef?.name === secret.backendLocator.name && !names.some((e) => e.name === 'EXTRA');
    }, 'the Deployment restored');
    const [message] = await waitFor(async () => {
      const found = (await events(agentId, 'DriftRepaired')).filter((m) => m.includes('kubectl-patch'));
      return found.length ? found : null;
    }, 'the DriftRepaired event naming kubectl-patch');
    expect(message).toContain('Deployment');
    expect(message).toContain('kubectl-patch (Update)');
    const audit = (await audits(agentId, 'CHANGED_OUTSIDE')).find((a) => JSON.stringify(a.details).includes('kubectl-patch'))!;
    expect(JSON.stringify(audit.details)).toContain('env[name=\\"TOKEN\\"]');
    expect(JSON.stringify(audit.details)).not.toContain(secret.backendLocator.name);
    await waitFor(async () => {
      const [gateway] = (await runningGateway(stack, k8sNamespace, agentId)).filter((c) => c.container === 'gateway');
      return gateway?.env.TOKEN === VALUE && gateway.env.EXTRA === undefined;
    }, 'the gateway running the restored template');
  });

  it('RC4 the gateway ConfigMap deleted outside the product is re-created under the same name', async () => {
    const agentId = await runningAgent('deleted-config');
    const instance = (await readInstance(stack, k8sNamespace, agentId))!;
    const name = instance.status!.configMap as string;
    const before = await stack.core.readNamespacedConfigMap({ name, namespace: k8sNamespace });
    await stack.core.deleteNamespacedConfigMap({ name, namespace: k8sNamespace });
    const after = await waitFor(async () => {
      const c = await stack.core.readNamespacedConfigMap({ name, namespace: k8sNamespace }).catch(() => null);
      return c && c.metadata?.uid !== before.metadata?.uid ? c : null;
    }, 'the ConfigMap re-created');
    expect(after.data).toEqual(before.data);
  });

  it('RC4 W5 a gateway Deployment deleted while a revision activates is re-created: the revision goes active, not ATTEMPTS_EXHAUSTED', async () => {
    const agentId = await runningAgent('deleted-mid-activation');
    duringActivation = async () => {
      await stack.apps.deleteNamespacedDeployment({ name: gatewayDeploymentName(agentId), namespace: k8sNamespace }).catch(() => undefined);
    };
    try {
      const second = await deployed(agentId);
      expect(second).toMatchObject({ number: 2, state: 'ACTIVE', failure: null });
    } finally {
      duringActivation = null;
    }
    await waitFor(async () => payload(await stack.gql(AGENT, { id: agentId }), 'agent').status === 'running', 'running');
  });

  it("RC4 D2 a secret reference written into the instance by kubectl is never delivered and is shown; a field of the revision's changed by kubectl is applied again, naming the writer", async () => {
    const agentId = await runningAgent('instance-edited');
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    const instanceName = agentInstanceName(agentId);
    const live = (await readInstance(stack, k8sNamespace, agentId))!;
    await custom.patchNamespacedCustomObject(
      {
        group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name: instanceName, fieldManager: 'kubectl-patch',
        body: { spec: { image: 'ghcr.io/someone/else:1', env: [...(live.spec.env as unknown[]), { name: 'STOLEN', valueFrom: { secretKeyRef: { name: secret.backendLocator.name, key: 'value' } } }] } },
      },
      mergePatch,
    );
    // The revision's image is back (applied again by occ-controller); the added reference stays unrendered.
    const restored = await waitFor(async () => {
      const i = await readInstance(stack, k8sNamespace, agentId);
      return i?.spec.image === live.spec.image ? i : null;
    }, "the revision's image back");
    expect((restored.spec.env as Array<{ name: string }>).map((e) => e.name)).toContain('STOLEN');
    const agent = await waitFor(async () => {
      const a = payload(await stack.gql(AGENT, { id: agentId }), 'agent');
      return a.runtime?.reason === 'UnadmittedReference' ? a : null;
    }, 'the unadmitted reference shown');
    expect(agent.runtime.message).toContain('STOLEN');
    expect(agent.runtime.message).toContain('kubectl-patch');
    const [gateway] = (await runningGateway(stack, k8sNamespace, agentId)).filter((c) => c.container === 'gateway');
    expect(gateway?.env.STOLEN).toBeUndefined();
    expect(gateway?.env.TOKEN).toBe(VALUE);
    const audit = (await audits(agentId, 'CHANGED_OUTSIDE')).find((a) => JSON.stringify(a.details).includes('OpenClawInstance'))!;
    expect(JSON.stringify(audit.details)).toContain('kubectl-patch');
  });

  it('RC1 RC4 an instance deleted outside the product is made again from the active revision, and its gateway runs', async () => {
    const agentId = await runningAgent('instance-deleted');
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    const before = (await readInstance(stack, k8sNamespace, agentId))!;
    await custom.deleteNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawinstances', namespace: k8sNamespace, name: agentInstanceName(agentId) });
    const again = await waitFor(async () => {
      const i = await readInstance(stack, k8sNamespace, agentId);
      return i && i.metadata.uid !== before.metadata.uid ? i : null;
    }, 'the instance made again');
    expect(again.spec.revision).toEqual(before.spec.revision);
    expect((await audits(agentId, 'DELETED_OUTSIDE')).some((a) => JSON.stringify(a.details).includes('OpenClawInstance'))).toBe(true);
    await waitFor(async () => {
      const [gateway] = (await runningGateway(stack, k8sNamespace, agentId)).filter((c) => c.container === 'gateway');
      return gateway?.env.TOKEN === VALUE;
    }, 'the gateway running again');
  });

  it("RC4 W7 a secret's value changed with kubectl counts as a new version, audited naming the manager: the running revision shows stale, and a redeploy delivers the new bytes as that version", async () => {
    const agentId = await runningAgent('value-edited');
    const edited = `edited-${randomUUID()}`;
    // Only an object an earlier release wrote can change in place: V1 objects are immutable.
    await asEarlierReleaseSecret(stack, secret.id);
    const live = await stack.core.readNamespacedSecret({ name: secret.backendLocator.name, namespace: k8sNamespace });
    await stack.core.replaceNamespacedSecret({ name: secret.backendLocator.name, namespace: k8sNamespace, fieldManager: 'kubectl-edit', body: { ...live, data: { value: Buffer.from(edited).toString('base64') } } });
    const before = (await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: secret.id } })).version;
    expect(await stack.runtime.instances.scanSecrets()).toContain(secret.id);
    expect((await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: secret.id } })).version).toBe(before + 1);
    const audit = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'secret.changedOutside', resourceId: secret.id }, orderBy: { at: 'desc' } });
    expect(audit.details).toMatchObject({ previousVersion: before, version: before + 1, writers: [expect.objectContaining({ manager: 'kubectl-edit', operation: 'Update' })] });
    // Recorded once: a second look changes nothing.
    expect(await stack.runtime.instances.scanSecrets()).toEqual([]);
    const stale = payload(await stack.gql(`query($id: ID!) { secret(id: $id) { staleConsumers { total items { agentId deliveredVersion currentVersion } } } }`, { id: secret.id }), 'secret');
    expect(stale.staleConsumers.items).toContainEqual({ agentId, deliveredVersion: before, currentVersion: before + 1 });
    const redeployed = await deployed(agentId);
    expect(redeployed.secrets).toEqual([{ envName: 'TOKEN', version: before + 1 }]);
    await waitFor(async () => {
      const gateways = (await runningGateway(stack, k8sNamespace, agentId)).filter((c) => c.container === 'gateway');
      return gateways.length === 1 && gateways[0]!.env.TOKEN === edited;
    }, 'the gateway running the edited bytes');
    // Another change outside the product later (another manager) shows again.
    await stack.core.replaceNamespacedSecret({
      name: secret.backendLocator.name,
      namespace: k8sNamespace,
      fieldManager: 'kubectl-replace',
      body: { ...(await stack.core.readNamespacedSecret({ name: secret.backendLocator.name, namespace: k8sNamespace })), data: { value: Buffer.from(VALUE).toString('base64') } },
    });
    expect(await stack.runtime.instances.scanSecrets()).toContain(secret.id);
    const back = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: VALUE } }), 'updateSecret');
    expect(back.__typename).toBe('UpdateSecretSuccess');
  });
});

describe('a Kubernetes namespace lost outside the product (RC5)', { timeout: 240_000 }, () => {
  let lostNs: string;
  let lostK8s: string;
  let lostAgent: string;
  let lostSecret: string;
  const NS = `query($id: ID!) { namespace(id: $id) { id status statusMessage } }`;

  it('RC5 shows on its Namespace with the reason, its agents say the gateway is gone, and a deploy answers a typed error with the way out; nothing stays deploying', async () => {
    lostNs = await createReadyNamespace(stack, `lost-${randomUUID().slice(0, 6)}`);
    lostK8s = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: lostNs } })).k8sName;
    const s = await createSecretOk(stack, lostNs, 'lost-token', 'lost-value');
    lostSecret = s.id;
    const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: lostNs, name: 'lost-cfg', values: {}, secretBindings: [binding('TOKEN', s.id)] } }), 'createConfiguration');
    const agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: lostNs, name: 'lost-agent', configurationId: cfg.configuration.id } }), 'createAgent').agent;
    lostAgent = agent.id;
    await stack.gql(`mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`, {
      input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: s.id } },
    });
    expect(await deployed(agent.id)).toMatchObject({ state: 'ACTIVE' });
    await stack.core.deleteNamespace({ name: lostK8s });
    const ns = await waitFor(async () => {
      const n = payload(await stack.gql(NS, { id: lostNs }), 'namespace');
      return n.status === 'LOST' ? n : null;
    }, 'the Namespace LOST', 60_000);
    expect(ns.statusMessage).toContain(lostK8s);
    expect(ns.statusMessage).toContain('outside the product');
    expect(ns.statusMessage).toContain('secret values stored in it were deleted with it');
    const a = await waitFor(async () => {
      const x = payload(await stack.gql(AGENT, { id: agent.id }), 'agent');
      return x.runtime?.reason === 'NamespaceLost' && x.status === 'degraded' ? x : null;
    }, 'the agent degraded: its namespace lost');
    expect(a.runtime).toMatchObject({ ready: false, phase: 'Missing' });
    // Every write into it answers NAMESPACE_NOT_READY, naming the Kubernetes namespace that went and the way out.
    const writes: Array<[string, Record<string, unknown>]> = [
      ['deployAgent', payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent')],
      ['createSecret', payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: lostNs, name: 'after-loss', value: 'after-loss-value' } }), 'createSecret')],
      ['updateSecret', payload(await stack.gql(UPDATE_SECRET, { input: { id: s.id, value: 'after-loss-value' } }), 'updateSecret')],
    ];
    for (const [what, answer] of writes) {
      expect(answer, what).toMatchObject({ code: 'NAMESPACE_NOT_READY', message: expect.stringContaining(lostK8s) });
      expect(answer.message, what).toContain('reprovisionNamespace');
    }
    const explained = payload(await stack.gql(`query($id: ID!) { explainDeploy(agentId: $id) { ... on DeployExplanation { checks { id passed fix } } } }`, { id: agent.id }), 'explainDeploy');
    expect(explained.checks.find((c: { id: string }) => c.id === 'NAMESPACE_READY')).toMatchObject({ passed: false, fix: expect.stringContaining('reprovisionNamespace') });
    expect(await stack.runtime.db.auditEvent.findFirst({ where: { action: 'namespace.lost', resourceId: lostNs } })).toMatchObject({ outcome: 'FAILURE', reason: 'KUBERNETES_NAMESPACE_LOST' });
    // Nothing is left on its way: no pending deploy work for the agent.
    await waitFor(async () => (await stack.runtime.db.workItem.count({ where: { concurrencyKey: { in: [agent.id, `await:${agent.id}`] }, state: { in: ['PENDING', 'RUNNING'] } } })) === 0, 'no pending work', 60_000);
  });

  it('RC5 an administrator re-provisions it, is told the values are gone, stores them again, and the agent runs (namespace controller)', async () => {
    const r = payload(
      await stack.gql(`mutation($input: ReprovisionNamespaceInput!) { reprovisionNamespace(input: $input) { __typename ... on ReprovisionNamespaceSuccess { namespace { status } note } ... on Error { code message } } }`, { input: { id: lostNs } }),
      'reprovisionNamespace',
    );
    expect(r.__typename, JSON.stringify(r)).toBe('ReprovisionNamespaceSuccess');
    expect(r.note).toContain('store each secret’s value again');
    await waitFor(async () => payload(await stack.gql(NS, { id: lostNs }), 'namespace').status === 'READY', 'READY again', 60_000);
    const again = payload(await stack.gql(UPDATE_SECRET, { input: { id: lostSecret, value: 'stored-again' } }), 'updateSecret');
    expect(again.__typename, JSON.stringify(again)).toBe('UpdateSecretSuccess');
    expect(again.delivery.message).toContain('stored in a new one');
    expect(await deployed(lostAgent)).toMatchObject({ state: 'ACTIVE' });
    await waitFor(async () => payload(await stack.gql(AGENT, { id: lostAgent }), 'agent').status === 'running', 'running again');
    const [gateway] = (await runningGateway(stack, lostK8s, lostAgent)).filter((c) => c.container === 'gateway');
    expect(gateway?.env.TOKEN).toBe('stored-again');
  });
});
