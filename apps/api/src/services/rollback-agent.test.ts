import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { runningGateway } from '../test/instances.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, UPDATE_CONFIGURATION, UPDATE_SECRET, binding, createReadyNamespace, createSecretOk, payload, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// V7: rollbackAgent and AgentRevision.diff. Fixture: an agent on configuration `conf`, deployed as
// revision 1 (A_TOKEN → first, version 1); then the configuration changes (a value changed, one
// added, one removed; A_TOKEN retargeted to second; B_TOKEN → first added), first rotates to
// version 2, the agent applies a SelfConfig request, and revision 2 is deployed.

let stack: TestStack;
const canaries = { first: `rollback-first-${randomUUID()}`, rotated: `rollback-rotated-${randomUUID()}`, second: `rollback-second-${randomUUID()}` };

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number state } } ... on Error { code message } } }`;
const REVISION = `query($id: ID!) { node(id: $id) { ... on AgentRevision { id number state failure { code message } values configurationGeneration secrets { purpose envName version source { id } } } } }`;
const ROLLBACK = `mutation($input: RollbackAgentInput!) { rollbackAgent(input: $input) { __typename
  ... on RollbackAgentSuccess { revision { id number state values configurationId configurationGeneration secrets { purpose envName version source { id } } } rolledBackTo { id number }
    deliveries { purpose envName secretId requestedVersion versionUsed requestedVersionRetained } }
  ... on Error { code message } ... on ValidationError { field } } }`;
const DIFF = `query($id: ID!, $against: ID!) { node(id: $id) { ... on AgentRevision { diff(against: $against) { __typename
  ... on RevisionDiff { from { number } to { number } configurationChanged values { path change before after }
    bindings { purpose envName change before { secretId version } after { secretId version } }
    versions { purpose envName secretId fromVersion toVersion }
    selfConfigRequests { id phase request } }
  ... on Error { code message } ... on ValidationError { field } } } } }`;
const REQUEST = `mutation($input: RequestSelfConfigInput!) { requestSelfConfig(input: $input) { __typename ... on RequestSelfConfigSuccess { request { id } } ... on Error { code message } } }`;
const HISTORY = `query($id: ID!) { selfConfigRequests(agentId: $id, first: 50) { edges { node { id phase message } } } }`;

let namespaceId: string;
let k8sNamespace: string;
let secrets: { first: string; second: string };
let configurationId: string;
let agent: { id: string; servicePrincipalId: string };
let agentKey: string;
let other: { id: string; revisionId: string };
let rev1: string;
let rev2: string;
let selfConfigRequestId: string;

async function deployAndWait(agentId: string): Promise<string> {
  const d = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(d.__typename, JSON.stringify(d)).toBe('DeployAgentSuccess');
  return waitActive(d.revision.id);
}

async function waitActive(id: string): Promise<string> {
  const done = await waitFor(async () => {
    const rev = payload(await stack.gql(REVISION, { id }), 'node');
    return ['ACTIVE', 'FAILED'].includes(rev.state) ? rev : null;
  }, `revision ${id} to end`, 90_000);
  expect(done, JSON.stringify(done)).toMatchObject({ state: 'ACTIVE' });
  return id;
}

async function newAgent(name: string, configuration: string, selfConfigure?: Record<string, unknown>) {
  const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name, configurationId: configuration, ...(selfConfigure ? { selfConfigure } : {}) } }), 'createAgent');
  expect(a.__typename, JSON.stringify(a)).toBe('CreateAgentSuccess');
  for (const secretId of Object.values(secrets)) {
    const g = payload(await stack.gql(GRANT, { input: { subjectId: a.agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } }), 'grantAccess');
    expect(g.__typename).toBe('GrantAccessSuccess');
  }
  return { id: a.agent.id as string, servicePrincipalId: a.agent.servicePrincipalId as string };
}

async function reader(role: string): Promise<string> {
  const p = await createHumanPrincipal(stack.runtime.db, `${role}-${randomUUID().slice(0, 8)}`, stack.runtime.installation.bootstrapPrincipalId);
  await grantBuiltInRole(stack.runtime.db, p.principalId, role, { kind: 'namespace', namespaceId }, stack.runtime.installation.bootstrapPrincipalId);
  return p.apiKey;
}

const rollback = async (toRevision: string, key?: string, agentId = agent.id) => payload(await stack.gql(ROLLBACK, { input: { agentId, toRevision } }, { key }), 'rollbackAgent');

beforeAll(async () => {
  stack = await startTestStack({ selfConfigWebhookOnLoopback: true, env: { gatewayReadySeconds: 60 } });
  namespaceId = await createReadyNamespace(stack, `rollback-${randomUUID().slice(0, 8)}`);
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secrets = {
    first: (await createSecretOk(stack, namespaceId, 'first', canaries.first)).id,
    second: (await createSecretOk(stack, namespaceId, 'second', canaries.second)).id,
  };
  const c = payload(
    await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'conf', values: { model: 'openai/m-one', web: { enabled: false }, old: 'gone-later' }, secretBindings: [binding('A_TOKEN', secrets.first)] } }),
    'createConfiguration',
  );
  expect(c.__typename, JSON.stringify(c)).toBe('CreateConfigurationSuccess');
  configurationId = c.configuration.id;
  agent = await newAgent('roller', configurationId, { enabled: true, allowedActions: ['skills'] });
  agentKey = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } } }`, { i: { principalId: agent.servicePrincipalId } }), 'createApiKey').apiKey;
  rev1 = await deployAndWait(agent.id);

  const u = payload(
    await stack.gql(UPDATE_CONFIGURATION, {
      input: { id: configurationId, expectedGeneration: 1, values: { model: 'openai/m-two', web: { enabled: false }, extra: { on: true } }, secretBindings: [binding('A_TOKEN', secrets.second), binding('B_TOKEN', secrets.first)] },
    }),
    'updateConfiguration',
  );
  expect(u.__typename, JSON.stringify(u)).toBe('UpdateConfigurationSuccess');
  expect(payload(await stack.gql(UPDATE_SECRET, { input: { id: secrets.first, value: canaries.rotated } }), 'updateSecret').__typename).toBe('UpdateSecretSuccess');
  const r = payload(await stack.gql(REQUEST, { input: { agentId: agent.id, addSkills: ['rollback-skill'] } }, { key: agentKey }), 'requestSelfConfig');
  expect(r.__typename, JSON.stringify(r)).toBe('RequestSelfConfigSuccess');
  selfConfigRequestId = r.request.id;
  const done = await waitFor(async () => {
    const node = payload(await stack.gql(HISTORY, { id: agent.id }), 'selfConfigRequests').edges.map((e: { node: { id: string; phase: string } }) => e.node).find((n: { id: string }) => n.id === selfConfigRequestId);
    return node && ['Applied', 'Failed', 'Denied', 'RolledBack'].includes(node.phase) ? node : null;
  }, 'the SelfConfig request to end', 60_000);
  expect(done, JSON.stringify(done)).toMatchObject({ phase: 'Applied' });
  rev2 = await deployAndWait(agent.id);

  const o = await newAgent('other', configurationId);
  other = { id: o.id, revisionId: await deployAndWait(o.id) };
}, 400_000);

afterAll(async () => {
  await stack?.close();
});

describe('V7 revision diff and rollback', { timeout: 200_000 }, () => {
  it('V7 diff: configuration keys, retargeted and added bindings, secret versions, and the SelfConfig request applied in between', async () => {
    const diff = payload(await stack.gql(DIFF, { id: rev2, against: rev1 }), 'node').diff;
    expect(diff).toEqual({
      __typename: 'RevisionDiff',
      from: { number: 1 },
      to: { number: 2 },
      configurationChanged: true,
      values: [
        { path: ['extra'], change: 'ADDED', before: null, after: { on: true } },
        { path: ['model'], change: 'CHANGED', before: 'openai/m-one', after: 'openai/m-two' },
        { path: ['old'], change: 'REMOVED', before: 'gone-later', after: null },
      ],
      bindings: [
        { purpose: 'binding', envName: 'A_TOKEN', change: 'RETARGETED', before: { secretId: secrets.first, version: 1 }, after: { secretId: secrets.second, version: 1 } },
        { purpose: 'binding', envName: 'B_TOKEN', change: 'ADDED', before: null, after: { secretId: secrets.first, version: 2 } },
      ],
      versions: [],
      selfConfigRequests: [expect.objectContaining({ id: selfConfigRequestId, phase: 'Applied' })],
    });
    // The other way round, the same changes inverted.
    const back = payload(await stack.gql(DIFF, { id: rev1, against: rev2 }), 'node').diff;
    expect(back.values.map((v: { path: string[]; change: string }) => [v.path.join('.'), v.change])).toEqual([['extra', 'REMOVED'], ['model', 'CHANGED'], ['old', 'ADDED']]);
    expect(back.bindings.map((b: { envName: string; change: string }) => [b.envName, b.change])).toEqual([['A_TOKEN', 'RETARGETED'], ['B_TOKEN', 'REMOVED']]);
    expect(back.selfConfigRequests.map((s: { id: string }) => s.id)).toEqual([selfConfigRequestId]);
  });

  it('V7 P6 diff against an unknown revision is NOT_FOUND, against another agent’s is refused', async () => {
    const missing = payload(await stack.gql(DIFF, { id: rev2, against: `rev_${randomUUID()}` }), 'node').diff;
    expect(missing).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    const foreign = payload(await stack.gql(DIFF, { id: rev2, against: other.revisionId }), 'node').diff;
    expect(foreign).toMatchObject({ __typename: 'ValidationError', code: 'REVISION_OF_ANOTHER_AGENT', field: 'against' });
  });

  it('V7 a viewer may diff; the agent’s own token reads no revision (NOT_FOUND)', async () => {
    const viewer = await reader('namespace-viewer');
    expect(payload(await stack.gql(DIFF, { id: rev2, against: rev1 }, { key: viewer }), 'node').diff.bindings).toHaveLength(2);
    expect(payload(await stack.gql(DIFF, { id: rev2, against: rev1 }, { key: agentKey }), 'node')).toBeNull();
  });

  it('V7 refusals: an unknown revision, another agent’s; a viewer is FORBIDDEN and the agent token NOT_FOUND', async () => {
    expect(await rollback(`rev_${randomUUID()}`)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(await rollback(other.revisionId)).toMatchObject({ __typename: 'ValidationError', code: 'REVISION_OF_ANOTHER_AGENT', field: 'toRevision' });
    const viewer = await reader('namespace-viewer');
    expect(await rollback(rev1, viewer)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await rollback(rev1, agentKey)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    // Nothing was deployed by any refusal.
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: agent.id } })).toBe(2);
  });

  it('V7 D2 a rollback goes through the deploy checks: a caller who may deploy but not operate the revision’s secret is refused', async () => {
    const editor = await reader('namespace-editor');
    expect(await rollback(rev1, editor)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: agent.id } })).toBe(2);
  });

  it('V7 V2 rollbackAgent deploys a new revision from revision 1’s frozen values and bindings (not the configuration as it is now), with the version it delivered while retained, and audits it', async () => {
    const admin = await reader('namespace-admin');
    const r = await rollback(rev1, admin);
    expect(r.__typename, JSON.stringify(r)).toBe('RollbackAgentSuccess');
    expect(r.rolledBackTo).toEqual({ id: rev1, number: 1 });
    expect(r.revision).toMatchObject({
      number: 3,
      values: { model: 'openai/m-one', web: { enabled: false }, old: 'gone-later' },
      configurationId,
      configurationGeneration: 1,
      secrets: [{ purpose: 'binding', envName: 'A_TOKEN', version: 1, source: { id: secrets.first } }],
    });
    // first rotated since revision 1, but its version 1 is still retained: that one is delivered.
    expect(r.deliveries).toEqual([{ purpose: 'binding', envName: 'A_TOKEN', secretId: secrets.first, requestedVersion: 1, versionUsed: 1, requestedVersionRetained: true }]);
    await waitActive(r.revision.id);
    // The gateway's container got version 1's bytes, not the rotated value (V2).
    const env = await waitFor(async () => {
      const containers = (await runningGateway(stack, k8sNamespace, agent.id)).filter((c) => c.container === 'gateway');
      return containers.length === 1 && containers[0]!.env.A_TOKEN === canaries.first ? containers[0]!.env : null;
    }, 'the gateway to run the rolled-back revision', 60_000);
    expect(env.B_TOKEN).toBeUndefined();
    const events = await stack.runtime.db.auditEvent.findMany({ where: { action: 'agent.rollback', resourceId: agent.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: 'SUCCESS', details: { revisionId: r.revision.id, number: 3, rolledBackTo: { revisionId: rev1, number: 1 } } });
    const diff = payload(await stack.gql(DIFF, { id: r.revision.id, against: rev1 }), 'node').diff;
    expect(diff).toMatchObject({ configurationChanged: false, values: [], bindings: [], versions: [] });
  });

  it('V7 V3 a version no longer retained: the rollback delivers the current one and says so', async () => {
    // What V3's retirement does to a version: its object deleted, its row marked retired.
    const v1 = await stack.runtime.db.secretVersion.findUniqueOrThrow({ where: { secretId_number: { secretId: secrets.first, number: 1 } } });
    await stack.core.deleteNamespacedSecret({ name: v1.backendName, namespace: v1.backendNamespace });
    await stack.runtime.db.secretVersion.update({ where: { secretId_number: { secretId: secrets.first, number: 1 } }, data: { retiredAt: new Date() } });
    const r = await rollback(rev1);
    expect(r.__typename, JSON.stringify(r)).toBe('RollbackAgentSuccess');
    expect(r.deliveries).toEqual([{ purpose: 'binding', envName: 'A_TOKEN', secretId: secrets.first, requestedVersion: 1, versionUsed: 2, requestedVersionRetained: false }]);
    expect(r.revision.secrets).toEqual([{ purpose: 'binding', envName: 'A_TOKEN', version: 2, source: { id: secrets.first } }]);
    await waitActive(r.revision.id);
    const diff = payload(await stack.gql(DIFF, { id: r.revision.id, against: rev1 }), 'node').diff;
    expect(diff).toMatchObject({ configurationChanged: false, values: [], bindings: [], versions: [{ envName: 'A_TOKEN', secretId: secrets.first, fromVersion: 1, toVersion: 2 }] });
  });

  it('V7 S3 P1 canary: no secret value in rollback or diff answers, audit rows, the database or logs', async () => {
    const texts = [
      JSON.stringify((await stack.gql(DIFF, { id: rev2, against: rev1 })).body),
      JSON.stringify((await stack.gql(DIFF, { id: rev1, against: rev2 })).body),
      ...stack.responses,
      ...stack.logs,
      ...(await dumpDatabase(stack.databaseUrl)),
    ];
    for (const canary of Object.values(canaries)) expect(findCanary(texts, canary)).toEqual([]);
  });

  it('V7 a revision that never became active is refused (REVISION_NEVER_ACTIVE): rollback returns to a state that ran', async () => {
    // With the worker stopped, the deploy stays queued: a revision that never ran.
    await stack.runtime.worker.stop();
    const queued = payload(await stack.gql(DEPLOY, { input: { agentId: other.id } }), 'deployAgent').revision.id;
    expect(payload(await stack.gql(REVISION, { id: queued }), 'node').state).toBe('QUEUED');
    expect(await rollback(queued, undefined, other.id)).toMatchObject({ __typename: 'ConflictError', code: 'REVISION_NEVER_ACTIVE' });
    // Revision 1 of the same agent ran; its rollback is admitted (and queued).
    expect(await rollback(other.revisionId, undefined, other.id)).toMatchObject({ __typename: 'RollbackAgentSuccess' });
  });
});
