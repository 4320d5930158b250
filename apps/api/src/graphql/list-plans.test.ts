import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../services/api-keys.ts';
import { createReadyNamespace } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// On 10,000 rows, every list's page query (first page and a page deep into the data)
// and every audit filter is answered through an index that also gives the order: no sequential
// scan of the table and no sort of its rows.
// The SQL is what Prisma really sent for a GraphQL request, EXPLAINed with its own parameters.
//
// The same for readers who are not the unrestricted administrator. The rows lie in 100
// namespaces (the big one and 99 of 100 rows each); each list is also read by the administrator
// of one of them, by a reader with 50 single-resource grants of the list's kind in the big one,
// and by a reader with both. Their visibility must be index ranges in the list's order (each read
// a page at most, merged) or a lookup of the granted rows: no bitmap scan of a namespace's rows,
// no walk of other namespaces' rows filtered away, no sort of more than the grants and a page per
// range.

const ROWS = 10_000;
let stack: TestStack;
let nsId: string;
let captured: Array<{ sql: string; params: string }> = [];
let granteeId: string;
let historyCfgId: string;
let busyAgentId: string;
/** One of the 99 small namespaces, an agent in it with 100 revisions, and its namespace administrator. */
let smallNsId: string;
let smallAgentId: string;
const SMALL = 100;
const GRANTS = 50;
interface Reader {
  name: string;
  key?: string;
  /** The namespace, agent and configuration whose lists this reader reads. */
  ns: () => string;
  agent: () => string;
  cfg: () => string;
}
const readers: Record<'admin' | 'namespaceAdmin' | 'granted' | 'mixed', Reader> = {
  admin: { name: 'the installation administrator', ns: () => nsId, agent: () => busyAgentId, cfg: () => historyCfgId },
  namespaceAdmin: { name: `the administrator of one of 100 namespaces`, ns: () => smallNsId, agent: () => smallAgentId, cfg: () => historyCfgId },
  granted: { name: `a reader with ${GRANTS} single-resource grants of each kind`, ns: () => nsId, agent: () => busyAgentId, cfg: () => historyCfgId },
  mixed: { name: `a namespace administrator with ${GRANTS} grants of each kind in another namespace`, ns: () => nsId, agent: () => busyAgentId, cfg: () => historyCfgId },
};

function rowsAt(i: number): Date {
  return new Date(Date.UTC(2026, 0, 1) + i * 1000);
}

beforeAll(async () => {
  stack = await startTestStack({ worker: true, onQuery: (sql, params) => captured.push({ sql, params }) });
  nsId = await createReadyNamespace(stack, 'plans');
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  // Rows written directly: the plans depend on the table's size and shape, not on how rows came.
  const bulkIds = Array.from({ length: ROWS }, () => `ns_${randomUUID()}`);
  await db.namespace.createMany({ data: Array.from({ length: ROWS }, (_, i) => ({ id: bulkIds[i]!, name: `bulk-${i}`, k8sName: `occ-bulk-${i}`, createdById: boot, status: 'READY' as const, createdAt: rowsAt(i) })) });
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
  await fillSmallNamespaces(bulkIds.slice(0, 99), spns);
  await db.$executeRawUnsafe('ANALYZE');
}, 600_000);

/**
 * 99 namespaces of SMALL rows of each kind beside the big one, and the scoped readers:
 * the administrator of one of them, a reader with GRANTS namespace-viewer grants on single rows of
 * each kind in the big one (and on the big namespace itself, to reach its lists), and a reader
 * holding both.
 */
async function fillSmallNamespaces(small: string[], spns: string[]): Promise<void> {
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  smallNsId = small[0]!;
  const each = <T>(make: (namespaceId: string, i: number, n: number) => T): T[] => small.flatMap((namespaceId, n) => Array.from({ length: SMALL }, (_, i) => make(namespaceId, i, n)));
  // Times spread over the big namespace's, so the ranges interleave in the order indexes.
  const at = (i: number, n: number) => rowsAt(((i * small.length + n) * ROWS) / (SMALL * small.length) + 0.5);
  await db.secret.createMany({ data: each((namespaceId, i, n) => ({ id: `sec_${randomUUID()}`, namespaceId, name: `s-${i}`, driverId: 'kubernetes', backendNamespace: 'x', backendName: `y-${n}-${i}`, backendKey: 'value', backendUid: randomUUID(), createdById: boot, createdAt: at(i, n) })) });
  await db.configuration.createMany({ data: each((namespaceId, i, n) => ({ id: `cfg_${randomUUID()}`, namespaceId, name: `c-${i}`, values: {}, createdById: boot, createdAt: at(i, n) })) });
  const smallSpns = each(() => `spn_${randomUUID()}`);
  await db.principal.createMany({ data: smallSpns.map((id, i) => ({ id, kind: 'SERVICE' as const, name: `agent:small-${i}`, createdAt: rowsAt(i) })) });
  const agents = each((namespaceId, i, n) => ({ id: `agt_${randomUUID()}`, namespaceId, name: `a-${i}`, servicePrincipalId: smallSpns[n * SMALL + i]!, createdById: boot, createdAt: at(i, n) }));
  await db.agent.createMany({ data: agents });
  smallAgentId = agents[0]!.id;
  await db.agentRevision.createMany({
    data: Array.from({ length: SMALL }, (_, i) => ({
      id: `rev_${randomUUID()}`, agentId: smallAgentId, namespaceId: smallNsId, number: i + 1, secretDriverId: 'kubernetes', servicePrincipalId: smallSpns[0]!, createdById: boot, state: 'SUPERSEDED' as const, createdAt: at(i, 0),
    })),
  });
  await db.auditEvent.createMany({
    data: each((namespaceId, i, n) => ({ id: `aud_${randomUUID()}`, at: at(i, n), actorId: i % 2 ? boot : spns[i]!, action: 'secret.update', resourceKind: 'secret', namespaceId, outcome: 'SUCCESS' as const })),
  });
  await db.selfConfigRequest.createMany({
    data: each((namespaceId, i, n) => ({ id: `scr_${randomUUID()}`, uid: randomUUID(), k8sNamespace: 'occ-y', name: `r-${n}-${i}`, instanceRef: 'i', namespaceId, agentId: agents[n * SMALL + (i % 2)]!.id, createdAt: at(i, n) })),
  });

  const bind = (subjectId: string, role: string, resourceKind: string, resourceId: string, namespaceId: string | null) => ({
    id: `bnd_${randomUUID()}`, subjectId, roleId: role, scopeKind: 'RESOURCE' as const, namespaceId, resourceKind, resourceId, createdById: boot,
  });
  /** GRANTS ids spread over the list's order, `must` among them. */
  const spread = (ids: string[], must?: string) => {
    const picked = Array.from({ length: GRANTS }, (_, i) => ids[Math.floor((i * ids.length) / GRANTS)]!);
    return must && !picked.includes(must) ? [must, ...picked.slice(1)] : picked;
  };
  const ordered = async (table: string, where: string, time = 'createdAt', params: unknown[] = []) =>
    (await db.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id FROM "${table}" WHERE ${where} ORDER BY "${time}", id`, ...params)).map((r) => r.id);
  const grants = async (subjectId: string) => [
    bind(subjectId, 'rol_namespace-viewer', 'namespace', nsId, nsId),
    ...spread(await ordered('Secret', '"namespaceId" = $1', 'createdAt', [nsId])).map((id) => bind(subjectId, 'rol_namespace-viewer', 'secret', id, nsId)),
    ...spread(await ordered('Configuration', '"namespaceId" = $1', 'createdAt', [nsId]), historyCfgId).map((id) => bind(subjectId, 'rol_namespace-viewer', 'configuration', id, nsId)),
    ...spread(await ordered('Agent', '"namespaceId" = $1', 'createdAt', [nsId]), busyAgentId).map((id) => bind(subjectId, 'rol_namespace-viewer', 'agent', id, nsId)),
    ...spread(await ordered('AgentRevision', '"agentId" = $1', 'createdAt', [busyAgentId])).map((id) => bind(subjectId, 'rol_namespace-viewer', 'agentRevision', id, nsId)),
    // The namespace administrator's role reads audit events; here on single events.
    ...spread(await ordered('AuditEvent', 'TRUE', 'at')).map((id) => bind(subjectId, 'rol_namespace-admin', 'auditEvent', id, null)),
  ];
  // Written directly, as the rows above: on PGlite's one connection, busy with the stack's own
  // work after this fill, a service's interactive transaction waited past Prisma's 2 s to start.
  const human = (name: string) => ({ principalId: `prn_${randomUUID()}`, name, key: generateApiKey() });
  const [namespaceAdmin, granted, mixed] = [human('plans-namespace-admin'), human('plans-granted'), human('plans-mixed')].map((h) => ({ ...h, apiKey: h.key.key }));
  await db.principal.createMany({ data: [namespaceAdmin!, granted!, mixed!].map((h) => ({ id: h.principalId, kind: 'HUMAN' as const, name: h.name })) });
  await db.apiKey.createMany({ data: [namespaceAdmin!, granted!, mixed!].map((h) => ({ id: `key_${randomUUID()}`, principalId: h.principalId, prefix: h.key.prefix, hash: h.key.hash })) });
  const adminOf = (subjectId: string) => ({ id: `bnd_${randomUUID()}`, subjectId, roleId: 'rol_namespace-admin', scopeKind: 'NAMESPACE' as const, namespaceId: smallNsId, createdById: boot });
  await db.accessBinding.createMany({ data: [adminOf(namespaceAdmin!.principalId), ...(await grants(granted!.principalId)), adminOf(mixed!.principalId), ...(await grants(mixed!.principalId))] });
  readers.namespaceAdmin.key = namespaceAdmin!.apiKey;
  readers.granted.key = granted!.apiKey;
  readers.mixed.key = mixed!.apiKey;
}
// Closing after this fill took over the shared 60 s hook deadline once on PGlite (a CI preview of
// 2026-12-07; 80 s for the whole file in the run before). Not yet traced; the deadline holds a
// slow close, not a hung one.
afterAll(() => stack?.close(), 180_000);

/** The plan of the list query a GraphQL request sent to `table` (the one with ORDER BY). */
async function plansOf(table: string, query: string, variables: Record<string, unknown>, key?: string): Promise<string[]> {
  return (await explained(table, query, variables, 'TEXT', key)) as string[];
}

/** The list queries a GraphQL request sent to `table`, EXPLAINed (ANALYZE) in `format`. */
async function explained(table: string, query: string, variables: Record<string, unknown>, format: 'TEXT' | 'JSON', key?: string): Promise<unknown[]> {
  captured = [];
  const res = await stack.gql(query, variables, key ? { key } : undefined);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  // A batched first page (LATERAL, one per parent) bounds its rows by an index range and needs no ORDER BY.
  const lists = captured.filter((q) => q.sql.includes(`FROM "public"."${table}"`) && (q.sql.includes('ORDER BY') || q.sql.includes('LATERAL')));
  expect(lists.length, `a list query on ${table}`).toBeGreaterThan(0);
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const plans: unknown[] = [];
    for (const q of lists) {
      // ANALYZE: the plan as run, with the rows each node read and threw away.
      const rows = (await client.query(`EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, FORMAT ${format}) ${q.sql}`, JSON.parse(q.params) as unknown[])).rows as Array<{ 'QUERY PLAN': unknown }>;
      plans.push(format === 'JSON' ? (rows[0]!['QUERY PLAN'] as Array<{ Plan: unknown }>)[0]!.Plan : rows.map((r) => r['QUERY PLAN']).join('\n'));
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
  /** The name in the test's title, when it is not the table's alone. */
  label?: string;
  query: string;
  path: (d: Data) => { pageInfo: { endCursor: string } };
  vars?: (reader: Reader) => Record<string, unknown>;
  /** The rows are namespaced and read as each reader may see them (false: a list that is not, said why). */
  scoped?: false;
  /**
   * A filter on a column that no index pairs with the reader's scope (an actor's events in a
   * namespace): the planner may read the reader's scope and filter it, or walk a scope's range
   * filtering it, by its statistics; never rows outside the scope.
   */
  crossFilter?: true;
  /** Tables the page's statement joins to its rows: each read by index too, and the joined rows (after the limit) may be sorted. */
  joined?: string[];
  /** Tables the statement reads per row in subqueries (RC6's derived status): each by index. */
  perRow?: string[];
}> = [
  { table: 'Namespace', query: `query($first: Int, $after: String) { namespaces(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.namespaces },
  { table: 'Secret', query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { secrets(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } } }`, path: (d) => d.namespace.secrets, vars: (r) => ({ ns: r.ns() }) },
  { table: 'Configuration', query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { configurations(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } } }`, path: (d) => d.namespace.configurations, vars: (r) => ({ ns: r.ns() }) },
  {
    table: 'Agent',
    query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { agents(first: $first, after: $after) { edges { node { id status } } pageInfo { endCursor } } } }`,
    path: (d) => d.namespace.agents,
    vars: (r) => ({ ns: r.ns() }),
    perRow: ['WorkItem', 'AgentRevision', 'AgentRuntime'],
  },
  {
    table: 'Agent',
    perRow: ['WorkItem', 'AgentRevision', 'AgentRuntime'],
    query: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { agents(first: $first, after: $after) { edges { node { id configuration { secretBindings { secret { id } } } } } pageInfo { endCursor } } } }`,
    path: (d) => d.namespace.agents,
    vars: (r) => ({ ns: r.ns() }),
    joined: ['Configuration', 'ConfigurationSecretBinding', 'Secret'],
  },
  // Users: anyone else than a reader of principals sees only itself (the primary key).
  { table: 'Principal', scoped: false, query: `query($first: Int, $after: String) { users(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.users },
  // One subject's bindings: read on its (subjectId, createdAt, id) range, whoever reads them.
  { table: 'AccessBinding', scoped: false, query: `query($subject: ID!, $first: Int, $after: String) { accessBindings(subjectId: $subject, first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.accessBindings, vars: () => ({ subject: granteeId }) },
  { table: 'AuditEvent', query: `query($first: Int, $after: String) { auditEvents(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.auditEvents },
  { table: 'AuditEvent', query: `query($first: Int, $after: String, $ns: ID) { auditEvents(first: $first, after: $after, filter: { namespaceId: $ns }) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.auditEvents, vars: (r) => ({ ns: r.ns() }) },
  { table: 'AuditEvent', query: `query($first: Int, $after: String, $actor: ID) { auditEvents(first: $first, after: $after, filter: { actorId: $actor }) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.auditEvents, vars: () => ({ actor: stack.runtime.installation.bootstrapPrincipalId }), crossFilter: true },
  {
    table: 'AgentRevision',
    query: `query($agent: ID!, $first: Int, $after: String) { agent(id: $agent) { revisions(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } } }`,
    path: (d) => d.agent.revisions,
    vars: (r) => ({ agent: r.agent() }),
  },
  { table: 'SelfConfigRequest', query: `query($first: Int, $after: String) { selfConfigRequests(first: $first, after: $after) { edges { node { id } } pageInfo { endCursor } } }`, path: (d) => d.selfConfigRequests },
  {
    table: 'SelfConfigRequest',
    query: `query($first: Int, $after: String, $agent: ID) { selfConfigRequests(first: $first, after: $after, agentId: $agent) { edges { node { id } } pageInfo { endCursor } } }`,
    path: (d) => d.selfConfigRequests,
    crossFilter: true,
    vars: (r) => ({ agent: r.agent() }),
  },
  // A configuration's history: visible as a whole once the configuration is.
  {
    table: 'ConfigurationGeneration',
    scoped: false,
    query: `query($cfg: ID!, $first: Int, $after: String) { configuration(id: $cfg) { generations(first: $first, after: $after) { edges { node { generation } } pageInfo { endCursor } } } }`,
    path: (d) => d.configuration.generations,
    vars: (r) => ({ cfg: r.cfg() }),
  },
];
// The lists that offer order: NEWEST_FIRST, read newest first: the same index, walked backward.
CASES.push(
  ...CASES.slice(0, 5).map((c) => {
    const query = c.query.replace('(first: $first, after: $after)', '(first: $first, after: $after, order: NEWEST_FIRST)');
    if (query === c.query) throw new Error(`no order argument put into ${c.query}`);
    return { ...c, label: `${c.table}, newest first`, query };
  }),
);

// And by name, either way (order: NAME_A_TO_Z / NAME_Z_TO_A): the unique (namespaceId, name) index
// gives the order; the id after the name only breaks ties of one name in several namespaces, so the
// rows come presorted by name and are sorted by id within one name (an Incremental Sort of groups of
// one row within a namespace), never all sorted.
const NAME_ORDER_FROM = CASES.length;
CASES.push(
  ...CASES.slice(0, 5).flatMap((c) =>
    (['NAME_A_TO_Z', 'NAME_Z_TO_A'] as const).map((order) => ({ ...c, label: `${c.table}, ${order}`, query: c.query.replace('(first: $first, after: $after)', `(first: $first, after: $after, order: ${order})`) })),
  ),
);

/**
 * The plan without its Incremental Sorts of rows presorted by name (name order, above): each such
 * node, its sort key, its presorted key and its group statistics become one line "Ordered by name".
 * A full Sort, or an incremental one presorted by anything else, is left for the test to find.
 */
function withoutNameTieSorts(plan: string, i: number): string {
  if (i < NAME_ORDER_FROM) return plan;
  const lines = plan.split('\n');
  const kept: string[] = [];
  for (let at = 0; at < lines.length; at++) {
    const presorted = lines[at + 2] ?? '';
    if (/Incremental Sort/.test(lines[at]!) && /Sort Key: .*\bname\b/.test(lines[at + 1] ?? '') && /Presorted Key: (\w+\.)?"?name"?\s*$/.test(presorted)) {
      kept.push('Ordered by name');
      at += 2;
      while (/^\s*(Full-sort|Pre-sorted) Groups:/.test(lines[at + 1] ?? '')) at++;
    } else kept.push(lines[at]!);
  }
  return kept.join('\n');
}

describe('list plans on 10,000 rows', () => {
  CASES.forEach((c, i) => {
    it(`#${i} ${c.label ?? c.table}: the first page and a deep page are read through an index that gives the order and starts at the cursor: no sequential scan, no sort, no rows before the cursor read and thrown away`, async () => {
      const vars = c.vars?.(readers.admin) ?? {};
      for (const after of [null, await deepCursor(c.query, c.path, vars)]) {
        for (const plan of await plansOf(c.table, c.query, { ...vars, first: 20, after })) {
          for (const table of [c.table, ...(c.joined ?? []), ...(c.perRow ?? [])]) expect(plan, plan).not.toMatch(new RegExp(`Seq Scan on "?${table}\\b`));
          expect(plan).toMatch(/Index/);
          // The index serves the order too: no sort of the matching rows before the limit. A
          // statement that joins other rows to the page sorts those, above the limit.
          expect(withoutNameTieSorts(c.joined ? plan.slice(plan.indexOf('Limit')) : plan, i), plan).not.toMatch(/\bSort\b/);
          if (c.joined) expect(plan).toMatch(/Limit/);
          // The cursor bounds the index range: a deep page does not read the DEEP_PAGES × 100 rows
          // before it and filter them out (a cursor written as an OR of comparisons does).
          // A filter on other columns (a namespace's events read from the global order index, which
          // the planner may choose when that namespace holds most rows) removes rows of other
          // namespaces, not rows before the cursor: only filters that compare the order's columns count.
          for (const removed of plan.matchAll(/Filter: (.*)\n\s*Rows Removed by Filter: (\d+)/g)) {
            if (/"?(at|createdAt|name|id|number|generation)"?\s*[<>]/.test(removed[1]!)) expect(Number(removed[2]), plan).toBeLessThan(100);
          }
        }
      }
    });
  });
});

/** A node of EXPLAIN (FORMAT JSON). */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Recheck Cond'?: string;
  'Index Cond'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function* nodes(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodes(child);
}

/**
 * The rule for a scoped reader's page of `first` rows from `table`: every read of the table
 * is either a range of an index read in the list's order, a page at most per range (LATERAL ranges
 * read one each loop), or a lookup of the granted rows by primary key (at most the grants). So no
 * sequential scan, no bitmap scan but of granted ids, no walk of rows filtered away, and whatever is
 * sorted is the grants and a page per range, never the rows of a namespace.
 */
function scopedReadProblems(plan: PlanNode, table: string, first: number, crossFilter: boolean, byName = false): string[] {
  const problems: string[] = [];
  for (const node of nodes(plan)) {
    // A branch never run (its range was not reached) read nothing.
    if (node['Relation Name'] !== table || node['Actual Loops'] === 0) continue;
    const read = node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
    const pkey = (n: PlanNode) => (n['Index Name'] ?? '').endsWith('_pkey');
    // The granted rows by primary key: an index scan of it, or a bitmap that is (or is ANDed with) one.
    const bitmap = node['Node Type'] === 'Bitmap Heap Scan' ? node.Plans?.[0] : undefined;
    // PostgreSQL 17 (PGlite) may look the ids up in the (at, id) index instead: `id = ANY` in its condition.
    const lookup = (n: PlanNode) => pkey(n) || (n['Node Type'] === 'Bitmap Index Scan' && /\bid = ANY /.test(n['Index Cond'] ?? ''));
    const byIds = pkey(node) || (bitmap !== undefined && (lookup(bitmap) || (bitmap['Node Type'] === 'BitmapAnd' && (bitmap.Plans ?? []).some(lookup))));
    const what = `${node['Node Type']} on ${table} (${node['Index Name'] ?? node['Recheck Cond'] ?? ''}): ${read} rows a loop`;
    // Conditions the index answers, the bitmap's included.
    const bounds = [...nodes(node)].map((n) => `${n['Index Cond'] ?? ''} ${n['Recheck Cond'] ?? ''}`).join(' ');
    if (node['Node Type'] === 'Seq Scan') problems.push(what);
    else if (crossFilter) {
      if (read > 0 && !byIds && !/"(namespaceId|agentId)" = |\bid = ANY/.test(bounds)) problems.push(`${what}: not bounded by the reader's namespace or grants`);
      if (read > SMALL + GRANTS + 1) problems.push(`${what}, more than the reader's scope`);
    } else if (byIds) {
      if (read > GRANTS) problems.push(`${what}, more than the ${GRANTS} grants`);
    } else if (node['Node Type'] === 'Bitmap Heap Scan') problems.push(`${what}: a bitmap scan gives no order, so all of it is read and sorted`);
    // A page and the row after it; a cursor in Prisma's form (revisions) starts at the cursor's row,
    // inclusive; in name order the index bounds the name (`name >= cursor`), so the cursor's row is
    // read and filtered, and the Incremental Sort reads one row past the page to end its last name.
    else if (read > first + 2 + (byName ? 1 : 0)) problems.push(`${what}, more than a page of ${first + 1} and the cursor's row`);
  }
  return problems;
}

describe('list plans for scoped readers', () => {
  const scoped = CASES.map((c, i) => ({ c, i })).filter(({ c }) => c.scoped !== false);
  for (const which of ['namespaceAdmin', 'granted', 'mixed'] as const) {
    scoped.forEach(({ c, i }) => {
      it(`P3 #${i} ${c.label ?? c.table}, read by ${readers[which].name}: each range of what it may see is read in the list's order, a page at most, or its grants by id; no bitmap scan or sort of a namespace's rows, no rows of other namespaces read`, async () => {
        const reader = readers[which];
        const vars = c.vars?.(reader) ?? {};
        // The first page, and the pages after one and two pages of 20 (a small namespace holds 100 rows).
        let after: string | null = null;
        for (let page = 0; page < 3; page++) {
          const plans = (await explained(c.table, c.query, { ...vars, first: 20, after }, 'JSON', reader.key)) as PlanNode[];
          for (const plan of plans) expect(scopedReadProblems(plan, c.table, 20, c.crossFilter === true, i >= NAME_ORDER_FROM), JSON.stringify(plan)).toEqual([]);
          if (page === 2) break;
          after = c.path((await stack.gql(c.query, { ...vars, first: 20, after }, { key: reader.key! })).body.data!).pageInfo.endCursor;
          if (!after) break;
        }
      });
    });
  }
});
