import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInstance } from '../test/instances.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, CREATE_NAMESPACE, binding, createSecretOk, payload, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { testDatabaseMode } from '../test/database.ts';
import { startWorker } from '../worker.ts';
import { awaitRevisionKind, deployRevisionKind } from './deploy-work.ts';

// Activation, serialized (RC7) and coalesced (RC8). The interleavings are forced through the
// database's own locks and the activation's hook, and observed in pg_stat_activity, never by
// sleeping. PGlite serves one connection, on which no two transactions interleave: the RC7 cases
// need PostgreSQL; RC8's run on both.

let stack: TestStack;
let namespaceId: string;
let k8sNamespace: string;
let secretId: string;
let hook: ((revisionId: string) => Promise<void>) | null = null;
const postgres = testDatabaseMode() === 'postgres';

const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number } } ... on Error { code message } } }`;
const REVOKE = `mutation($input: RevokeAccessInput!) { revokeAccess(input: $input) { __typename ... on RevokeAccessSuccess { changed } ... on Error { code message } } }`;

async function agentBound(name: string): Promise<{ id: string; servicePrincipalId: string }> {
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: `${name}-cfg`, values: {}, secretBindings: [binding('TOKEN', secretId)] } }), 'createConfiguration');
  const agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name, configurationId: cfg.configuration.id } }), 'createAgent').agent;
  const granted = payload(
    await stack.gql(`mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename } }`, {
      input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } },
    }),
    'grantAccess',
  );
  expect(granted.__typename).toBe('GrantAccessSuccess');
  return agent;
}

async function deploy(agentId: string): Promise<{ id: string; number: number }> {
  const r = payload(await stack.gql(DEPLOY, { input: { agentId } }), 'deployAgent');
  expect(r.__typename, JSON.stringify(r)).toBe('DeployAgentSuccess');
  return r.revision;
}

/** Sessions of the test database waiting on a lock right now. */
async function lockWaiters(client: pg.Client): Promise<number> {
  const r = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
  return r.rows[0].n as number;
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false, env: { gatewayReadySeconds: 60 }, deployWork: { onActivationLocked: async (id) => hook?.(id) } });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `activate-${randomUUID().slice(0, 6)}` } }), 'createNamespace').namespace.id;
  await stack.runtime.worker.drain();
  k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  secretId = (await createSecretOk(stack, namespaceId, 'token', 'v')).id;
}, 120_000);

afterAll(async () => {
  hook = null;
  await stack?.close();
});

describe('RC7 revocation and activation are serialized', { timeout: 180_000 }, () => {
  it.skipIf(!postgres)("RC7 a revoke that commits first always fails the revision: the activation waits on the revoke's lock and its re-check then sees the grant gone", async () => {
    const agent = await agentBound('revoked-first');
    const revision = await deploy(agent.id);
    // A revoke in progress, as revokeAccess does it: the subject's Principal row locked, the binding deleted, not yet committed.
    const revoker = new pg.Client({ connectionString: stack.databaseUrl });
    const observer = new pg.Client({ connectionString: stack.databaseUrl });
    await revoker.connect();
    await observer.connect();
    try {
      await revoker.query('BEGIN');
      await revoker.query(`SELECT id FROM "Principal" WHERE id = $1 FOR UPDATE`, [agent.servicePrincipalId]);
      await revoker.query(`DELETE FROM "AccessBinding" WHERE "subjectId" = $1 AND "resourceId" = $2`, [agent.servicePrincipalId, secretId]);
      const worker = stack.runtime.worker.drain();
      // The activation reaches its locks and waits there: forced, observed, not slept for.
      await waitFor(async () => (await lockWaiters(observer)) > 0, 'the activation waiting on the revoke', 60_000);
      await revoker.query('COMMIT');
      await worker;
    } finally {
      await revoker.end();
      await observer.end();
    }
    const row = await stack.runtime.db.agentRevision.findUniqueOrThrow({ where: { id: revision.id } });
    expect(row).toMatchObject({ state: 'FAILED', failureCode: 'AGENT_NOT_AUTHORIZED' });
    // Nothing of it reached the instance.
    expect(await readInstance(stack, k8sNamespace, agent.id)).toBeNull();
  });

  it.skipIf(!postgres)('RC7 an activation holding its locks first commits: the revoke waits for it, and then applies to the next deploy', async () => {
    const agent = await agentBound('activated-first');
    const revision = await deploy(agent.id);
    const observer = new pg.Client({ connectionString: stack.databaseUrl });
    await observer.connect();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    hook = async (id) => {
      if (id !== revision.id) return;
      inside();
      await held;
    };
    let revoked: Promise<unknown> | null = null;
    try {
      const worker = stack.runtime.worker.drain();
      await entered;
      revoked = stack.gql(REVOKE, { input: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } } });
      await waitFor(async () => (await lockWaiters(observer)) > 0, 'the revoke waiting on the activation', 60_000);
      release();
      await worker;
      const r = await revoked;
      expect(payload(r as never, 'revokeAccess')).toMatchObject({ __typename: 'RevokeAccessSuccess', changed: true });
    } finally {
      hook = null;
      release?.();
      await observer.end();
    }
    expect(await stack.runtime.db.agentRevision.findUniqueOrThrow({ where: { id: revision.id } })).toMatchObject({ state: 'ACTIVE' });
    const order = await stack.runtime.db.auditEvent.findMany({ where: { OR: [{ action: 'revision.activate', resourceId: revision.id }, { action: 'accessBinding.delete', details: { path: ['subjectId'], equals: agent.servicePrincipalId } }] }, orderBy: [{ at: 'asc' }, { id: 'asc' }] });
    expect(order.map((a) => a.action)).toEqual(['revision.activate', 'accessBinding.delete']);
    // The next deploy is refused for the missing grant (A3).
    expect(payload(await stack.gql(DEPLOY, { input: { agentId: agent.id } }), 'deployAgent')).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('RC8 deploys of one agent coalesce', { timeout: 240_000 }, () => {
  it('RC8 20 concurrent deploys end in at most 2 rollouts and one active revision; the rest are superseded before preparation and never reach the instance', async () => {
    const agent = await agentBound('twenty');
    const revisions = await Promise.all(Array.from({ length: 20 }, () => deploy(agent.id)));
    expect(new Set(revisions.map((r) => r.number)).size).toBe(20);
    await stack.runtime.worker.drain();
    const rows = await stack.runtime.db.agentRevision.findMany({ where: { agentId: agent.id }, orderBy: { number: 'asc' } });
    const rolledOut = rows.filter((r) => r.instanceGeneration !== null);
    expect(rolledOut.length).toBeLessThanOrEqual(2);
    expect(rows.filter((r) => r.state === 'ACTIVE').map((r) => r.number)).toEqual([20]);
    const superseded = rows.filter((r) => r.failureCode === 'SUPERSEDED_BEFORE_PREPARATION');
    expect(superseded.length).toBeGreaterThanOrEqual(18);
    for (const r of superseded) expect(r).toMatchObject({ state: 'SUPERSEDED', instanceGeneration: null });
    const instance = await readInstance(stack, k8sNamespace, agent.id);
    expect(instance?.spec.revision).toMatchObject({ number: 20 });
    expect((await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: agent.id } })).activeRevisionId).toBe(rows[19]!.id);
  });

  it('RC8 two workers racing over deploys of one agent never leave two active revisions, and the instance holds the one the agent names', async () => {
    const agent = await agentBound('raced');
    const deps = stack.runtime.deps;
    const second = startWorker({ db: stack.runtime.db, logger: deps.logger.child({ component: 'second-worker' }), kinds: [deployRevisionKind(deps), awaitRevisionKind(deps)], pollMs: 20 });
    try {
      for (let round = 0; round < 6; round++) {
        await deploy(agent.id);
        await Promise.all([stack.runtime.worker.drain(), second.drain()]);
        const active = await stack.runtime.db.agentRevision.count({ where: { agentId: agent.id, state: { in: ['ACTIVATING', 'ACTIVE'] } } });
        expect(active).toBeLessThanOrEqual(1);
      }
      await Promise.all([stack.runtime.worker.drain(), second.drain()]);
    } finally {
      await second.stop();
    }
    const active = await stack.runtime.db.agentRevision.findMany({ where: { agentId: agent.id, state: 'ACTIVE' } });
    expect(active).toHaveLength(1);
    expect((await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: agent.id } })).activeRevisionId).toBe(active[0]!.id);
    await waitFor(async () => (await readInstance(stack, k8sNamespace, agent.id))?.spec.revision?.id === active[0]!.id, 'the instance holding the active revision');
  });

  it('RC8 the database itself refuses a second activating or active revision of one agent', async () => {
    const agent = await agentBound('constrained');
    await deploy(agent.id);
    await stack.runtime.worker.drain();
    const boot = stack.runtime.installation.bootstrapPrincipalId;
    const sp = agent.servicePrincipalId;
    await expect(
      stack.runtime.db.agentRevision.create({ data: { id: `rev_${randomUUID()}`, agentId: agent.id, namespaceId, number: 99, secretDriverId: 'kubernetes-secret/v1', servicePrincipalId: sp, createdById: boot, state: 'ACTIVATING' } }),
    ).rejects.toThrow(/Unique constraint|unique/i);
    // One RUNNING work item per concurrency key, too.
    await stack.runtime.db.workItem.create({ data: { id: `wrk_${randomUUID()}`, kind: 'revision.deploy', idempotencyKey: randomUUID(), state: 'RUNNING', concurrencyKey: agent.id, payload: {} } });
    await expect(stack.runtime.db.workItem.create({ data: { id: `wrk_${randomUUID()}`, kind: 'revision.deploy', idempotencyKey: randomUUID(), state: 'RUNNING', concurrencyKey: agent.id, payload: {} } })).rejects.toThrow(/Unique constraint|unique/i);
    await stack.runtime.db.workItem.deleteMany({ where: { concurrencyKey: agent.id, payload: { equals: {} } } });
  });
});
