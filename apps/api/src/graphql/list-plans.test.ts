import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadyNamespace } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// Issue 13: on 10,000 rows, every list's page query (first page and a page deep into the data)
// and every audit filter is answered through an index that also gives the order: no sequential
// scan of the table and no sort of its rows.
// The SQL is what Prisma really sent for a GraphQL request, EXPLAINed with its own parameters.

const ROWS = 10_000;
let stack: TestStack;
let nsId: string;
let captured: Array<{ sql: string; params: string }> = [];
let granteeId: string;
let historyCfgId: string;
let busyAgentId: string;

function rowsAt(i: number): Date {
  return new Date(Date.UTC(2026, 0, 1) + i * 1000);
}

beforeAll(async () => {
  stack = await startTestStack({ worker: true, onQuery: (sql, params) => captured.push({ sql, params }) });
  nsId = await createReadyNamespace(stack, 'plans');
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  // Rows written directly: the plans depend on the table's size and shape, not on how rows came.
  await db.namespace.createMany({ data: Array.from({ length: ROWS }, (_, i) => ({ id: `ns_${randomUUID()}`, name: `bulk-${i}`, k8sName: `occ-bulk-${i}`, createdById: boot, status: 'READY' as const, createdAt: rowsAt(i) })) });
  await db.secret.createMany({
    data: Array.from({ length: ROWS }, (_, i) => ({
      id: `sec_${randomUUID()}`, namespaceId: nsId, name: `s-${i}`, driverId: 'kubernetes', backendNamespace: 'x', backendName: `x-${i}`, backendKey: 'value', backendUid: randomUUID(), createdById: boot, createdAt: rowsAt(i),
    })),
  });
  await db.configuration.createMany({ data: Array.from({ length: ROWS }, (_, i) => ({ id: `cfg_${randomUUID()}`, namespaceId: nsId, name: `c-${i}`, values: {}, createdById: boot, createdAt: rowsAt(i) })) });
  const humans = Array.from({ length: ROWS }, () => `prn_${randomUUID()}`);
  await db.principal.createMany({ data: humans.map((id, i) => ({ id, kind: 'HUMAN' as const, name: `u-${i}`, createdAt: rowsAt(i) })) });
  // One subject holding 10,000 grants (secret-operator on each secret), among others' grants.
  granteeId = humans[0]!;
  const secretIds = (await db.secret.findMany({ where: { namespaceId: nsId }, select: { id: true } })).map((r) => r.id);
  await db.accessBinding.createMany({
    data: secretIds.map((resourceId, i) => ({
      id: `bnd_${randomUUID()}`, subjectId: i % 2 ? granteeId : humans[i]!, roleId: 'rol_secret-operator', scopeKind: 'RESOURCE' as const, namespaceId: nsId, resourceKind: 'secret', resourceId, createdById: boot, createdAt: rowsAt(i),
    })),
  });
  await db.accessBinding.createMany({
    data: secretIds.map((resourceId, i) => ({
      id: `bnd_${randomUUID()}`, subjectId: granteeId, roleId: 'rol_secret-operator', scopeKind: 'RESOURCE' as const, namespaceId: nsId, resourceKind: 'secret', resourceId, createdById: boot, createdAt: rowsAt(ROWS + i),
    })),
  });
  const spns = Array.from({ length: ROWS }, () => `spn_${randomUUID()}`);
  await db.principal.createMany({ data: spns.map((id, i) => ({ id, kind: 'SERVICE' as const, name: `agent:a-${i}`, createdAt: rowsAt(i) })) });
  await db.agent.createMany({ data: spns.map((sp, i) => ({ id: `agt_${randomUUID()}`, namespaceId: nsId, name: `a-${i}`, servicePrincipalId: sp, createdById: boot, createdAt: rowsAt(i) })) });
  await db.auditEvent.createMany({
    data: Array.from({ length: ROWS }, (_, i) => ({
      id: `aud_${randomUUID()}`, at: rowsAt(i), actorId: i % 100 === 0 ? boot : spns[i % ROWS]!, action: i % 2 ? 'secret.create' : 'agent.update', resourceKind: 'secret', namespaceId: i % 3 ? nsId : null, outcome: 'SUCCESS' as const,
    })),
  });
  // Each agent on a configuration of its own, bound to one secret (the joined page of agents).
  await db.$executeRawUnsafe(`UPDATE "Agent" a SET "configurationId" = c.id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "Configuration") c,
    (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "Agent") x WHERE x.id = a.id AND x.n = c.n`);
  await db.$executeRawUnsafe(`INSERT INTO "ConfigurationSecretBinding" ("configurationId", "envName", "secretId") SELECT c.id, 'BOT_TOKEN', s.id
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "Configuration") c JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "Secret") s ON s.n = c.n`);
  // One configuration with 10,000 generations, among the others' single ones.
  historyCfgId = (await db.configuration.findFirstOrThrow({ where: { namespaceId: nsId }, select: { id: true } })).id;
  await db.configurationGeneration.createMany({ data: Array.from({ length: ROWS }, (_, i) => ({ configurationId: historyCfgId, generation: i + 1, values: {}, createdById: boot, createdAt: rowsAt(i) })) });
  const others = await db.configuration.findMany({ where: { namespaceId: nsId, id: { not: historyCfgId } }, select: { id: true } });
  await db.configurationGeneration.createMany({ data: others.map((c) => ({ configurationId: c.id, generation: 1, values: {}, createdById: boot })) });
  // One agent with 10,000 revisions, and 10,000 SelfConfig requests of agents (lists still read
  // through Prisma, whose cursor needs the range bound pagination.ts adds).
  busyAgentId = (await db.agent.findFirstOrThrow({ where: { namespaceId: nsId, name: 'a-0' }, select: { id: true } })).id;
  await db.agentRevision.createMany({
    data: Array.from({ length: ROWS }, (_, i) => ({
      id: `rev_${randomUUID()}`, agentId: busyAgentId, namespaceId: nsId, number: i + 1, secretDriverId: 'kubernetes', servicePrincipalId: spns[0]!, createdById: boot, state: 'SUPERSEDED' as const, createdAt: rowsAt(i),
    })),
  });
  await db.selfConfigRequest.createMany({
    data: Array.from({ length: ROWS }, (_, i) => ({
      id: `scr_${randomUUID()}`, uid: randomUUID(), k8sNamespace: 'occ-x', name: `r-${i}`, instanceRef: 'i', namespaceId: nsId, agentId: i % 2 ? busyAgentId : null, createdAt: rowsAt(i),
    })),
  });
  // RC6: an agent's status is derived on each read from its pending work, its revisions and its
  // runtime row: a busy installation's tables of those, so the plans are the ones it would get.
  const agentIds = (await db.agent.findMany({ where: { namespaceId: nsId }, select: { id: true } })).map((a) => a.id);
  await db.workItem.createMany({
    data: agentIds.map((agentId, i) => ({ id: `wrk_${randomUUID()}`, kind: 'revision.deploy', idempotencyKey: `bulk-${i}`, state: 'SUCCEEDED' as const, concurrencyKey: agentId, payload: { agentId }, createdAt: rowsAt(i) })),
  });
  await db.agentRuntime.createMany({
    data: agentIds.map((agentId) => ({ agentId, instanceGeneration: 1, observedGeneration: 1, phase: 'Running', ready: true, reason: 'GatewayReady', message: '', observedAt: rowsAt(0) })),
  });
  await db.$executeRawUnsafe('ANALYZE');
}, 300_000);
afterAll(() => stack?.close());

/** The plan of the list query a GraphQL request sent to `table` (the one with ORDER BY). */
async function plansOf(table: string, query: string, variables: Record<string, unknown>): Promise<string[]> {
  captured = [];
  const res = await stack.gql(query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  // A batched first page (LATERAL, one per parent) bounds its rows by an index range and needs no ORDER BY.
  const lists = captured.filter((q) => q.sql.includes(`FROM "public"."${table}"`) && (q.sql.includes('ORDER BY') || q.sql.includes('LATERAL')));
  expect(lists.length, `a list query on ${table}`).toBeGreaterThan(0);
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const plans: string[] = [];
    for (const q of lists) {
      // ANALYZE: the plan as run, with the rows each node read and threw away.
      const rows = (await client.query(`EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ${q.sql}`, JSON.parse(q.params) as unknown[])).rows as Array<{ 'QUERY PLAN': string }>;
      plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    return plans;
  } finally {
    await client.end();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are walked by each case's path
type Data = Record<string, any>;

/** A deep page starts after this many pages of 100. */
const DEEP_PAGES = 5;

async function deepCursor(query: string, path: (data: Data) => { pageInfo: { endCursor: string } }, variables: Record<string, unknown>): Promise<string> {
  let cursor: string | null = null;
  for (let i = 0; i < DEEP_PAGES; i++) cursor = path((await stack.gql(query, { ...variables, first: 100, after: cursor })).body.data!).pageInfo.endCursor;
  return cursor!;
}

const CASES: Array<{
  table: string;
  query: string;
  path: (d: Data) => { pageInfo: { endCursor: string } };
  vars?: () => Record<string, unknown>;
  /** Tables the page's statement joins to its rows: each read by index too, and the joined rows (after the limit) may be sorted. */
  joined?: string[];
  /** Tables the statement reads per row in subqueries (RC6's derived status): each by index. */
  perRow?: string[];
}> = [
  { table: 'Namespace', query: `query($first: Int, $after: String) { namespaces(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.namespaces },
  { table: 'Secret', query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { secrets(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } } }`, path: (d) => d.namespace.secrets, vars: () => ({ ns: nsId }) },
  { table: 'Configuration', query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { configurations(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } } }`, path: (d) => d.namespace.configurations, vars: () => ({ ns: nsId }) },
  {
    table: 'Agent',
    query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { agents(first: $first, after: $after) { edges { node { id status } } pageInfo { endCursor } } } }`,
    path: (d) => d.namespace.agents,
    vars: () => ({ ns: nsId }),
    perRow: ['WorkItem', 'AgentRevision', 'AgentRuntime'],
  },
  {
    table: 'Agent',
    perRow: ['WorkItem', 'AgentRevision', 'AgentRuntime'],
    query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { agents(first: $first, after: $after) { edges { node { id configuration { secretBindings { secret { id } } } } } pageInfo { endCursor } } } }`,
    path: (d) => d.namespace.agents,
    vars: () => ({ ns: nsId }),
    joined: ['Configuration', 'ConfigurationSecretBinding', 'Secret'],
  },
  { table: 'Principal', query: `query($first: Int, $after: String) { users(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.users },
  { table: 'AccessBinding', query: `query($subject: ID!, $first: Int, $after: String) { accessBindings(subjectId: $subject, first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.accessBindings, vars: () => ({ subject: granteeId }) },
  { table: 'AuditEvent', query: `query($first: Int, $after: String) { auditEvents(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.auditEvents },
  { table: 'AuditEvent', query: `query($first: Int, $after: String, $ns: ID) { auditEvents(first: $first, after: $after, filter: { namespaceId: $ns }) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.auditEvents, vars: () => ({ ns: nsId }) },
  { table: 'AuditEvent', query: `query($first: Int, $after: String, $actor: ID) { auditEvents(first: $first, after: $after, filter: { actorId: $actor }) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.auditEvents, vars: () => ({ actor: stack.runtime.installation.bootstrapPrincipalId }) },
  {
    table: 'AgentRevision',
    query: `query($agent: ID!, $first: Int, $after: String) { agent(id: $agent) { revisions(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } } }`,
    path: (d) => d.agent.revisions,
    vars: () => ({ agent: busyAgentId }),
  },
  { table: 'SelfConfigRequest', query: `query($first: Int, $after: String) { selfConfigRequests(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.selfConfigRequests },
  {
    table: 'SelfConfigRequest',
    query: `query($first: Int, $after: String, $agent: ID) { selfConfigRequests(first: $first, after: $after, agentId: $agent) { edges { node { id } } pageInfo { endCursor } } }`,
    path: (d) => d.selfConfigRequests,
    vars: () => ({ agent: busyAgentId }),
  },
  {
    table: 'ConfigurationGeneration',
    query: `query($cfg: ID!, $first: Int, $after: String) { configuration(id: $cfg) { generations(first: $first, after: $after) { edges { node { generation } } pageInfo { endCursor } } } }`,
    path: (d) => d.configuration.generations,
    vars: () => ({ cfg: historyCfgId }),
  },
];

describe('list plans on 10,000 rows', () => {
  CASES.forEach((c, i) => {
    it(`#${i} ${c.table}: the first page and a deep page are read through an index that gives the order and starts at the cursor: no sequential scan, no sort, no rows before the cursor read and thrown away`, async () => {
      const vars = c.vars?.() ?? {};
      for (const after of [null, await deepCursor(c.query, c.path, vars)]) {
        for (const plan of await plansOf(c.table, c.query, { ...vars, first: 20, after })) {
          for (const table of [c.table, ...(c.joined ?? []), ...(c.perRow ?? [])]) expect(plan, plan).not.toMatch(new RegExp(`Seq Scan on "?${table}\\b`));
          expect(plan).toMatch(/Index/);
          // The index serves the order too: no sort of the matching rows before the limit. A
          // statement that joins other rows to the page sorts those, above the limit.
          expect(c.joined ? plan.slice(plan.indexOf('Limit')) : plan, plan).not.toMatch(/\bSort\b/);
          if (c.joined) expect(plan).toMatch(/Limit/);
          // The cursor bounds the index range: a deep page does not read the DEEP_PAGES × 100 rows
          // before it and filter them out (a cursor written as an OR of comparisons does).
          // A filter on other columns (a namespace's events read from the global order index, which
          // the planner may choose when that namespace holds most rows) removes rows of other
          // namespaces, not rows before the cursor: only filters that compare the order's columns count.
          for (const removed of plan.matchAll(/Filter: (.*)\n\s*Rows Removed by Filter: (\d+)/g)) {
            if (/"?(at|createdAt|id|number|generation)"?\s*[<>]/.test(removed[1]!)) expect(Number(removed[2]), plan).toBeLessThan(100);
          }
        }
      }
    });
  });
});
