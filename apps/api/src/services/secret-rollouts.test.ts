import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, deployToActive, payload, waitFor } from '../test/operations.ts';
import { subscribeSse, type SseEvent } from '../test/sse.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { deployAgent } from './deploy-agent.ts';
import { readSelection } from './deploy-checks.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// V4 rotation rollouts, end to end through GraphQL on the embedded (or real, E8) Kubernetes API
// server and the real worker: each test makes its own secret, a configuration binding it and a few
// agents running version 1, then rotates under a policy and watches the rollout as a client would
// (Query.secretRollout), and checks what runs afterwards from the revisions the product recorded.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
let admin2: string;
let editor: string;
let viewer: string;
/**
 * Revisions whose activation is refused while held (the gateway of a batch that is not Ready in
 * time): the activation step fails and is retried with backoff, holding no transaction open (PGlite
 * has one connection).
 */
const slowActivations = new Set<string>();
let holding = true;
let crashAfterFirstMember: string | null = null;
const canaries: string[] = [];

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const UPDATE = `mutation($input: UpdateSecretInput!) { updateSecret(input: $input) { __typename
  ... on UpdateSecretSuccess { secret { version } delivery { message rollout { id state targetVersion rotations } } }
  ... on Error { code message } } }`;
const SET_POLICY = `mutation($input: SetSecretRotationPolicyInput!) { setSecretRotationPolicy(input: $input) { __typename
  ... on SetSecretRotationPolicySuccess { policy { mode batchSize pauseSeconds readySeconds approval source } }
  ... on Error { code message } ... on ValidationError { field } } }`;
const SET_NS_POLICY = `mutation($input: SetNamespaceSecretRotationPolicyInput!) { setNamespaceSecretRotationPolicy(input: $input) { __typename
  ... on SetNamespaceSecretRotationPolicySuccess { policy { mode batchSize } } ... on Error { code message } } }`;
const ROLLOUT_FIELDS = `id state targetVersion rotations rotatedById approvedById reason { code message } endedAt
  batches { index state targetVersion startedAt endedAt reason { code message } members { agentId fromRevisionId revisionState revision { id } rollbackRevision { id } refusal { code message } } }`;
const ROLLOUT = `query($id: ID!) { secretRollout(id: $id) { ${ROLLOUT_FIELDS} } }`;
const SECRET_ROLLOUTS = `query($id: ID!) { secret(id: $id) { rotationPolicy { mode batchSize source } rollouts { id state } } }`;
const decide = (name: string) => `mutation($input: SecretRolloutDecisionInput!) { ${name}(input: $input) { __typename
  ... on SecretRolloutDecisionSuccess { rollout { id state approvedById } } ... on Error { code message } } }`;

const VIEWER_CAN = `query($id: ID!) { secretRollout(id: $id) { viewerCan {
  approve { allowed code message } pause { allowed code message } resume { allowed code message } abort { allowed code message } } } }`;
const MUTATION_OF = { approve: 'approveSecretRollout', pause: 'pauseSecretRollout', resume: 'resumeSecretRollout', abort: 'abortSecretRollout' } as const;

/**
 * A3 viewerCan on a rollout says beforehand what the decision then answers, for this reader: allowed
 * exactly when it succeeds; else the same code (FORBIDDEN for a ForbiddenError) and, for a conflict,
 * the same message. Runs the decision for real and answers its payload.
 */
async function decideAsForetold(id: string, decision: keyof typeof MUTATION_OF, key?: string) {
  const told = (await stack.gql(VIEWER_CAN, { id }, { key })).body.data?.secretRollout?.viewerCan?.[decision];
  const answer = payload(await stack.gql(decide(MUTATION_OF[decision]), { input: { rolloutId: id } }, { key }), MUTATION_OF[decision]);
  expect(told, `viewerCan.${decision}`).toBeDefined();
  if (answer.__typename === 'SecretRolloutDecisionSuccess') expect(told).toEqual({ allowed: true, code: null, message: null });
  else if (answer.__typename === 'ForbiddenError') expect(told).toMatchObject({ allowed: false, code: 'FORBIDDEN' });
  else expect(told).toEqual({ allowed: false, code: answer.code, message: answer.message });
  return answer;
}

async function userWith(role: string): Promise<string> {
  const p = await createHumanPrincipal(stack.runtime.db, `${role}-${randomUUID().slice(0, 8)}`, stack.runtime.installation.bootstrapPrincipalId);
  await grantBuiltInRole(stack.runtime.db, p.principalId, role, { kind: 'namespace', namespaceId }, stack.runtime.installation.bootstrapPrincipalId);
  return p.apiKey;
}

/** A secret at version 1, a configuration binding it, and `n` agents running it. */
async function fleet(name: string, n: number): Promise<{ secretId: string; agents: string[] }> {
  const canary = `rollout-${name}-1-${randomUUID()}`;
  canaries.push(canary);
  const secretId = (await createSecretOk(stack, namespaceId, name, canary)).id as string;
  const c = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: `${name}-conf`, values: { model: 'openai/m' }, secretBindings: [binding('TOKEN', secretId)] } }), 'createConfiguration');
  expect(c.__typename, JSON.stringify(c)).toBe('CreateConfigurationSuccess');
  const agents: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name: `${name}-${i}`, configurationId: c.configuration.id } }), 'createAgent');
    expect(a.__typename, JSON.stringify(a)).toBe('CreateAgentSuccess');
    const g = payload(await stack.gql(GRANT, { input: { subjectId: a.agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } }), 'grantAccess');
    expect(g.__typename).toBe('GrantAccessSuccess');
    agents.push(a.agent.id);
  }
  await Promise.all(agents.map((id) => deployToActive(stack, id)));
  return { secretId, agents };
}

async function setPolicy(secretId: string, policy: Record<string, unknown> | null, key?: string) {
  return payload(await stack.gql(SET_POLICY, { input: { secretId, policy } }, { key }), 'setSecretRotationPolicy');
}

async function rotate(secretId: string, name: string, key?: string) {
  const canary = `rollout-${name}-${randomUUID()}`;
  canaries.push(canary);
  const u = payload(await stack.gql(UPDATE, { input: { id: secretId, value: canary } }, { key }), 'updateSecret');
  expect(u.__typename, JSON.stringify(u)).toBe('UpdateSecretSuccess');
  return u;
}

async function rollout(id: string, key?: string) {
  return payload(await stack.gql(ROLLOUT, { id }, { key }), 'secretRollout');
}

async function rolloutEnded(id: string, timeoutMs = 120_000) {
  return waitFor(async () => {
    const r = await rollout(id);
    return r && ['SUCCEEDED', 'ROLLED_BACK', 'ABORTED'].includes(r.state) ? r : null;
  }, `rollout ${id} to end`, timeoutMs);
}

/** Per agent, the secret version its ACTIVE revision delivers (null: none active). */
async function runningVersions(secretId: string, agents: string[]): Promise<Array<number | null>> {
  const rows = await stack.runtime.db.agentRevision.findMany({ where: { agentId: { in: agents }, state: 'ACTIVE' }, select: { agentId: true, secrets: { where: { secretId }, select: { version: true } } } });
  return agents.map((id) => rows.find((r) => r.agentId === id)?.secrets[0]?.version ?? null);
}

beforeAll(async () => {
  stack = await startTestStack({
    env: { gatewayReadySeconds: 60 },
    liveLimits: { intervalMs: 200 },
    deployWork: {
      onActivationLocked: async (revisionId) => {
        if (holding && slowActivations.has(revisionId)) throw new Error('activation held by the test');
      },
    },
    rolloutWork: {
      // Ten minutes: within these tests only the wakes move a rollout on (a batch's members settling,
      // a decision, a deadline), never the recheck; a path that forgets to wake one times out.
      batchRecheckMs: 600_000,
      afterMemberDeployed: async (rolloutId) => {
        if (crashAfterFirstMember !== rolloutId) return;
        crashAfterFirstMember = null;
        throw new Error('the worker died after the first member of the batch was deployed');
      },
    },
  });
  namespaceId = await createReadyNamespace(stack, `rollouts-${randomUUID().slice(0, 8)}`);
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  admin2 = await userWith('namespace-admin');
  editor = await userWith('namespace-editor');
  viewer = await userWith('namespace-viewer');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('V4 rotation rollouts', { timeout: 300_000 }, () => {
  it('V4 policies: the secret’s own, else the namespace default, else manual; administer needed to set one; bad input named by field', async () => {
    const { secretId } = await fleet('policies', 0);
    expect(payload(await stack.gql(SECRET_ROLLOUTS, { id: secretId }), 'secret').rotationPolicy).toEqual({ mode: 'MANUAL', batchSize: 10, source: 'DEFAULT' });
    const ns = payload(await stack.gql(SET_NS_POLICY, { input: { namespaceId, policy: { mode: 'AUTOMATIC', batchSize: 3 } } }), 'setNamespaceSecretRotationPolicy');
    expect(ns).toMatchObject({ __typename: 'SetNamespaceSecretRotationPolicySuccess', policy: { mode: 'AUTOMATIC', batchSize: 3 } });
    expect(payload(await stack.gql(SECRET_ROLLOUTS, { id: secretId }, { key: viewer }), 'secret').rotationPolicy).toEqual({ mode: 'AUTOMATIC', batchSize: 3, source: 'NAMESPACE' });
    expect(await setPolicy(secretId, { mode: 'MANUAL' })).toMatchObject({ policy: { mode: 'MANUAL', source: 'SECRET' } });
    // Back to no namespace default, so the other tests' secrets start manual.
    expect(payload(await stack.gql(SET_NS_POLICY, { input: { namespaceId, policy: null } }), 'setNamespaceSecretRotationPolicy').policy).toBeNull();
    for (const key of [editor, viewer]) expect(await setPolicy(secretId, { mode: 'AUTOMATIC' }, key)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 0 })).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_ROTATION_POLICY', field: 'policy.batchSize' });
    expect(await setPolicy(secretId, { mode: 'AUTOMATIC', readySeconds: 999_999 })).toMatchObject({ code: 'INVALID_ROTATION_POLICY', field: 'policy.readySeconds' });
    // A manual rotation opens no rollout and says what it always said.
    const u = await rotate(secretId, 'policies-2');
    expect(u.delivery.rollout).toBeNull();
  });

  it('V4 automatic: batches of the policy’s size, a pause between them, every agent on the new version, each deployed once, audited', async () => {
    const { secretId, agents } = await fleet('batches', 5);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 2, pauseSeconds: 1, readySeconds: 60 });
    const u = await rotate(secretId, 'batches-2');
    expect(u.delivery.rollout).toMatchObject({ state: 'ROLLING', targetVersion: 2, rotations: 1 });
    expect(u.delivery.message).toContain(`rollout ${u.delivery.rollout.id}`);
    const done = await rolloutEnded(u.delivery.rollout.id);
    expect(done.state, JSON.stringify(done)).toBe('SUCCEEDED');
    expect(done.batches.map((b: { members: unknown[] }) => b.members.length)).toEqual([2, 2, 1]);
    const starts = done.batches.map((b: { startedAt: string }) => Date.parse(b.startedAt));
    const ends = done.batches.map((b: { endedAt: string }) => Date.parse(b.endedAt));
    for (let i = 1; i < starts.length; i++) expect(starts[i] - ends[i - 1]).toBeGreaterThanOrEqual(1000);
    expect(done.batches.every((b: { state: string }) => b.state === 'READY')).toBe(true);
    expect(new Set(done.batches.flatMap((b: { members: Array<{ agentId: string }> }) => b.members.map((m) => m.agentId)))).toEqual(new Set(agents));
    expect(await runningVersions(secretId, agents)).toEqual([2, 2, 2, 2, 2]);
    const deployed = await stack.runtime.db.agentRevision.groupBy({ by: ['agentId'], where: { rolloutStep: { startsWith: `${done.id}/` } }, _count: true });
    expect(deployed.map((d) => d._count)).toEqual([1, 1, 1, 1, 1]);
    const audits = await stack.runtime.db.auditEvent.findMany({ where: { resourceId: secretId, action: { startsWith: 'secret.rollout' } }, select: { action: true } });
    expect(audits.map((a) => a.action).sort()).toEqual(['secret.rollout.batch', 'secret.rollout.batch', 'secret.rollout.batch', 'secret.rollout.batchReady', 'secret.rollout.batchReady', 'secret.rollout.batchReady', 'secret.rollout.open', 'secret.rollout.succeeded']);
    // Readers: a viewer follows the rollout; an agent of another secret's fleet is no reader of it.
    expect((await rollout(done.id, viewer)).state).toBe('SUCCEEDED');
  });

  it('V4 debounce: rotations within the pause deliver only the last; the open rollout takes them in', async () => {
    const { secretId, agents } = await fleet('debounce', 2);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 3, readySeconds: 60 });
    const first = await rotate(secretId, 'debounce-2');
    // Long enough for the worker to have taken the rollout up (it is kicked at the rotation), well within the pause.
    await new Promise((r) => setTimeout(r, 1200));
    const second = await rotate(secretId, 'debounce-3');
    expect(second.delivery.rollout).toMatchObject({ id: first.delivery.rollout.id, targetVersion: 3, rotations: 2 });
    const done = await rolloutEnded(first.delivery.rollout.id);
    expect(done.state).toBe('SUCCEEDED');
    expect(await runningVersions(secretId, agents)).toEqual([3, 3]);
    expect(await stack.runtime.db.agentRevisionSecret.count({ where: { secretId, version: 2 } })).toBe(0);
  });

  it('V4 A3 approval: waits for an administrator other than the rotator; the rotator, an editor and a viewer cannot approve, and viewerCan says so beforehand', async () => {
    const { secretId, agents } = await fleet('approval', 2);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 0, approval: 'OTHER_ADMINISTRATOR' });
    const u = await rotate(secretId, 'approval-2');
    const id = u.delivery.rollout.id;
    expect(u.delivery.rollout.state).toBe('AWAITING_APPROVAL');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await rollout(id)).batches).toEqual([]);
    const approve = (key?: string) => decideAsForetold(id, 'approve', key);
    expect(await approve()).toMatchObject({ __typename: 'ConflictError', code: 'ROLLOUT_APPROVER_IS_ROTATOR' });
    expect(await approve(editor)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await approve(viewer)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await approve(admin2)).toMatchObject({ __typename: 'SecretRolloutDecisionSuccess', rollout: { state: 'ROLLING' } });
    expect(await approve(admin2)).toMatchObject({ __typename: 'ConflictError', code: 'ROLLOUT_STATE_CONFLICT' });
    const done = await rolloutEnded(id);
    expect(done.state).toBe('SUCCEEDED');
    expect(done.approvedById).not.toBeNull();
    expect(await runningVersions(secretId, agents)).toEqual([2, 2]);
    const trail = await stack.runtime.db.auditEvent.findMany({ where: { resourceId: secretId, action: 'secret.rollout.approve' } });
    expect(trail).toHaveLength(1);
  });

  it('V4 A3 pause, resume and abort: no batch starts while paused; an aborted rollout ends with its reason and starts nothing; viewerCan foretells each answer', async () => {
    const { secretId, agents } = await fleet('pausing', 1);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 2, approval: 'ANY_ADMINISTRATOR' });
    const id = (await rotate(secretId, 'pausing-2')).delivery.rollout.id;
    const act = (decision: keyof typeof MUTATION_OF, key?: string) => decideAsForetold(id, decision, key);
    expect(await act('resume')).toMatchObject({ code: 'ROLLOUT_STATE_CONFLICT' });
    expect(await act('pause', viewer)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await act('pause')).toMatchObject({ rollout: { state: 'PAUSED' } });
    expect(await act('approve')).toMatchObject({ code: 'ROLLOUT_STATE_CONFLICT' });
    expect(await act('pause')).toMatchObject({ code: 'ROLLOUT_STATE_CONFLICT' });
    expect(await act('abort', editor)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await act('resume')).toMatchObject({ rollout: { state: 'AWAITING_APPROVAL' } });
    expect(await act('abort')).toMatchObject({ rollout: { state: 'ABORTED' } });
    for (const decision of ['approve', 'pause', 'resume', 'abort'] as const) expect(await act(decision)).toMatchObject({ code: 'ROLLOUT_STATE_CONFLICT' });
    await new Promise((r) => setTimeout(r, 3000));
    const r = await rollout(id);
    expect(r).toMatchObject({ state: 'ABORTED', batches: [], reason: { code: 'ABORTED' } });
    expect(await runningVersions(secretId, agents)).toEqual([1]);
  });

  it('V4 an abort during a batch ends that batch ABORTED with the rollout, and no later batch starts', async () => {
    const { secretId, agents } = await fleet('abortmid', 2);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 1, pauseSeconds: 0, readySeconds: 600 });
    const id = (await rotate(secretId, 'abortmid-2')).delivery.rollout.id;
    await waitFor(async () => {
      const rows = await stack.runtime.db.agentRevision.findMany({ where: { rolloutStep: `${id}/0/deliver` }, select: { id: true } });
      for (const row of rows) slowActivations.add(row.id);
      return rows.length ? rows : null;
    }, 'the first batch to deploy', 30_000);
    const aborted = payload(await stack.gql(decide('abortSecretRollout'), { input: { rolloutId: id } }), 'abortSecretRollout');
    expect(aborted).toMatchObject({ rollout: { state: 'ABORTED' } });
    await new Promise((r) => setTimeout(r, 1500));
    const r = await rollout(id);
    expect(r.batches).toHaveLength(1);
    expect(r.batches[0]).toMatchObject({ state: 'ABORTED', reason: { code: 'ABORTED' } });
    expect(r.batches[0].endedAt).not.toBeNull();
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: { in: agents }, rolloutStep: { startsWith: `${id}/1/` } } })).toBe(0);
  });

  it('V4 a batch not Ready within its deadline stops the rollout and returns its agents to their previous revision (RolledBack, with the reason)', async () => {
    const { secretId, agents } = await fleet('unready', 3);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 2, pauseSeconds: 0, readySeconds: 5 });
    const before = await runningVersions(secretId, agents);
    const id = (await rotate(secretId, 'unready-2')).delivery.rollout.id;
    // Hold the activation of the first batch's revisions beyond the deadline.
    const held = await waitFor(async () => {
      const rows = await stack.runtime.db.agentRevision.findMany({ where: { rolloutStep: { startsWith: `${id}/0/deliver` } }, select: { id: true } });
      for (const row of rows) slowActivations.add(row.id);
      return rows.length ? rows : null;
    }, 'the first batch to deploy', 30_000);
    expect(held.length).toBeGreaterThan(0);
    // Held until the rollout gave up on the batch; the rollback's deploys then wait their turn.
    await waitFor(async () => ((await rollout(id)).state !== 'ROLLING' ? true : null), 'the batch deadline', 30_000);
    holding = false;
    const done = await rolloutEnded(id);
    expect(done.state, JSON.stringify(done)).toBe('ROLLED_BACK');
    expect(done.reason.code).toBe('BATCH_NOT_READY');
    expect(done.batches).toHaveLength(1);
    expect(done.batches[0]).toMatchObject({ state: 'ROLLED_BACK', reason: { code: 'BATCH_NOT_READY' } });
    // Every agent runs version 1 again once the rollbacks are Ready; the third agent was never touched.
    await waitFor(async () => {
      const now = await runningVersions(secretId, agents);
      return now.every((v) => v === 1) ? now : null;
    }, 'the agents to run version 1 again', 90_000);
    expect(before).toEqual([1, 1, 1]);
    const touched = done.batches[0].members.map((m: { agentId: string }) => m.agentId);
    const untouched = agents.filter((a) => !touched.includes(a));
    expect(untouched).toHaveLength(1);
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: untouched[0], rolloutStep: { not: null } } })).toBe(0);
  });

  it('V4 durable: a worker that dies mid-batch is resumed by the next claim, and no member is deployed twice', async () => {
    const { secretId, agents } = await fleet('durable', 3);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 3, pauseSeconds: 2, readySeconds: 60 });
    const id = (await rotate(secretId, 'durable-2')).delivery.rollout.id;
    crashAfterFirstMember = id;
    const done = await rolloutEnded(id);
    expect(crashAfterFirstMember).toBeNull();
    expect(done.state).toBe('SUCCEEDED');
    expect(await runningVersions(secretId, agents)).toEqual([2, 2, 2]);
    const deployed = await stack.runtime.db.agentRevision.groupBy({ by: ['agentId'], where: { rolloutStep: { startsWith: `${id}/` } }, _count: true });
    expect(deployed.map((d) => d._count)).toEqual([1, 1, 1]);
    const item = await stack.runtime.db.workItem.findUniqueOrThrow({ where: { idempotencyKey: `secret.rollout:${id}` } });
    expect(item.state).toBe('SUCCEEDED');
    expect(stack.logs.some((line) => line.includes('will retry') && line.includes('secret.rollout'))).toBe(true);
  });

  it('V4 a deploy made for a rollout step is made once: the same step answers the revision it already made (two workers racing)', async () => {
    const { agents } = await fleet('onestep', 1);
    const actor = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'HUMAN' as const, name: 'admin', apiKeyId: '' };
    const step = { select: readSelection, auditAction: 'agent.deploy', rolloutStep: `sro_${randomUUID()}/0/deliver` };
    const [a, b] = await Promise.all([deployAgent(stack.runtime.deps, actor, { agentId: agents[0]! }, step), deployAgent(stack.runtime.deps, actor, { agentId: agents[0]! }, step)]);
    expect(a.id).toBe(b.id);
    expect(await stack.runtime.db.agentRevision.count({ where: { rolloutStep: step.rolloutStep } })).toBe(1);
  });

  it('V4 a version object deleted out of band: D3 refuses the batch’s deploys and the rollout stops with the reason; nothing runs the missing object', async () => {
    const { secretId, agents } = await fleet('outofband', 2);
    await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 2, readySeconds: 60 });
    const id = (await rotate(secretId, 'outofband-2')).delivery.rollout.id;
    const version = await stack.runtime.db.secretVersion.findUniqueOrThrow({ where: { secretId_number: { secretId, number: 2 } } });
    await stack.core.deleteNamespacedSecret({ name: version.backendName, namespace: k8sNamespace });
    const done = await rolloutEnded(id);
    expect(done.state, JSON.stringify(done)).toBe('ROLLED_BACK');
    expect(done.reason.code).toBe('BACKEND_IDENTITY_CHANGED');
    expect(done.batches[0].members.some((m: { refusal: unknown }) => m.refusal)).toBe(true);
    expect(await runningVersions(secretId, agents)).toEqual([1, 1]);
  });

  describe('Subscription.secretRollout over SSE', () => {
    const SUBSCRIBE = `subscription($id: ID!) { secretRollout(id: $id) { id state targetVersion batches { index state members { agentId revisionState } } } }`;
    const open = (id: string, key: string | null = stack.bootstrapKey) => subscribeSse(stack.baseUrl, SUBSCRIBE, { id }, key);
    const rolloutsOf = (events: SseEvent[]) => events.filter((e) => e.event === 'next').map((e) => (e.data as { data?: { secretRollout: { id: string; state: string; batches: unknown[] } | null } }).data?.secretRollout);

    it('V4 a client follows a rollout over SSE: its state now, then each change, and the stream ends after the final state', async () => {
      const { secretId } = await fleet('live', 2);
      await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 1, pauseSeconds: 1, readySeconds: 60 });
      const id = (await rotate(secretId, 'live-2')).delivery.rollout.id;
      // A viewer of the namespace follows it as well as the rotator does.
      const [admin, reader, statesOnly] = await Promise.all([open(id), open(id, viewer), subscribeSse(stack.baseUrl, `subscription($id: ID!) { secretRollout(id: $id) { state } }`, { id }, stack.bootstrapKey)]);
      expect(admin.status).toBe(200);
      expect(admin.contentType).toContain('text/event-stream');
      const [seen, seenByViewer, stateEvents] = await Promise.all([admin.rest(), reader.rest(), statesOnly.rest()]);
      // What a client selects decides what counts as a change: the batches moved many times while
      // the state stayed ROLLING, and a client of the state alone hears of the state's changes only.
      expect(rolloutsOf(stateEvents).map((r) => r?.state)).toEqual(['ROLLING', 'SUCCEEDED']);
      expect(seen.at(-1)?.event).toBe('complete');
      const states = rolloutsOf(seen);
      expect(states.every((r) => r && r.id === id), JSON.stringify(seen)).toBe(true);
      expect(states.at(-1)).toMatchObject({ state: 'SUCCEEDED', batches: [{ state: 'READY' }, { state: 'READY' }] });
      // Changes only: no two consecutive events alike, and the batches were seen as they went.
      for (let i = 1; i < states.length; i++) expect(JSON.stringify(states[i])).not.toBe(JSON.stringify(states[i - 1]));
      expect(states.some((r) => r && r.batches.length === 1), JSON.stringify(states)).toBe(true);
      expect(rolloutsOf(seenByViewer).at(-1)).toMatchObject({ state: 'SUCCEEDED' });
      // A rollout that has ended: one event, then the end.
      const again = await (await open(id)).rest();
      expect(again.map((e) => e.event)).toEqual(['next', 'complete']);
    });

    it('V4 P6 a rollout the caller may not read, and one that does not exist, answer alike: one null, then the end; no credentials: UNAUTHENTICATED', async () => {
      const { secretId } = await fleet('livehidden', 1);
      await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 0, approval: 'ANY_ADMINISTRATOR' });
      const id = (await rotate(secretId, 'livehidden-2')).delivery.rollout.id;
      const stranger = (await createHumanPrincipal(stack.runtime.db, `stranger-${randomUUID().slice(0, 8)}`, stack.runtime.installation.bootstrapPrincipalId)).apiKey;
      const hidden = await (await open(id, stranger)).rest();
      const missing = await (await open('sro_00000000000000000000000000', stranger)).rest();
      expect(hidden).toEqual(missing);
      expect(hidden).toEqual([{ event: 'next', data: { data: { secretRollout: null } } }, { event: 'complete', data: null }]);
      const anonymous = rolloutsOf(await (await open(id, null)).rest());
      expect(anonymous).toEqual([undefined]);
      const refused = await (await open(id, null)).next();
      expect((refused?.data as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
      await stack.gql(decide('abortSecretRollout'), { input: { rolloutId: id } });
    });

    it('V4 P7 a principal holds at most 4 streams: the fifth is SUBSCRIPTION_LIMITED; closing one frees its slot; another principal is not held back; R5 a draining server ends them all', async () => {
      const { secretId } = await fleet('livecap', 1);
      await setPolicy(secretId, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 0, approval: 'ANY_ADMINISTRATOR' });
      const id = (await rotate(secretId, 'livecap-2')).delivery.rollout.id;
      const streams = await Promise.all([1, 2, 3, 4].map(() => open(id, admin2)));
      for (const s of streams) expect(rolloutsOf([(await s.next())!])[0]).toMatchObject({ state: 'AWAITING_APPROVAL' });
      const fifth = await (await open(id, admin2)).rest();
      expect(fifth.map((e) => e.event)).toEqual(['next', 'complete']);
      expect(fifth[0]!.data).toMatchObject({ errors: [{ extensions: { code: 'SUBSCRIPTION_LIMITED', limit: 4 } }] });
      const other = await open(id, viewer);
      expect(rolloutsOf([(await other.next())!])[0]).toMatchObject({ state: 'AWAITING_APPROVAL' });
      streams[0]!.close();
      await waitFor(async () => {
        const s = await open(id, admin2);
        const first = await s.next();
        if (rolloutsOf([first!])[0]) return s;
        return null;
      }, 'a slot freed by the closed stream', 10_000);
      // Open streams see the abort, then end.
      await stack.gql(decide('abortSecretRollout'), { input: { rolloutId: id } });
      for (const s of [...streams.slice(1), other]) expect(rolloutsOf(await s.rest()).at(-1)).toMatchObject({ state: 'ABORTED' });
      // R5: draining ends the open streams of a rollout that has not ended, and admits none.
      const { secretId: held } = await fleet('livedrain', 1);
      await setPolicy(held, { mode: 'AUTOMATIC', batchSize: 5, pauseSeconds: 0, approval: 'ANY_ADMINISTRATOR' });
      const heldId = (await rotate(held, 'livedrain-2')).delivery.rollout.id;
      const open1 = await open(heldId);
      expect(rolloutsOf([(await open1.next())!])[0]).toMatchObject({ state: 'AWAITING_APPROVAL' });
      stack.app.drain();
      expect((await open1.rest(10_000)).map((e) => e.event)).toEqual(['complete']);
      expect((await (await open(heldId)).next())?.data).toMatchObject({ errors: [{ extensions: { code: 'SUBSCRIPTION_LIMITED' } }] });
    });
  });

  it('V4 no rollout, batch or audit row holds a secret value', async () => {
    const texts = [...(await dumpDatabase(stack.databaseUrl)), ...stack.logs, ...stack.responses];
    for (const canary of canaries) expect(findCanary(texts, canary)).toEqual([]);
  });
});
