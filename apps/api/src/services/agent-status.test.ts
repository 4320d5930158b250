import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_NAMESPACE, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// RC6: an agent's status is derived on every read from its lifecycle, its desired state, the deploy
// work pending for it, its revisions and what the reconciler last observed of its gateway; nothing
// keeps it. Generated states, written as rows, read back through GraphQL (one agent, a page of
// agents, and the list's status filter), each compared with the rule as the issue words it.

let stack: TestStack;
let namespaceId: string;

type RevState = 'QUEUED' | 'PREPARING' | 'PREPARED' | 'ACTIVATING' | 'ACTIVE' | 'FAILED' | 'SUPERSEDED' | 'STOPPED';

interface Case {
  lifecycle: 'created' | 'deleting' | 'deleted';
  desiredState: 'running' | 'stopped';
  revisions: RevState[];
  /** Which revision is the agent's active one (index into revisions), or none. */
  active: number | null;
  work: Array<{ kind: 'deploy' | 'await' | 'reassert'; state: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' }>;
  runtime: null | { ready: boolean; runsActive: boolean };
}

/** The rule (RC6), independent of the SQL: what a reader of the agent should be told. */
function expected(c: Case): string {
  if (c.lifecycle !== 'created') return c.lifecycle;
  if (c.work.some((w) => w.state === 'PENDING' || w.state === 'RUNNING')) return 'deploying';
  if (c.active === null) {
    if (c.revisions.length === 0) return 'created';
    if (c.desiredState === 'stopped') return 'stopped';
    return c.revisions[c.revisions.length - 1] === 'FAILED' ? 'failed' : 'created';
  }
  if (c.desiredState === 'stopped') return 'stopped';
  const active = c.revisions[c.active];
  if (active === 'FAILED') return 'failed';
  if (active === 'ACTIVE' && (c.runtime === null || (c.runtime.ready && c.runtime.runsActive))) return 'running';
  return 'degraded';
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    lifecycle: fc.constantFrom('created', 'created', 'created', 'deleting', 'deleted'),
    desiredState: fc.constantFrom('running', 'stopped'),
    revisions: fc.array(fc.constantFrom<RevState>('QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING', 'ACTIVE', 'FAILED', 'SUPERSEDED', 'STOPPED'), { maxLength: 4 }),
    activePick: fc.nat(),
    hasActive: fc.boolean(),
    work: fc.array(fc.record({ kind: fc.constantFrom('deploy', 'await', 'reassert'), state: fc.constantFrom('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED') }), { maxLength: 3 }),
    runtime: fc.option(fc.record({ ready: fc.boolean(), runsActive: fc.boolean() }), { nil: null }),
  })
  .map((r) => {
    // At most one activating or active revision per agent (RC8's constraint): keep the first.
    let seen = false;
    const revisions = r.revisions.map((s) => {
      if (s !== 'ACTIVE' && s !== 'ACTIVATING') return s;
      if (seen) return 'SUPERSEDED' as const;
      seen = true;
      return s;
    });
    const active = r.hasActive && revisions.length > 0 ? r.activePick % revisions.length : null;
    return { lifecycle: r.lifecycle, desiredState: r.desiredState, revisions, active, work: r.work, runtime: r.runtime } as Case;
  });

async function insert(c: Case): Promise<string> {
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const agentId = `agt_${randomUUID()}`;
  const sp = `spn_${randomUUID()}`;
  await db.principal.create({ data: { id: sp, kind: 'SERVICE', name: `agent:${agentId}` } });
  await db.agent.create({ data: { id: agentId, namespaceId, name: `a-${agentId.slice(-12)}`, servicePrincipalId: sp, createdById: boot, status: c.lifecycle, desiredState: c.desiredState } });
  const ids: string[] = [];
  for (const [i, state] of c.revisions.entries()) {
    const id = `rev_${randomUUID()}`;
    ids.push(id);
    await db.agentRevision.create({ data: { id, agentId, namespaceId, number: i + 1, secretDriverId: 'kubernetes-secret/v1', servicePrincipalId: sp, createdById: boot, state } });
  }
  if (c.active !== null) await db.agent.update({ where: { id: agentId }, data: { activeRevisionId: ids[c.active]! } });
  for (const [i, w] of c.work.entries()) {
    const key = w.kind === 'await' ? `await:${agentId}` : agentId;
    // One RUNNING item per key (the queue's constraint): a second becomes PENDING.
    const state = w.state === 'RUNNING' && c.work.slice(0, i).some((o) => o.state === 'RUNNING' && (o.kind === 'await') === (w.kind === 'await')) ? 'PENDING' : w.state;
    await db.workItem.create({ data: { id: `wrk_${randomUUID()}`, kind: w.kind === 'deploy' ? 'revision.deploy' : w.kind === 'await' ? 'revision.await' : 'agent.reassert', idempotencyKey: randomUUID(), state, concurrencyKey: key, payload: { agentId } } });
  }
  if (c.runtime) {
    const runningId = c.runtime.runsActive && c.active !== null ? ids[c.active]! : null;
    await db.agentRuntime.create({ data: { agentId, instanceGeneration: 1, observedGeneration: 1, phase: c.runtime.ready ? 'Running' : 'Progressing', ready: c.runtime.ready, reason: 'x', message: '', runningRevisionId: runningId, runningGeneration: 1, observedAt: new Date() } });
  }
  return agentId;
}

beforeAll(async () => {
  // No worker: the work items a case writes must stay as written.
  stack = await startTestStack({ worker: false });
  namespaceId = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: `status-${randomUUID().slice(0, 6)}` } }), 'createNamespace').namespace.id;
  await stack.runtime.worker.drain();
}, 120_000);

afterAll(() => stack?.close());

describe('an agent\'s status, derived on every read (RC6)', { timeout: 300_000 }, () => {
  it('RC6 one agent, a page of agents (its status asked for in every spelling) and the status filter all answer the rule, for generated states of lifecycle, desired state, work, revisions and runtime', async () => {
    const cases: Array<{ id: string; c: Case }> = [];
    const check = async (c: Case) => {
      const id = await insert(c);
      cases.push({ id, c });
      const one = payload(await stack.gql(`query($id: ID!) { agent(id: $id) { status } }`, { id }), 'agent');
      expect(one.status, JSON.stringify(c)).toBe(expected(c));
    };
    // Every combination of the states that decide (a matrix), then generated ones besides.
    const revisionPatterns: Array<Pick<Case, 'revisions' | 'active'>> = [
      { revisions: [], active: null },
      { revisions: ['FAILED'], active: null },
      { revisions: ['SUPERSEDED'], active: null },
      { revisions: ['SUPERSEDED', 'QUEUED'], active: null },
      { revisions: ['ACTIVE'], active: 0 },
      { revisions: ['ACTIVATING'], active: 0 },
      { revisions: ['FAILED'], active: 0 },
      { revisions: ['ACTIVE', 'FAILED'], active: 0 },
    ];
    const works: Case['work'][] = [[], [{ kind: 'deploy', state: 'PENDING' }], [{ kind: 'await', state: 'RUNNING' }], [{ kind: 'deploy', state: 'SUCCEEDED' }, { kind: 'reassert', state: 'FAILED' }]];
    const runtimes: Case['runtime'][] = [null, { ready: true, runsActive: true }, { ready: true, runsActive: false }, { ready: false, runsActive: true }];
    for (const lifecycle of ['created', 'deleting'] as const)
      for (const desiredState of ['running', 'stopped'] as const)
        for (const pattern of revisionPatterns) for (const work of works) for (const runtime of runtimes) await check({ lifecycle, desiredState, ...pattern, work, runtime });
    await fc.assert(fc.asyncProperty(caseArb, check), { numRuns: 60 });
    // The same statuses through pages and the filter (the SQL of lists). A page derives the
    // status only when asked for it (AgentReads.status): every way a document can ask must count.
    const spellings: Record<string, { node: string; fragments?: string }> = {
      plain: { node: 'id status' },
      aliased: { node: 'id s: status' },
      'inline fragment': { node: 'id ... on Agent { status }' },
      'named fragment': { node: 'id ...S', fragments: 'fragment S on Agent { status }' },
      '@include': { node: 'id status @include(if: true)' },
      'with the configuration': { node: 'id status configuration { id }' },
    };
    const all = async (status: string | null, spelling = spellings.plain!) => {
      const out: Array<{ id: string; status: string }> = [];
      for (let after: string | null = null; ; ) {
        const page: { edges: Array<{ node: { id: string; status?: string; s?: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } } = payload(
          await stack.gql(
            `query($ns: ID!, $s: String, $after: String) { namespace(id: $ns) { agents(first: 100, status: $s, after: $after) { edges { node { ${spelling.node} } } pageInfo { hasNextPage endCursor } } } } ${spelling.fragments ?? ''}`,
            { ns: namespaceId, s: status, after },
          ),
          'namespace',
        ).agents;
        out.push(...page.edges.map((e) => ({ id: e.node.id, status: (e.node.status ?? e.node.s)! })));
        if (!page.pageInfo.hasNextPage) return out;
        after = page.pageInfo.endCursor;
      }
    };
    for (const [name, spelling] of Object.entries(spellings)) {
      const byId = new Map((await all(null, spelling)).map((n) => [n.id, n.status]));
      for (const { id, c } of cases) expect(byId.get(id), `${name}: ${JSON.stringify(c)}`).toBe(expected(c));
    }
    for (const status of ['created', 'deploying', 'running', 'degraded', 'failed', 'stopped', 'deleting', 'deleted']) {
      const got = (await all(status)).map((n) => n.id).sort();
      expect(got, status).toEqual(cases.filter(({ c }) => expected(c) === status).map(({ id }) => id).sort());
    }
    // Every status the rule knows was generated at least once.
    expect(new Set(cases.map(({ c }) => expected(c))).size).toBeGreaterThanOrEqual(7);
  });
});
