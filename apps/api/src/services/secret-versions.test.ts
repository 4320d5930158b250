import { randomUUID } from 'node:crypto';
import { uuidOf } from '@occ/domain/ids';
import { gatewayDeploymentName, SECRET_ID_LABEL, SECRET_VERSION_LABEL } from '@occ/domain/kubernetes-names';
import { BackendIdentityChanged } from '@occ/domain/secret-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpKubernetes, findCanary } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, DELETE_SECRET, NAMESPACE, UPDATE_SECRET, binding, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { findRevision } from './revisions.ts';
import { secretContext } from './deploy-work.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';
import { retireSecretVersions } from './secret-versions.ts';

// Secret versions as immutable objects (V1), frozen per revision (V2), retired when nothing holds
// them (V3), and shown with who runs which (V5). Tried over GraphQL and against the API server
// (embedded, or the real kube-apiserver on the E8 lane). The worker runs only when the test drains
// it; retirement is called with the time it should believe.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
const first = `ver-one-${randomUUID()}`;
const second = `ver-two-${randomUUID()}`;
let secret: { id: string; backendLocator: { name: string; uid: string } };
let agent: { id: string; servicePrincipalId: string };

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number } } ... on Error { code message } } }`;
const REVISION = `query($id: ID!) { node(id: $id) { ... on AgentRevision { id state failure { code message } secrets { envName version } } } }`;
const VERSIONS = `query($id: ID!) { secret(id: $id) { id version
  versions { number current createdAt firstDeliveredAt lastDeliveredAt retiredAt }
  exposure { hiddenCount items { version agentId agentName revisionId revisionNumber envNames since } } } }`;

const drain = () => stack.runtime.worker.drain();
const db = () => stack.runtime.db;

async function deploy(agentId: string): Promise<string> {
  const d = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
  await drain();
  const r = payload(await stack.gql(REVISION, { id: d.revision.id }), 'node');
  expect(r.state, JSON.stringify(r)).toBe('ACTIVE');
  return d.revision.id;
}

async function versionRow(secretId: string, number: number) {
  return db().secretVersion.findUniqueOrThrow({ where: { secretId_number: { secretId, number } } });
}

async function gatewayRef(agentId: string): Promise<string | undefined> {
  const d = await stack.apps.readNamespacedDeployment({ name: gatewayDeploymentName(agentId), namespace: k8sNamespace });
  return d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'TOKEN')?.valueFrom?.secretKeyRef?.name;
}

async function exists(name: string): Promise<boolean> {
  return stack.core.readNamespacedSecret({ name, namespace: k8sNamespace }).then(
    () => true,
    (error: { code?: number }) => {
      if (error.code === 404) return false;
      throw error;
    },
  );
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 30 } });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `versions-${randomUUID().slice(0, 8)}` } }), 'createNamespace').namespace.id;
  await drain();
  expect(payload(await stack.gql(NAMESPACE, { id: namespaceId }), 'namespace').status).toBe('READY');
  k8sNamespace = (await db().namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secret = await createSecretOk(stack, namespaceId, 'rotated-token', first);
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'versions-cfg', values: {}, secretBindings: [binding('TOKEN', secret.id)] } }), 'createConfiguration');
  expect(cfg.__typename, JSON.stringify(cfg)).toBe('CreateConfigurationSuccess');
  agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'versions-agent', configurationId: cfg.configuration.id } }), 'createAgent').agent;
  const g = payload(await stack.gql(GRANT, { input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } } }), 'grantAccess');
  expect(g.__typename).toBe('GrantAccessSuccess');
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('secret versions', { timeout: 180_000 }, () => {
  let v1: { name: string; uid: string };
  let v2: { name: string; uid: string };
  let firstRevision: string;

  it('V1 S2 each version is its own immutable Kubernetes Secret, labelled with the secret id and its version, recorded with the current version in one row move', async () => {
    const one = await versionRow(secret.id, 1);
    expect(one).toMatchObject({ backendName: secret.backendLocator.name, backendUid: secret.backendLocator.uid, backendKey: 'value', retiredAt: null });
    v1 = { name: one.backendName, uid: one.backendUid };
    const live = await stack.core.readNamespacedSecret({ name: v1.name, namespace: k8sNamespace });
    expect(live.immutable).toBe(true);
    expect(live.metadata?.labels).toMatchObject({ [SECRET_ID_LABEL]: uuidOf(secret.id), [SECRET_VERSION_LABEL]: '1' });
    expect(Object.keys(live.data ?? {})).toEqual(['value']);
    // The API server itself refuses a change of a version's bytes.
    await expect(
      stack.core.replaceNamespacedSecret({ name: v1.name, namespace: k8sNamespace, body: { ...live, data: { value: Buffer.from('tampered').toString('base64') } } }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('V2 a revision freezes the version it delivers, and its gateway names that version\'s object', async () => {
    firstRevision = await deploy(agent.id);
    expect((await db().agentRevisionSecret.findMany({ where: { revisionId: firstRevision } })).map((s) => [s.envName, s.version])).toEqual([['TOKEN', 1]]);
    expect(await gatewayRef(agent.id)).toBe(v1.name);
    // V5: the version's window starts when a revision holding it becomes active.
    expect((await versionRow(secret.id, 1)).firstDeliveredAt).toBeInstanceOf(Date);
  });

  it('V1 V2 S6 updateSecret writes a new object and moves the current version; the running gateway keeps the object its revision froze', async () => {
    const r = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: second } }), 'updateSecret');
    expect(r, JSON.stringify(r)).toMatchObject({ __typename: 'UpdateSecretSuccess', secret: { version: 2 }, delivery: { stored: true, delivered: false, staleRevisionIds: [firstRevision] } });
    const two = await versionRow(secret.id, 2);
    v2 = { name: two.backendName, uid: two.backendUid };
    expect(v2.name).not.toBe(v1.name);
    const row = await db().secret.findUniqueOrThrow({ where: { id: secret.id } });
    expect(row).toMatchObject({ version: 2, backendName: v2.name, backendUid: v2.uid });
    const [old, now] = await Promise.all([v1, v2].map((v) => stack.core.readNamespacedSecret({ name: v.name, namespace: k8sNamespace })));
    expect(Buffer.from(old!.data!.value!, 'base64').toString()).toBe(first);
    expect(Buffer.from(now!.data!.value!, 'base64').toString()).toBe(second);
    expect(now!.immutable).toBe(true);
    expect(now!.metadata?.labels?.[SECRET_VERSION_LABEL]).toBe('2');
    // Nothing changed under the running Pod: its gateway still names version 1's object.
    await stack.runtime.instances.resync();
    await stack.runtime.instances.idle();
    expect(await gatewayRef(agent.id)).toBe(v1.name);
  });

  it('V2 W7 a redeploy freezes and delivers the current version', async () => {
    const next = await deploy(agent.id);
    expect((await db().agentRevisionSecret.findMany({ where: { revisionId: next } })).map((s) => s.version)).toEqual([2]);
    expect(await gatewayRef(agent.id)).toBe(v2.name);
    expect((await db().agentRevision.findUniqueOrThrow({ where: { id: firstRevision } })).state).toBe('SUPERSEDED');
    const one = await versionRow(secret.id, 1);
    expect(one.lastDeliveredAt).toBeInstanceOf(Date);
    expect(one.lastDeliveredAt!.getTime()).toBeGreaterThanOrEqual(one.firstDeliveredAt!.getTime());
  });

  it('V2 a revision admitted before a rotation and started after it delivers the version it froze, never the newer one', async () => {
    const token = await createSecretOk(stack, namespaceId, 'mid-rotation', `mid-1-${randomUUID()}`);
    const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'mid-cfg', values: {}, secretBindings: [binding('TOKEN', token.id)] } }), 'createConfiguration');
    const other = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'mid-agent', configurationId: cfg.configuration.id } }), 'createAgent').agent;
    await stack.gql(GRANT, { input: { subjectId: other.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: token.id } } });
    const d = payload(await stack.gql(DEPLOY, { input: { agentId: other.id } }), 'deployAgent');
    expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
    // Rotated while the revision waits in the queue: it still holds version 1.
    expect(payload(await stack.gql(UPDATE_SECRET, { input: { id: token.id, value: `mid-2-${randomUUID()}` } }), 'updateSecret').__typename).toBe('UpdateSecretSuccess');
    await drain();
    expect(payload(await stack.gql(REVISION, { id: d.revision.id }), 'node')).toMatchObject({ state: 'ACTIVE', secrets: [{ envName: 'TOKEN', version: 1 }] });
    expect(await gatewayRef(other.id)).toBe(token.backendLocator.name);
    // The exposure says so exactly: this agent runs version 1 while version 2 is current.
    const exposure = payload(await stack.gql(VERSIONS, { id: token.id }), 'secret').exposure;
    expect(exposure.items.map((i: { agentId: string; version: number }) => [i.agentId, i.version])).toEqual([[other.id, 1]]);
  });

  it('V3 a version no running revision holds stays for the retention window after it was last delivered, then its object is deleted and the row says when', async () => {
    const deps = { db: db(), secretDriver: stack.runtime.deps.secretDriver, logger: stack.runtime.deps.logger };
    const day = 24 * 60 * 60 * 1000;
    // Within the window the superseded revision is a rollback candidate: version 1 stays.
    expect(await retireSecretVersions(deps, { now: new Date(), retentionMs: day })).toEqual([]);
    expect(await exists(v1.name)).toBe(true);
    const later = new Date(Date.now() + day + 60_000);
    const retired = await retireSecretVersions(deps, { now: later, retentionMs: day });
    expect(retired).toEqual([{ secretId: secret.id, number: 1, result: 'deleted' }]);
    expect(await exists(v1.name)).toBe(false);
    expect((await versionRow(secret.id, 1)).retiredAt).toEqual(later);
    // The current version, held by the running revision, is never retired.
    expect(await exists(v2.name)).toBe(true);
    expect((await versionRow(secret.id, 2)).retiredAt).toBeNull();
    expect(await retireSecretVersions(deps, { now: later, retentionMs: day })).toEqual([]);
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'secret.versionsRetired', resourceId: secret.id } });
    expect(audit.details).toMatchObject({ versions: [{ number: 1, object: 'deleted' }] });
  });

  it('V3 a version never delivered and no longer current is retired at once; one a running revision holds is kept whatever the time', async () => {
    const deps = { db: db(), secretDriver: stack.runtime.deps.secretDriver, logger: stack.runtime.deps.logger };
    const lonely = await createSecretOk(stack, namespaceId, 'unbound', `lonely-${randomUUID()}`);
    expect(payload(await stack.gql(UPDATE_SECRET, { input: { id: lonely.id, value: `lonely-2-${randomUUID()}` } }), 'updateSecret').__typename).toBe('UpdateSecretSuccess');
    const retired = await retireSecretVersions(deps, { now: new Date(), retentionMs: 24 * 60 * 60 * 1000 });
    expect(retired).toEqual([{ secretId: lonely.id, number: 1, result: 'deleted' }]);
    expect(await exists(lonely.backendLocator.name)).toBe(false);
    // The agent's running revision holds version 2 of the other secret: far in the future it stays.
    expect(await retireSecretVersions(deps, { now: new Date(Date.now() + 365 * 24 * 60 * 60 * 1000), retentionMs: 1000 })).toEqual([]);
    expect(await exists(v2.name)).toBe(true);
  });

  it('V3 P1 a retired version\'s bytes are gone from the cluster; the current version\'s are only in its own object', async () => {
    const objects = await dumpKubernetes(stack.core, stack.apps);
    expect(findCanary(objects.values(), first)).toEqual([]);
    const holding = [...objects].filter(([, text]) => findCanary([text], second).length > 0).map(([key]) => key);
    expect(holding).toEqual([`Secret/${k8sNamespace}/${v2.name}`]);
  });

  it('V5 Secret.versions and the exposure matrix: every version\'s window, which agent runs which since when; never a value or a locator', async () => {
    const result = await stack.gql(VERSIONS, { id: secret.id });
    expect(result.body.errors).toBeUndefined();
    const s = payload(result, 'secret');
    expect(s.versions.map((v: { number: number; current: boolean; retiredAt: string | null }) => [v.number, v.current, v.retiredAt !== null])).toEqual([
      [2, true, false],
      [1, false, true],
    ]);
    expect(s.versions[0].firstDeliveredAt).not.toBeNull();
    expect(s.versions[1].lastDeliveredAt).not.toBeNull();
    const active = await db().agentRevision.findFirstOrThrow({ where: { agentId: agent.id, state: 'ACTIVE' } });
    expect(s.exposure).toEqual({
      hiddenCount: 0,
      items: [{ version: 2, agentId: agent.id, agentName: 'versions-agent', revisionId: active.id, revisionNumber: active.number, envNames: ['TOKEN'], since: active.activatedAt!.toISOString() }],
    });
    const text = JSON.stringify(result.body);
    for (const hidden of [v1.name, v1.uid, v2.name, v2.uid, k8sNamespace]) expect(text).not.toContain(hidden);
    expect(findCanary([text], first)).toEqual([]);
    expect(findCanary([text], second)).toEqual([]);
  });

  it('V5 S4 every reader: a namespace admin and a viewer of the secret alone see the versions; exposure names only agents they may read; an agent token learns no more than its grants', async () => {
    const by = stack.runtime.installation.bootstrapPrincipalId;
    const nsAdmin = await createHumanPrincipal(db(), `ns-admin-${randomUUID().slice(0, 6)}`, by);
    await grantBuiltInRole(db(), nsAdmin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId }, by);
    const viewer = await createHumanPrincipal(db(), `viewer-${randomUUID().slice(0, 6)}`, by);
    await grantBuiltInRole(db(), viewer.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId }, by);
    const key = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId: agent.servicePrincipalId } }), 'createApiKey');
    const read = async (apiKey: string) => {
      const result = await stack.gql(VERSIONS, { id: secret.id }, { key: apiKey });
      const text = JSON.stringify(result.body);
      for (const hidden of [v1.name, v1.uid, v2.name, v2.uid]) expect(text).not.toContain(hidden);
      expect(findCanary([text], second)).toEqual([]);
      return result.body.data?.secret as { versions: Array<{ number: number }>; exposure: { hiddenCount: number; items: Array<{ agentId: string }> } } | null;
    };
    const admin = await read(nsAdmin.apiKey);
    expect(admin!.versions.map((v) => v.number)).toEqual([2, 1]);
    expect(admin!.exposure).toMatchObject({ hiddenCount: 0, items: [{ agentId: agent.id }] });
    const narrow = await read(viewer.apiKey);
    expect(narrow!.versions.map((v) => v.number)).toEqual([2, 1]);
    expect(narrow!.exposure).toEqual({ hiddenCount: 1, items: [] });
    const asAgent = await read(key.apiKey);
    if (asAgent) expect(asAgent.exposure.items.every((i) => i.agentId === agent.id)).toBe(true);
  });

  it('V1 S7 deleteSecret deletes every version object still kept', async () => {
    const doomed = await createSecretOk(stack, namespaceId, 'doomed', `doomed-1-${randomUUID()}`);
    expect(payload(await stack.gql(UPDATE_SECRET, { input: { id: doomed.id, value: `doomed-2-${randomUUID()}` } }), 'updateSecret').__typename).toBe('UpdateSecretSuccess');
    const names = (await db().secretVersion.findMany({ where: { secretId: doomed.id } })).map((v) => v.backendName);
    expect(names).toHaveLength(2);
    for (const name of names) expect(await exists(name)).toBe(true);
    expect(payload(await stack.gql(DELETE_SECRET, { input: { id: doomed.id } }), 'deleteSecret').__typename).toBe('DeleteSecretSuccess');
    for (const name of names) expect(await exists(name)).toBe(false);
    expect(await db().secretVersion.count({ where: { secretId: doomed.id } })).toBe(0);
  });

  it('V2 D3 a version object deleted and re-created out of band (another uid) is never delivered', async () => {
    const active = await db().agentRevision.findFirstOrThrow({ where: { agentId: agent.id, state: 'ACTIVE' } });
    const context = await secretContext(db(), stack.runtime.installation.installationId, (await findRevision(db(), active.id))!);
    expect(context.sources.map((s) => [s.name, s.uid])).toEqual([[v2.name, v2.uid]]);
    await stack.runtime.deps.computeDriver.verifySources(context);
    const live = await stack.core.readNamespacedSecret({ name: v2.name, namespace: k8sNamespace });
    await stack.core.deleteNamespacedSecret({ name: v2.name, namespace: k8sNamespace });
    await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: v2.name, labels: live.metadata?.labels }, immutable: true, stringData: { value: 'forged' } } });
    await expect(stack.runtime.deps.computeDriver.verifySources(context)).rejects.toBeInstanceOf(BackendIdentityChanged);
    // A retired version is not delivered either: its revision's context refuses it by name.
    await expect(secretContext(db(), stack.runtime.installation.installationId, (await findRevision(db(), firstRevision))!)).rejects.toMatchObject({ code: 'SECRET_VERSION_RETIRED' });
  });
});
