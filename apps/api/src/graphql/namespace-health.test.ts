import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_NAMESPACE, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';

// Namespace.health counts what the reader may read of a namespace: agents by status, secrets and
// stale ones, rollouts and SelfConfig requests waiting for an approval, the last day's failures.
// The oracle is the product's own lists, read as the same reader (the agents list with each
// agent's status, the secrets list and its stale filter, each rollout's secret by node(id:), the
// SelfConfig list filtered to AwaitingApproval, the audit log filtered to FAILURE since the
// window's start): generated namespaces of agents in every status, secrets stale or not, rollouts
// and requests in every state, audit events of every outcome inside and outside the window, read
// by an administrator, a namespace administrator, a namespace viewer, a reader of single rows, an
// agent's own token and someone with no grant.

let stack: TestStack;
/** Statements sent (the key's lastUsedAt update aside: it comes once a while, not per request). */
const statements: string[] = [];
const namespaces: string[] = [];
const rollouts: Array<{ secretId: string; state: string }> = [];
type Reader = 'admin' | 'nsAdmin' | 'viewer' | 'granted' | 'agent' | 'outsider';
const READERS = ['admin', 'nsAdmin', 'viewer', 'granted', 'agent', 'outsider'] as const satisfies readonly Reader[];
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

async function selfConfigRequestIn(namespaceId: string, agentId: string, phase: string, decided: boolean): Promise<void> {
  const id = `scr_${randomUUID()}`;
  await stack.runtime.db.selfConfigRequest.create({
    data: { id, uid: randomUUID(), k8sNamespace: 'x', name: id.slice(-12), instanceRef: agentId, namespaceId, agentId, phase, ...(decided ? { approvalDecision: 'approved', approvalAt: new Date() } : {}) },
  });
}

const HOUR = 60 * 60 * 1000;

/** An audit event of the namespace `hoursAgo` hours ago (inside the day's window or outside it). */
async function auditIn(namespaceId: string, outcome: 'FAILURE' | 'SUCCESS' | 'DENIED', hoursAgo: number): Promise<void> {
  await stack.runtime.db.auditEvent.create({
    data: { id: `aud_${randomUUID()}`, at: new Date(Date.now() - hoursAgo * HOUR), systemActor: 'worker', action: 'revision.fail', resourceKind: 'agentRevision', resourceId: `rev_${randomUUID()}`, namespaceId, outcome },
  });
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
  const agentsOf: string[][] = [];
  // Three namespaces meant to read FAILING, ATTENTION and OK to the administrator: every agent
  // status in the first, no failing agent but stale secrets in the second, nothing in the third;
  // random extras of the same kinds besides.
  const plans = [
    { shapes: ['created', 'deploying', 'running', 'failed', 'degraded', 'stopped'] as const, stale: [true, false], rollouts: true, requests: true },
    { shapes: ['created', 'deploying', 'running', 'stopped'] as const, stale: [false, true], rollouts: true, requests: true },
    { shapes: ['running', 'created'] as const, stale: [false], rollouts: false, requests: false },
  ];
  for (const [n, plan] of plans.entries()) {
    const ns = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `health-${n}-${randomUUID().slice(0, 6)}` } }), 'createNamespace').namespace.id as string;
    namespaces.push(ns);
    for (const shape of [...plan.shapes, ...Array.from({ length: random(4) }, () => pick(plan.shapes))]) {
      const id = await agentIn(ns, shape);
      if (n === 1) granted.agent ??= id;
      (agentsOf[n] ??= []).push(id);
    }
    // Requests in other phases everywhere; waiting ones (decided or not) only where planned, one
    // undecided on the granted agent for sure. Failures (and other outcomes) inside and outside
    // the last day's window everywhere: they do not make a namespace less than OK.
    const phases = plan.requests ? ['AwaitingApproval', 'AwaitingApproval', 'Applied', 'Failed', 'Pending'] : ['Applied', 'Failed', 'Rejected'];
    for (const agentId of agentsOf[n]!) {
      for (let k = random(3); k > 0; k--) await selfConfigRequestIn(ns, agentId, pick(phases), random(3) === 0);
    }
    if (n === 1) await selfConfigRequestIn(ns, granted.agent!, 'AwaitingApproval', false);
    for (let k = 2 + random(5); k > 0; k--) await auditIn(ns, pick(['FAILURE', 'FAILURE', 'SUCCESS', 'DENIED'] as const), pick([1, 23, 25, 48]));
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
  keys.nsAdmin = await person('health-ns-admin', [['namespace-admin', { kind: 'namespace', namespaceId: namespaces[0]! }]]);
  keys.viewer = await person('health-viewer', [['namespace-viewer', { kind: 'namespace', namespaceId: namespaces[0]! }]]);
  // The namespace itself and one agent and one secret in it, not the rest.
  keys.granted = await person('health-granted', [
    ['namespace-viewer', { kind: 'resource', resourceKind: 'namespace', resourceId: namespaces[1]!, namespaceId: namespaces[1]! }],
    ['namespace-viewer', { kind: 'resource', resourceKind: 'agent', resourceId: granted.agent!, namespaceId: namespaces[1]! }],
    ['namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: granted.secret!, namespaceId: namespaces[1]! }],
  ]);
  keys.outsider = await person('health-outsider', []);
  // The granted agent's own token, with the namespace readable and nothing else: its own requests
  // are its to read (the SelfConfig list's rule), the other agents' are not.
  const sp = (await db.agent.findUniqueOrThrow({ where: { id: granted.agent! } })).servicePrincipalId;
  await grantBuiltInRole(db, sp, 'namespace-viewer', { kind: 'resource', resourceKind: 'namespace', resourceId: namespaces[1]!, namespaceId: namespaces[1]! }, boot);
  const created = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } ... on Error { code message } } }`, { i: { principalId: sp } }), 'createApiKey');
  keys.agent = created.apiKey as string;
}, 180_000);
afterAll(() => stack?.close());

const HEALTH = `query($ns: ID!) { namespace(id: $ns) { health { status agents { total running failing failed degraded deploying } secrets { total stale } rolloutsAwaitingApproval selfConfigAwaitingApproval recentFailures recentFailuresSince } } }`;
const ORACLE = `query($ns: ID!, $since: DateTime!) {
  namespace(id: $ns) { status agents(first: 100) { edges { node { status } } } secrets(first: 100) { totalCount edges { node { id } } } stale: secrets(stale: true) { totalCount } }
  selfConfigRequests(namespaceId: $ns, phase: "AwaitingApproval", first: 100) { edges { node { approval { decision } } } }
  auditEvents(first: 1, filter: { namespaceId: $ns, outcome: FAILURE, from: $since }) { totalCount }
}`;

describe('Namespace.health', () => {
  it('P6 W7 RC6 counts exactly what each reader may read, as its lists show it (agents by derived status, stale secrets, rollouts waiting), and names the health from it', async () => {
    let reachable = 0;
    const statuses = new Set<string>();
    const seen = { waiting: new Set<number>(), failures: new Set<number | null>() };
    for (const reader of READERS) {
      for (const ns of namespaces) {
        const health = await stack.gql(HEALTH, { ns }, { key: keys[reader] });
        expect(health.body.errors, JSON.stringify(health.body.errors)).toBeUndefined();
        const since = health.body.data!.namespace?.health.recentFailuresSince ?? new Date().toISOString();
        const oracle = await stack.gql(ORACLE, { ns, since }, { key: keys[reader] });
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
        const requests: Array<{ node: { approval: { decision: string } | null } }> = oracle.body.data!.selfConfigRequests.edges;
        const requestsWaiting = requests.filter((e) => e.node.approval === null).length;
        expect(oracle.body.errors, JSON.stringify(oracle.body.errors)).toBeUndefined();
        // Only the administrators read audit events here (everywhere; namespace 0). To anyone else
        // the audit log is an empty list, and the health says null: not a 0 about a log they cannot see.
        const readsAudit = reader === 'admin' || (reader === 'nsAdmin' && ns === namespaces[0]);
        const failures = readsAudit ? (oracle.body.data!.auditEvents.totalCount as number) : null;
        if (!readsAudit) expect(oracle.body.data!.auditEvents.totalCount).toBe(0);
        const failing = count('failed', 'degraded') > 0 || o.status === 'FAILED' || o.status === 'LOST';
        const expected = {
          agents: { total: agentStatuses.length, running: count('running'), failing: count('failed', 'degraded'), failed: count('failed'), degraded: count('degraded'), deploying: count('deploying') },
          secrets: { total: o.secrets.totalCount, stale: o.stale.totalCount },
          rolloutsAwaitingApproval: waiting,
          selfConfigAwaitingApproval: requestsWaiting,
          recentFailures: failures,
          recentFailuresSince: since,
          status: failing ? 'FAILING' : o.stale.totalCount > 0 || waiting > 0 || requestsWaiting > 0 ? 'ATTENTION' : 'OK',
        };
        expect(health.body.data!.namespace.health, `${reader} ${ns}`).toEqual(expected);
        expect(Date.parse(since)).toBeGreaterThan(Date.now() - 24 * HOUR - 60_000);
        statuses.add(expected.status);
        seen.waiting.add(requestsWaiting);
        seen.failures.add(failures);
      }
    }
    // The readers differ: the admin reaches all three, the namespace admin and the viewer one each,
    // the granted reader and the agent one each, the outsider none.
    expect(reachable).toBe(7);
    expect([...statuses].sort()).toEqual(['ATTENTION', 'FAILING', 'OK']);
    // The generated data reached every case: requests waiting and none, failures counted, none, and hidden.
    expect(seen.waiting.has(0) && [...seen.waiting].some((n) => n > 0)).toBe(true);
    expect(seen.failures.has(null) && [...seen.failures].some((n) => n !== null && n > 0)).toBe(true);
  });

  it('a page of namespaces reads every health in five statements, whatever the page holds', async () => {
    const before = statements.length;
    await stack.gql('{ namespaces(first: 10) { edges { node { id } } } }');
    const plain = statements.length - before;
    const mid = statements.length;
    const answer = await stack.gql('{ namespaces(first: 10) { edges { node { id health { status agents { total } secrets { stale } rolloutsAwaitingApproval selfConfigAwaitingApproval recentFailures } } } } }');
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data!.namespaces.edges.length).toBe(3);
    expect(statements.length - mid - plain, statements.slice(mid).join('\n---\n')).toBe(5);
  });
});
