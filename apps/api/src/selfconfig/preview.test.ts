import { CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { agentInstanceName, kubernetesNamespaceName, SELFCONFIG_AGENT_ROLE } from '@occ/domain/kubernetes-names';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfigAsServiceAccount } from '../kube/service-account-client.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { createReadyNamespace, CREATE_AGENT, payload, waitFor } from '../test/operations.ts';
import { untilTerminal } from '../test/selfconfig.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// SG2 against the embedded server (or the real one on the lane): every request records, in its
// status and its history row, the field-level change a server-side dry run answered before the
// apply, with the removals it could not make; previewSelfConfig answers the same and files nothing.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const ALL = ['skills', 'config', 'workspaceFiles', 'envVars'];

let stack: TestStack;
let custom: CustomObjectsApi;
let nsId: string;
let k8sNs: string;
let counter = 0;

type Obj = { metadata: { name: string; uid: string; resourceVersion: string }; spec: Record<string, unknown>; status?: { phase?: string; message?: string; changes?: string[]; skippedRemovals?: unknown[] } };

const PREVIEW = `query($input: RequestSelfConfigInput!) { previewSelfConfig(input: $input) {
  __typename
  ... on PreviewSelfConfigSuccess { preview { outcome reason message changes { op kind name } skippedRemovals { kind name why managers { manager } } } }
  ... on Error { code message } } }`;

async function applyInstance(name: string, manager: string, spec: Record<string, unknown>): Promise<Obj> {
  return (await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name }, spec }, fieldManager: manager, force: true },
    apply,
  )) as Obj;
}

const getInstance = async (name: string) => (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name })) as Obj;

/** An agent with an instance as a deploy writes it, another tool's skill on it, and its ServiceAccount bound to file requests. */
async function newAgent(): Promise<{ agentId: string; instance: string; submit: (spec: Record<string, unknown>) => Promise<Obj> }> {
  const created = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: nsId, name: `p-${++counter}`, selfConfigure: { enabled: true, allowedActions: ALL } } }), 'createAgent');
  expect(created.__typename, JSON.stringify(created)).toBe('CreateAgentSuccess');
  const agentId: string = created.agent.id;
  const instance = agentInstanceName(agentId);
  await applyInstance(instance, 'occ-controller', {
    image: 'ghcr.io/openclaw/openclaw:1',
    skills: ['base'],
    env: [{ name: 'LOG_LEVEL', value: 'info' }],
    workspace: { initialFiles: { 'AGENTS.md': '# agents' } },
    config: { raw: { channels: { a: 1 } } },
    selfConfigure: { enabled: true, allowedActions: ALL },
  });
  await applyInstance(instance, 'other-tool', { skills: ['other'] });
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
    const name = `preview-${++counter}`;
    await asAgent.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef: instance, ...spec } } });
    return untilTerminal<Obj>(stack, k8sNs, name);
  };
  return { agentId, instance, submit };
}

async function keyOf(principalId: string): Promise<string> {
  const created = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId } }), 'createApiKey');
  return created.apiKey as string;
}

const agentKey = async (agentId: string) => keyOf((await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: agentId } })).servicePrincipalId);

beforeAll(async () => {
  stack = await startTestStack({ selfConfigWebhookOnLoopback: true });
  custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  // deploy/rbac.yaml's occ-selfconfig-agent, as an installation's manifests install it (a server
  // that judges RBAC refuses the agents' requests without it).
  await stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRole({
    body: { metadata: { name: SELFCONFIG_AGENT_ROLE }, rules: [{ apiGroups: [GROUP], resources: ['openclawselfconfigs'], verbs: ['create', 'get', 'list', 'watch'] }] },
  }).catch((e: { code?: number }) => {
    if (e.code !== 409) throw e;
  });
  nsId = await createReadyNamespace(stack, 'preview');
  k8sNs = kubernetesNamespaceName(nsId);
  // History's terminal write is made slow (half a second, in the database itself), so that a
  // controller that wrote the terminal phase before its history row would be seen doing it:
  // untilTerminal reads the row the moment the phase shows.
  await stack.runtime.db.$executeRawUnsafe(`
    CREATE FUNCTION slow_terminal_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.phase IN ('Applied', 'Failed', 'Denied') AND NEW.phase IS DISTINCT FROM OLD.phase THEN PERFORM pg_sleep(0.5); END IF;
      RETURN NEW;
    END $$`);
  await stack.runtime.db.$executeRawUnsafe(`CREATE TRIGGER slow_terminal_history BEFORE UPDATE ON "SelfConfigRequest" FOR EACH ROW EXECUTE FUNCTION slow_terminal_history()`);
  await waitFor(async () => stack.runtime.selfConfig.running(), 'the SelfConfig controller to start on the leader');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('SG2 SelfConfig preview', { timeout: 180_000 }, () => {
  it('SG2 an applied request records the field-level change it made, in status and history, names only, with the removals it could not make', async () => {
    const { submit } = await newAgent();
    const first = await submit({
      addSkills: ['fetch'],
      removeSkills: ['other'],
      addEnvVars: [{ name: 'MY_VAR', value: 'preview-literal-one' }],
      addWorkspaceFiles: { 'notes.md': 'remember' },
      configPatch: { channels: { b: 2 } },
    });
    expect(first.status?.phase).toBe('Applied');
    expect(first.status?.changes).toEqual(['+ skill "fetch"', '+ envVar "MY_VAR"', '+ workspaceFile "notes.md"', '+ config "channels.b"']);
    expect(first.status?.skippedRemovals).toEqual([{ kind: 'skill', name: 'other', managers: ['other-tool (Apply)'] }]);
    const row = await stack.runtime.db.selfConfigRequest.findUniqueOrThrow({ where: { uid: first.metadata.uid } });
    expect(row.changes).toEqual([
      { op: 'add', kind: 'skill', name: 'fetch' },
      { op: 'add', kind: 'envVar', name: 'MY_VAR' },
      { op: 'add', kind: 'workspaceFile', name: 'notes.md' },
      { op: 'add', kind: 'config', name: 'channels.b' },
    ]);
    expect(JSON.stringify([first.status, row])).not.toContain('preview-literal-one');

    const second = await submit({ addEnvVars: [{ name: 'MY_VAR', value: 'preview-literal-two' }], removeWorkspaceFiles: ['notes.md', 'AGENTS.md'], configPatch: { channels: { b: null } } });
    expect(second.status?.changes).toEqual(['~ envVar "MY_VAR"', '- workspaceFile "notes.md"', '- config "channels.b"']);
    // SC7: AGENTS.md is occ-controller's; the preview says so rather than listing a removal.
    expect(second.status?.skippedRemovals).toEqual([{ kind: 'workspaceFile', name: 'AGENTS.md', managers: ['occ-controller (Apply)'] }]);
    // An identical request changes nothing, and says so.
    expect((await submit({ addSkills: ['fetch'] })).status?.changes).toEqual([]);
  });

  it("SG2 previewSelfConfig answers the controller's change without filing anything: the agent's own token and administrators may ask, a viewer is FORBIDDEN, another agent NOT_FOUND", async () => {
    const { agentId, instance } = await newAgent();
    const other = await newAgent();
    const before = await getInstance(instance);
    const rowsBefore = await stack.runtime.db.selfConfigRequest.count();
    const listRequests = async () => ((await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs })) as { items: Obj[] }).items.length;
    const objectsBefore = await listRequests();
    const input = { agentId, addSkills: ['planned'], removeSkills: ['other'], configPatch: { channels: { a: 5 } } };
    const expected = {
      __typename: 'PreviewSelfConfigSuccess',
      preview: {
        outcome: 'Applied',
        changes: [{ op: 'add', kind: 'skill', name: 'planned' }, { op: 'change', kind: 'config', name: 'channels.a' }],
        skippedRemovals: [{ kind: 'skill', name: 'other', why: 'not-owned', managers: [{ manager: 'other-tool' }] }],
      },
    };
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    const nsAdmin = await createHumanPrincipal(stack.runtime.db, `ns-admin-${counter}`, boot);
    await grantBuiltInRole(stack.runtime.db, nsAdmin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, boot);
    const viewer = await createHumanPrincipal(stack.runtime.db, `viewer-${counter}`, boot);
    await grantBuiltInRole(stack.runtime.db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, boot);
    const preview = async (key: string | undefined, vars: Record<string, unknown> = input) => payload(await stack.gql(PREVIEW, { input: vars }, key === undefined ? {} : { key }), 'previewSelfConfig');

    expect(await preview(await agentKey(agentId))).toMatchObject(expected);
    expect(await preview(undefined)).toMatchObject(expected); // the installation administrator (bootstrap key)
    expect(await preview(nsAdmin.apiKey)).toMatchObject(expected);
    expect(await preview(viewer.apiKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await preview(await agentKey(other.agentId))).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    // A refusal is previewed as the controller would answer it.
    expect(await preview(await agentKey(agentId), { agentId, configPatch: { gateway: { auth: { mode: 'none' } } } })).toMatchObject({
      __typename: 'PreviewSelfConfigSuccess',
      preview: { outcome: 'Failed', reason: 'ProtectedConfigKey', changes: [] },
    });
    // Nothing filed, nothing changed.
    expect(await stack.runtime.db.selfConfigRequest.count()).toBe(rowsBefore);
    expect(await listRequests()).toBe(objectsBefore);
    expect((await getInstance(instance)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});
