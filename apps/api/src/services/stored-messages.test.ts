import { randomUUID } from 'node:crypto';
import { harnessSecretName } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, binding, payload, CREATE_SECRET, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { asEarlierReleaseSecret } from '../test/earlier-release-secret.ts';

// S4 D4: no stored message (a revision's failure, an agent's runtime, an audit
// entry, a work item's last error, a namespace's status) carries a backend locator. Every failure
// path of deploy and reconcile that can name a Kubernetes Secret is driven here, one after the
// other, and then every row of every table is searched for every Secret name the product made and
// for anything shaped like one.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
let hook: ((revisionId: string) => Promise<void>) | null = null;
const BACKEND_NAME = /occ-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[a-z0-9]{6,12}/;

const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id } } ... on Error { code message } } }`;

async function secret(name: string) {
  const r = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId, name, value: `v-${randomUUID()}` } }), 'createSecret');
  return r.secret as { id: string; backendLocator: { name: string } };
}

async function agent(name: string, secretId: string, harness = false): Promise<{ id: string; servicePrincipalId: string }> {
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: `${name}-cfg`, values: {}, secretBindings: harness ? [] : [binding('TOKEN', secretId)] } }), 'createConfiguration');
  const a = payload(
    await stack.gql(CREATE_AGENT, { input: { namespaceId, name, configurationId: cfg.configuration.id, ...(harness ? { harnessAuth: { provider: 'openai', source: { id: secretId } } } : {}) } }),
    'createAgent',
  ).agent;
  await stack.gql(`mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`, { input: { subjectId: a.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } });
  return a;
}

async function deployDrained(agentId: string): Promise<string> {
  const r = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(r.__typename, JSON.stringify(r)).toBe('DeployAgentSuccess');
  await stack.runtime.worker.drain();
  return r.revision.id;
}

async function state(revisionId: string) {
  return stack.runtime.db.agentRevision.findUniqueOrThrow({ where: { id: revisionId } });
}

/** Each path: makes a failure whose first words would name a Kubernetes Secret. */
const PATHS: Array<{ name: string; run(): Promise<void> }> = [
  {
    name: 'a source replaced (new uid) after admission',
    async run() {
      const s = await secret('replaced');
      const a = await agent('p-replaced', s.id);
      const live = await stack.core.readNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
      const r = payload(await stack.gql(DEPLOY, { input: { agentId: a.id } }), 'deployAgent');
      await stack.core.deleteNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
      await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: s.backendLocator.name, labels: live.metadata?.labels }, data: live.data } });
      await stack.runtime.worker.drain();
      expect(await state(r.revision.id)).toMatchObject({ failureCode: 'BACKEND_IDENTITY_CHANGED' });
    },
  },
  {
    name: 'a source deleted after admission',
    async run() {
      const s = await secret('deleted');
      const a = await agent('p-deleted', s.id);
      const r = payload(await stack.gql(DEPLOY, { input: { agentId: a.id } }), 'deployAgent');
      await stack.core.deleteNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
      await stack.runtime.worker.drain();
      expect(await state(r.revision.id)).toMatchObject({ failureCode: 'BACKEND_IDENTITY_CHANGED' });
    },
  },
  {
    name: 'a source deleted during activation',
    async run() {
      const s = await secret('deleted-late');
      const a = await agent('p-deleted-late', s.id);
      hook = async () => {
        await stack.core.deleteNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace }).catch(() => undefined);
      };
      try {
        expect(await state(await deployDrained(a.id))).toMatchObject({ state: 'FAILED' });
      } finally {
        hook = null;
      }
    },
  },
  {
    name: 'a value changed outside the product after admission',
    async run() {
      const s = await secret('edited');
      const a = await agent('p-edited', s.id);
      const r = payload(await stack.gql(DEPLOY, { input: { agentId: a.id } }), 'deployAgent');
      await asEarlierReleaseSecret(stack, s.id);
      const live = await stack.core.readNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
      await stack.core.replaceNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace, fieldManager: 'kubectl-edit', body: { ...live, data: { value: Buffer.from('x').toString('base64') } } });
      await stack.runtime.worker.drain();
      expect(await state(r.revision.id)).toMatchObject({ failureCode: 'BACKEND_IDENTITY_CHANGED' });
    },
  },
  {
    name: "a model-auth copy gone before its gateway starts (W5's kubelet message)",
    async run() {
      const s = await secret('model');
      const a = await agent('p-model', s.id, true);
      hook = async () => {
        const names = (await stack.core.listNamespacedSecret({ namespace: k8sNamespace })).items.map((x) => x.metadata?.name ?? '');
        for (const name of names.filter((n) => n.startsWith(harnessSecretName(a.id, 1)))) await stack.core.deleteNamespacedSecret({ name, namespace: k8sNamespace });
      };
      try {
        expect(await state(await deployDrained(a.id))).toMatchObject({ failureCode: 'GATEWAY_NOT_READY' });
      } finally {
        hook = null;
      }
    },
  },
  {
    name: "a running gateway's Pod restarted after its Secret was deleted (the kubelet's CreateContainerConfigError, mirrored as the agent's runtime)",
    async run() {
      const s = await secret('pod-restart');
      const a = await agent('p-pod-restart', s.id);
      expect(await state(await deployDrained(a.id))).toMatchObject({ state: 'ACTIVE' });
      await stack.core.deleteNamespacedSecret({ name: s.backendLocator.name, namespace: k8sNamespace });
      for (const pod of (await stack.core.listNamespacedPod({ namespace: k8sNamespace })).items.filter((p) => p.metadata?.labels?.['openclaw.rocks/agent-id'] === a.id.slice(4))) {
        await stack.core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace: k8sNamespace });
      }
      await waitFor(async () => (await stack.runtime.db.agentRuntime.findUnique({ where: { agentId: a.id } }))?.reason === 'CreateContainerConfigError', 'the runtime reporting the kubelet');
    },
  },
  {
    name: "a gateway whose secretKeyRef was pointed elsewhere with kubectl (drift audit)",
    async run() {
      const s = await secret('repointed');
      const a = await agent('p-repointed', s.id);
      expect(await state(await deployDrained(a.id))).toMatchObject({ state: 'ACTIVE' });
      const name = `gateway-${a.id.slice(4)}`;
      const d = await stack.apps.readNamespacedDeployment({ name, namespace: k8sNamespace });
      const containers = d.spec!.template.spec!.containers.map((c, i) => (i === 0 ? { ...c, env: (c.env ?? []).map((e) => (e.name === 'TOKEN' ? { ...e, valueFrom: { secretKeyRef: { name: s.backendLocator.name + 'x', key: 'value' } } } : e)) } : c));
      await stack.apps.replaceNamespacedDeployment({ name, namespace: k8sNamespace, fieldManager: 'kubectl-edit', body: { ...d, spec: { ...d.spec!, template: { ...d.spec!.template, spec: { ...d.spec!.template.spec!, containers } } } } });
      await waitFor(async () => (await stack.runtime.db.auditEvent.count({ where: { action: 'instance.driftRepaired', resourceId: a.id } })) > 0, 'the drift audited');
    },
  },
];

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 30 }, deployWork: { onActivationLocked: async (id) => hook?.(id) } });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `messages-${randomUUID().slice(0, 6)}` } }), 'createNamespace').namespace.id;
  await stack.runtime.worker.drain();
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
}, 120_000);

afterAll(async () => {
  hook = null;
  await stack?.close();
});

describe('stored messages (S4 D4)', { timeout: 300_000 }, () => {
  for (const path of PATHS) {
    it(`S4 D4 ${path.name} fails as it should`, async () => {
      await path.run();
    });
  }

  it('S4 D4 no row of any table holds a Kubernetes Secret name the product made, or anything shaped like one, after every failure path above', async () => {
    const names = (await stack.runtime.db.secret.findMany({ select: { backendName: true } })).map((s) => s.backendName);
    const seen = (await stack.core.listNamespacedSecret({ namespace: k8sNamespace })).items.map((s) => s.metadata?.name ?? '').filter((n) => BACKEND_NAME.test(n));
    // The Secret rows and their version rows (V1) hold the locators by design (the dedicated admin
    // field and the worker's secret context read them); nothing else may.
    const rows = (await dumpDatabase(stack.databaseUrl)).filter((r) => !r.startsWith('Secret: ') && !r.startsWith('SecretVersion: '));
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.some((r) => r.startsWith('AgentRevision: ') && r.includes('BACKEND_IDENTITY_CHANGED'))).toBe(true);
    expect(rows.some((r) => r.startsWith('AgentRuntime: ') && r.includes('CreateContainerConfigError'))).toBe(true);
    for (const name of [...new Set([...names, ...seen])]) expect(rows.filter((r) => r.includes(name)), name).toEqual([]);
    expect(rows.filter((r) => BACKEND_NAME.test(r)).map((r) => r.slice(0, 300))).toEqual([]);
  });
});
