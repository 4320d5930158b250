import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_NAMESPACE, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';

// Namespace.health counts what the reader may read of a namespace: agents by status, secrets and
// stale ones, rollouts waiting for an approval. The oracle is the product's own lists, read as the
// same reader (the agents list with each agent's status, the secrets list and its stale filter,
// each rollout's secret by node(id:)): generated namespaces of agents in every status, secrets
// stale or not, rollouts in every state, read by an administrator, a namespace viewer, a reader
// of single rows and someone with no grant.

let stack: TestStack;
/** Statements sent (the key's lastUsedAt update aside: it comes once a while, not per request). */
const statements: string[] = [];
const namespaces: string[] = [];
const rollouts: Array<{ secretId: string; state: string }> = [];
type Reader = 'admin' | 'viewer' | 'granted' | 'outsider';
const keys = {} as Record<Reader, string | undefined>;

let seed = 11;
const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
const pick = <T>(xs: readonly T[]): T => xs[random(xs.length)]!;

async function agentIn(namespaceId: string, shape: 'created' | 'deploying' | 'running' | 'failed' | 'degraded' | 'stopped'): Promise<string> {
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const agentId = `agt_${randomUUID()}`;
  const sp = `spn_${randomUUID()}`;
  await db.principal.create({ data: { id: sp, kind: 'SERVICE', name: `agent:${agentId}` } });
  await db.agent.create({ data: { id: agentId, namespaceId, name: `a-${agentId.slice(-12)}`, servicePrincipalId: sp, createdById: boot, desiredState: shape === 'stopped' ? 'stopped' : 'running' } });
  const revision = async (state: 'FAILED' | 'ACTIVE') => {
    const id = `rev_${randomUUID()}`;
    await db.agentRevision.create({ data: { id, agentId, namespaceId, number: 1, secretDriverId: 'kubernetes-secret/v1', servicePrincipalId: sp, createdById: boot, state } });
    return id;
  };
  if (shape === 'deploying') await db.workItem.create({ data: { id: `wrk_${randomUUID()}`, kind: 'revision.deploy', idempotencyKey: randomUUID(), state: 'PENDING', concurrencyKey: agentId, payload: { agentId } } });
  if (shape === 'failed') await revision('FAILED');
  if (shape === 'running' || shape === 'degraded') {
    const id = await revision('ACTIVE');
    await db.agent.update({ where: { id: agentId }, data: { activeRevisionId: id } });
    await db.agentRuntime.create({ data: { agentId, instanceGeneration: 1, observedGeneration: 1, phase: shape === 'running' ? 'Running' : 'Progressing', ready: shape === 'running', reason: 'x', message: '', runningRevisionId: id, runningGeneration: 1, observedAt: new Date() } });
  }
  return agentId;
}

async function secretIn(namespaceId: string, stale: boolean): Promise<string> {
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const id = `sec_${randomUUID()}`;
  await db.secret.create({ data: { id, namespaceId, name: `s-${id.slice(-12)}`, driverId: 'kubernetes-secret/v1', backendNamespace: 'x', backendName: id, backendKey: 'value', backendUid: randomUUID(), version: 2, createdById: boot } });
  // A running revision holds it, at the current version or at an older one (stale, W7).
  const holder = await agentIn(namespaceId, 'running');
  const revisionId = (await db.agent.findUniqueOrThrow({ where: { id: holder } })).activeRevisionId!;
  await db.agentRevisionSecret.create({ data: { revisionId, secretId: id, purpose: 'binding', envName: 'TOKEN', version: stale ? 1 : 2 } });
  return id;
}

beforeAll(async () => {
  // No worker: the rows written below stay as written.
  stack = await startTestStack({ worker: false, onQuery: (sql) => void (/^UPDATE "public"\."ApiKey"/.test(sql) || statements.push(sql)) });
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const granted: { agent?: string; secret?: string } = {};
  // Three namespaces meant to read FAILING, ATTENTION and OK to the administrator: every agent
  // status in the first, no failing agent but stale secrets in the second, nothing in the third;
  // random extras of the same kinds besides.
  const plans = [
    { shapes: ['created', 'deploying', 'running', 'failed', 'degraded', 'stopped'] as const, stale: [true, false], rollouts: true },
    { shapes: ['created', 'deploying', 'running', 'stopped'] as const, stale: [false, true], rollouts: true },
    { shapes: ['running', 'created'] as const, stale: [false], rollouts: false },
  ];
  for (const [n, plan] of plans.entries()) {
    const ns = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `health-${n}-${randomUUID().slice(0, 6)}` } }), 'createNamespace').namespace.id as string;
    namespaces.push(ns);
    for (const shape of [...plan.shapes, ...Array.from({ length: random(4) }, () => pick(plan.shapes))]) {
      const id = await agentIn(ns, shape);
      if (n === 1) granted.agent ??= id;
    }
    for (const stale of [...plan.stale, ...Array.from({ length: random(3) }, () => pick(plan.stale))]) {
      const id = await secretIn(ns, stale);
      if (n === 1) granted.secret ??= id;
      if (!plan.rollouts) continue;
      // At most one open rollout per secret (a unique index), ended ones besides.
      for (const [j, state] of [pick(['AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'ROLLING', null]), ...(random(2) ? ['SUCCEEDED'] : [])].entries()) {
        if (!state) continue;
        const ended = state === 'SUCCEEDED' ? new Date(Date.now() - 1000 * (j + 1)) : null;
        await db.secretRollout.create({ data: { id: `sro_${randomUUID()}`, secretId: id, namespaceId: ns, state, policy: {}, targetVersion: 2, rotatedById: boot, endedAt: ended } });
        rollouts.push({ secretId: id, state });
      }
    }
  }
  const person = async (name: string, grants: Array<[string, Parameters<typeof grantBuiltInRole>[3]]>) => {
    const p = await createHumanPrincipal(db, name, boot);
    for (const [role, scope] of grants) await grantBuiltInRole(db, p.principalId, role, scope, boot);
    return p.apiKey;
  };
  keys.admin = undefined;
  keys.viewer = await person('health-viewer', [['namespace-viewer', { kind: 'namespace', namespaceId: namespaces[0]! }]]);
  // The namespace itself and one agent and one secret in it, not the rest.
  keys.granted = await person('health-granted', [
    ['namespace-viewer', { kind: 'resource', resourceKind: 'namespace', resourceId: namespaces[1]!, namespaceId: namespaces[1]! }],
    ['namespace-viewer', { kind: 'resource', resourceKind: 'agent', resourceId: granted.agent!, namespaceId: namespaces[1]! }],
    ['namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: granted.secret!, namespaceId: namespaces[1]! }],
  ]);
  keys.outsider = await person('health-outsider', []);
}, 180_000);
afterAll(() => stack?.close());

const HEALTH = `query($ns: ID!) { namespace(id: $ns) { health { status agents { total running failing failed degraded deploying } secrets { total stale } rolloutsAwaitingApproval } } }`;
const ORACLE = `query($ns: ID!) { namespace(id: $ns) { status agents(first: 100) { edges { node { status } } } secrets(first: 100) { totalCount edges { node { id } } } stale: secrets(stale: true) { totalCount } } }`;

describe('Namespace.health', () => {
  it('P6 W7 RC6 counts exactly what each reader may read, as its lists show it (agents by derived status, stale secrets, rollouts waiting), and names the health from it', async () => {
    let reachable = 0;
    const statuses = new Set<string>();
    for (const reader of ['admin', 'viewer', 'granted', 'outsider'] as const) {
      for (const ns of namespaces) {
        const oracle = await stack.gql(ORACLE, { ns }, { key: keys[reader] });
        const health = await stack.gql(HEALTH, { ns }, { key: keys[reader] });
        expect(health.body.errors, JSON.stringify(health.body.errors)).toBeUndefined();
        const o = oracle.body.data!.namespace;
        if (!o) {
          // A namespace the reader may not read: no health either (P6).
          expect(health.body.data!.namespace).toBeNull();
          continue;
        }
        reachable++;
        const agentStatuses: string[] = o.agents.edges.map((e: { node: { status: string } }) => e.node.status);
        const count = (...s: string[]) => agentStatuses.filter((x) => s.includes(x)).length;
        const readableSecrets = new Set(o.secrets.edges.map((e: { node: { id: string } }) => e.node.id));
        const waiting = rollouts.filter((r) => r.state === 'AWAITING_APPROVAL' && readableSecrets.has(r.secretId)).length;
        const failing = count('failed', 'degraded') > 0 || o.status === 'FAILED' || o.status === 'LOST';
        const expected = {
          agents: { total: agentStatuses.length, running: count('running'), failing: count('failed', 'degraded'), failed: count('failed'), degraded: count('degraded'), deploying: count('deploying') },
          secrets: { total: o.secrets.totalCount, stale: o.stale.totalCount },
          rolloutsAwaitingApproval: waiting,
          status: failing ? 'FAILING' : o.stale.totalCount > 0 || waiting > 0 ? 'ATTENTION' : 'OK',
        };
        expect(health.body.data!.namespace.health, `${reader} ${ns}`).toEqual(expected);
        statuses.add(expected.status);
      }
    }
    // The readers differ: the admin reaches all three, the viewer one, the granted reader one, the outsider none.
    expect(reachable).toBe(5);
    expect([...statuses].sort()).toEqual(['ATTENTION', 'FAILING', 'OK']);
  });

  it('a page of namespaces reads every health in three statements, whatever the page holds', async () => {
    const before = statements.length;
    await stack.gql('{ namespaces(first: 10) { edges { node { id } } } }');
    const plain = statements.length - before;
    const mid = statements.length;
    const answer = await stack.gql('{ namespaces(first: 10) { edges { node { id health { status agents { total } secrets { stale } rolloutsAwaitingApproval } } } } }');
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data!.namespaces.edges.length).toBe(3);
    expect(statements.length - mid - plain, statements.slice(mid).join('\n---\n')).toBe(3);
  });
});
