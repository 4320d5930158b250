// Read path bench, run by `npm run bench` on PostgreSQL (DATABASE_URL names the server;
// the bench makes and drops its own database).
//
// For each list, at a small and a large namespace, first page and a page deep into the data, it
// measures side by side, interleaved in one run so that machine load hits all alike:
//   - the GraphQL request through the full HTTP stack (the product as `npm start` serves it),
//   - the minimal hand-written SQL returning the same rows (pg, no ORM),
//   - a bare graphql-yoga server answering a static list of the same size and shape (the share of
//     any GraphQL gateway, which no SQL can remove): a connection of edges, each with a cursor and
//     a node, ids as long as the product's, so that it writes (and the client parses) an answer as
//     large as the product's.
//   - the same SQL preceded by the two statements any gateway that authenticates and authorizes each
//     request from the database must run first (the key with its principal, the caller's bindings).
// It prints p50 and p95, and the ratio GraphQL / (SQL + bare gateway), whose target is 1.5, and the
// same with the authenticated SQL; and the large/small and deep/first ratios, whose target is 1.2.
// Nothing is asserted: the machine is shared.
//
// Scoped readers: the lists are read again by the administrator of the small namespace
// (one of the installation's many) and a reader with 50 single-resource grants of each kind in
// the large one; the minimal SQL is then the one for that reader (the namespace's rows, or the
// granted rows by id), and the bare server answers as many edges as the product's page holds.
//
// OCC_BENCH_LISTS (a regular expression) measures only the lists it matches; OCC_BENCH_KEEP keeps
// the filled database afterwards (to EXPLAIN a statement; drop it by hand).
// Sizes: OCC_BENCH_SMALL (100) and OCC_BENCH_LARGE (10,000) rows of each kind; OCC_BENCH_AUDIT
// (1,000,000) audit events in the large namespace; OCC_BENCH_RUNS (100) measurements per cell.
// Filling 10,000 of each through the services takes minutes; progress goes to stderr.

import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import pg from 'pg';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { encodeCursor } from '../../apps/api/src/graphql/connections.ts';
import { createHttpApp, listen } from '../../apps/api/src/http/server.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { withDatabase } from '../../apps/api/src/test/database.ts';
import { startRuntime } from '../../apps/api/src/runtime.ts';
import { grantAccess } from '../../apps/api/src/services/access-grants.ts';
import { hashToken } from '../../apps/api/src/services/api-keys.ts';
import { createNamespace } from '../../apps/api/src/services/namespaces.ts';
import { createHumanPrincipal } from '../../apps/api/src/services/principals.ts';
import { fillNamespace, type FillResult } from '../../apps/api/src/seed/fill.ts';

const SMALL = Number(process.env.OCC_BENCH_SMALL ?? 100);
const LARGE = Number(process.env.OCC_BENCH_LARGE ?? 10_000);
const AUDIT = Number(process.env.OCC_BENCH_AUDIT ?? 1_000_000);
const RUNS = Number(process.env.OCC_BENCH_RUNS ?? 100);
const PAGE = 100;
/** OCC_BENCH_LISTS: a regular expression; only lists whose name matches are measured (all by default). */
const ONLY = new RegExp(process.env.OCC_BENCH_LISTS ?? '');
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  process.stderr.write('read-path bench: set DATABASE_URL to a PostgreSQL server (it creates and drops its own database); skipped.\n');
  process.exit(0);
}

/** A filled namespace, and a user granted secret-operator on each of its secrets (one binding each). */
type Filled = FillResult & { granteeId: string };

interface List {
  name: string;
  /** The GraphQL document; `$ns`, `$actor`, `$first`, `$after` are its variables. */
  gql: string;
  connection(data: Record<string, any>): { edges: Array<{ cursor: string; node: { id: string } }> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The minimal SQL for the same rows: $1 the namespace (or actor), then the keyset (time, id) or nulls. */
  sql: string;
  sqlArgs(filled: Filled): unknown[];
  /** The list's table, order and filter ($1 as in `sql`), to find the row a deep page starts after. */
  keyset: { table: string; time: string; where: string; desc?: boolean };
  /** The same shape as a static list, for the bare gateway; `prefix` makes ids of the product's kind and length. */
  static: { field: string; type: string; prefix: string; item: Record<string, unknown> };
  /** A scoped reader's API key; else the bootstrap key. */
  key?: string;
}

/** An id as long as the product's (`sec_` and a UUID). */
const uid = (prefix: string) => `${prefix}_${randomUUID()}`;

const KEYSET = (time: string, desc = false) => `($2::timestamp IS NULL OR ("${time}", id) ${desc ? '<' : '>'} ($2::timestamp, $3::text))`;

const LISTS: List[] = [
  {
    name: 'secrets',
    gql: 'query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { secrets(first: $first, after: $after) { edges { cursor node { id name version updatedAt } } } } }',
    connection: (d) => d.namespace.secrets,
    sql: `SELECT id, name, version, "updatedAt" FROM "Secret" WHERE "namespaceId" = $1 AND ${KEYSET('createdAt')} ORDER BY "createdAt", id LIMIT ${PAGE + 1}`,
    sqlArgs: (f) => [f.namespaceId],
    keyset: { table: 'Secret', time: 'createdAt', where: '"namespaceId" = $1' },
    static: { field: 'secrets', prefix: 'sec', type: 'type Item { id: ID! name: String! version: Int! updatedAt: String! }', item: { name: 'secret-00001', version: 1, updatedAt: new Date().toISOString() } },
  },
  {
    name: 'agents with configuration and its bindings\u2019 secrets',
    gql: `query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { agents(first: $first, after: $after) { edges { cursor node {
      id name configuration { id name secretBindings { envName secret { id name } } } } } } } }`,
    connection: (d) => d.namespace.agents,
    sql: `WITH page AS (SELECT id, name, "configurationId", "createdAt" FROM "Agent" WHERE "namespaceId" = $1 AND ${KEYSET('createdAt')} ORDER BY "createdAt", id LIMIT ${PAGE + 1})
      SELECT p.id, p.name, c.id AS cid, c.name AS cname, b."envName", s.id AS sid, s.name AS sname FROM page p
      LEFT JOIN "Configuration" c ON c.id = p."configurationId" LEFT JOIN "ConfigurationSecretBinding" b ON b."configurationId" = c.id
      LEFT JOIN "Secret" s ON s.id = b."secretId" ORDER BY p."createdAt", p.id`,
    sqlArgs: (f) => [f.namespaceId],
    keyset: { table: 'Agent', time: 'createdAt', where: '"namespaceId" = $1' },
    static: {
      field: 'agents',
      prefix: 'agt',
      type: 'type Item { id: ID! name: String! configuration: Cfg } type Cfg { id: ID! name: String! secretBindings: [Binding!]! } type Binding { envName: String! secret: Sec } type Sec { id: ID! name: String! }',
      item: { name: 'agent-00001', configuration: { id: uid('cfg'), name: 'configuration-00001', secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', secret: { id: uid('sec'), name: 'secret-00001' } }] } },
    },
  },
  {
    name: 'configurations',
    gql: 'query($ns: ID!, $first: Int, $after: String) { namespace(id: $ns) { configurations(first: $first, after: $after) { edges { cursor node { id name generation } } } } }',
    connection: (d) => d.namespace.configurations,
    sql: `SELECT id, name, generation FROM "Configuration" WHERE "namespaceId" = $1 AND ${KEYSET('createdAt')} ORDER BY "createdAt", id LIMIT ${PAGE + 1}`,
    sqlArgs: (f) => [f.namespaceId],
    keyset: { table: 'Configuration', time: 'createdAt', where: '"namespaceId" = $1' },
    static: { field: 'configurations', prefix: 'cfg', type: 'type Item { id: ID! name: String! generation: Int! }', item: { name: 'configuration-00001', generation: 1 } },
  },
  {
    name: 'access bindings of one subject',
    gql: 'query($grantee: ID!, $first: Int, $after: String) { accessBindings(subjectId: $grantee, first: $first, after: $after) { edges { cursor node { id role { id name } scope { kind resourceKind resourceId } } } } }',
    connection: (d) => d.accessBindings,
    // role { id name }: the role's name is the one column of another table the answer holds.
    sql: `SELECT b.id, b."roleId", r.name AS "roleName", b."scopeKind", b."resourceKind", b."resourceId" FROM "AccessBinding" b JOIN "Role" r ON r.id = b."roleId"
      WHERE b."subjectId" = $1 AND ($2::timestamp IS NULL OR (b."createdAt", b.id) > ($2::timestamp, $3::text)) ORDER BY b."createdAt", b.id LIMIT ${PAGE + 1}`,
    sqlArgs: (f) => [f.granteeId],
    keyset: { table: 'AccessBinding', time: 'createdAt', where: '"subjectId" = $1' },
    static: { field: 'accessBindings', prefix: 'bnd', type: 'type Item { id: ID! role: Role! scope: Scope! } type Role { id: ID! name: String! } type Scope { kind: String! resourceKind: String resourceId: String }', item: { role: { id: 'rol_secret-operator', name: 'secret-operator' }, scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: uid('sec') } } },
  },
  {
    name: 'namespaces',
    gql: 'query($first: Int, $after: String) { namespaces(first: $first, after: $after) { edges { cursor node { id name status } } } }',
    connection: (d) => d.namespaces,
    sql: `SELECT id, name, status FROM "Namespace" WHERE ($1::text IS NULL OR true) AND ${KEYSET('createdAt')} ORDER BY "createdAt", id LIMIT ${PAGE + 1}`,
    sqlArgs: () => [null],
    keyset: { table: 'Namespace', time: 'createdAt', where: '($1::text IS NULL OR true)' },
    static: { field: 'namespaces', prefix: 'ns', type: 'type Item { id: ID! name: String! status: String! }', item: { name: 'namespace-00001', status: 'READY' } },
  },
  {
    name: 'audit events, unfiltered',
    gql: 'query($first: Int, $after: String) { auditEvents(first: $first, after: $after) { edges { cursor node { id at action outcome } } } }',
    connection: (d) => d.auditEvents,
    sql: `SELECT id, at, action, outcome FROM "AuditEvent" WHERE ($1::text IS NULL OR true) AND ${KEYSET('at', true)} ORDER BY at DESC, id DESC LIMIT ${PAGE + 1}`,
    sqlArgs: () => [null],
    keyset: { table: 'AuditEvent', time: 'at', where: '($1::text IS NULL OR true)', desc: true },
    static: { field: 'auditEvents', prefix: 'aud', type: 'type Item { id: ID! at: String! action: String! outcome: String! }', item: { at: new Date().toISOString(), action: 'secret.read', outcome: 'SUCCESS' } },
  },
  {
    name: 'audit events, by actor',
    gql: 'query($actor: ID!, $first: Int, $after: String) { auditEvents(first: $first, after: $after, filter: { actorId: $actor }) { edges { cursor node { id at action outcome } } } }',
    connection: (d) => d.auditEvents,
    sql: `SELECT id, at, action, outcome FROM "AuditEvent" WHERE "actorId" = $1 AND ${KEYSET('at', true)} ORDER BY at DESC, id DESC LIMIT ${PAGE + 1}`,
    sqlArgs: (f) => [f.principalIds[0] ?? null],
    keyset: { table: 'AuditEvent', time: 'at', where: '"actorId" = $1', desc: true },
    static: { field: 'auditEvents', prefix: 'aud', type: 'type Item { id: ID! at: String! action: String! outcome: String! }', item: { at: new Date().toISOString(), action: 'secret.read', outcome: 'SUCCESS' } },
  },
];

interface Cursor {
  gql: string;
  sql: [string, string];
}

async function gql(query: string, variables: Record<string, unknown>, bearer = key): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors).slice(0, 300)}`);
  return body.data!;
}

function variables(filled: Filled, after: string | null): Record<string, unknown> {
  return { ns: filled.namespaceId, actor: filled.principalIds[0], grantee: filled.granteeId, first: PAGE, after };
}

/**
 * The cursor of the row in the middle of the list (by the list's own order), made as the API makes
 * cursors, and its keyset for the SQL side: a page deep into the data without walking to it.
 */
async function deepCursor(list: List, filled: Filled): Promise<Cursor | null> {
  const { table, time, where, desc } = list.keyset;
  const dir = desc ? 'DESC' : 'ASC';
  const args = list.sqlArgs(filled);
  const { rows } = await sql.query(
    `SELECT to_char("${time}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t, id FROM "${table}" WHERE ${where}
     ORDER BY "${time}" ${dir}, id ${dir} OFFSET (SELECT count(*) / 2 FROM "${table}" WHERE ${where}) LIMIT 1`,
    args,
  );
  if (rows.length === 0) return null;
  return { gql: encodeCursor({ createdAt: new Date(rows[0].t), id: rows[0].id }), sql: [rows[0].t, rows[0].id] };
}

interface Stats {
  p50: number;
  p95: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length * 0.5)]!, p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]! };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/**
 * What any gateway that authenticates and authorizes each request from the database must read
 * before the page: the key with its principal, and the principal's bindings with their roles.
 */
const AUTH_SQL = [
  `SELECT k.id, p.id AS "principalId", p.kind, p.name, k."lastUsedAt" FROM "ApiKey" k JOIN "Principal" p ON p.id = k."principalId"
   WHERE k.hash = $1 AND k."revokedAt" IS NULL AND p."disabledAt" IS NULL`,
  `SELECT b.id, b."scopeKind", b."namespaceId", b."resourceKind", b."resourceId", r.id AS "roleId", r.permissions
   FROM "AccessBinding" b JOIN "Role" r ON r.id = b."roleId" WHERE b."subjectId" = $1`,
];

async function measure(list: List, filled: Filled, after: Cursor | null, yogaUrl: string) {
  const vars = variables(filled, after?.gql ?? null);
  const sqlArgs = [...list.sqlArgs(filled), after?.sql[0] ?? null, after?.sql[1] ?? null];
  const keyHash = hashToken(list.key ?? key);
  const run = {
    gql: async () => list.connection(await gql(list.gql, vars, list.key)),
    sql: () => sql.query(list.sql, sqlArgs),
    auth: async () => {
      const [caller] = (await sql.query(AUTH_SQL[0]!, [keyHash])).rows as Array<{ principalId: string }>;
      await sql.query(AUTH_SQL[1]!, [caller!.principalId]);
      return sql.query(list.sql, sqlArgs);
    },
    yoga: () => fetch(yogaUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: yogaQuery }).then((r) => r.json()),
  };
  // The bare server answers as many edges as the product's page holds (a reader of 50 grants gets 50).
  const edges = (await run.gql()).edges.length;
  if (edges === 0) throw new Error(`GraphQL, ${list.name}: an empty page`);
  const yogaQuery = JSON.stringify({ query: `{ ${list.static.field}(first: ${edges}) { edges { cursor node { ${staticSelection(list.static.item)} } } } }` });
  // Each side must answer the page, not an error (which is quicker): the bare server once asked
  // its nested objects for an id they lacked and answered a validation error for two lists.
  const bare = (await run.yoga()) as { data?: Record<string, { edges: unknown[] }>; errors?: unknown[] };
  if (bare.errors || bare.data?.[list.static.field]?.edges.length !== edges) throw new Error(`bare yoga, ${list.name}: ${JSON.stringify(bare).slice(0, 300)}`);
  // Warm every path alike (V8 tiers a function up after some calls): with 5 rounds, the bare yoga
  // server answered the first list measured in 3.6-4.5 ms and later lists of the same size in 2-3.
  for (let i = 0; i < 25; i++) for (const fn of Object.values(run)) await fn();
  const samples = { gql: [] as number[], sql: [] as number[], auth: [] as number[], yoga: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, the order rotating, so that drift in machine load hits all four alike.
    const order = (['gql', 'sql', 'auth', 'yoga'] as const).map((_, j, all) => all[(i + j) % 4]!);
    for (const which of order) samples[which].push(await time(run[which]));
  }
  return { gql: stats(samples.gql), sql: stats(samples.sql), auth: stats(samples.auth), yoga: stats(samples.yoga) };
}

/** The selection of a static item's fields: its own keys (nested objects by theirs), and the node's id. */
function staticSelection(item: Record<string, unknown>, node = true): string {
  const fields = Object.entries(item).map(([k, v]) => {
    if (Array.isArray(v)) return `${k} { ${staticSelection(v[0] as Record<string, unknown>, false)} }`;
    if (v && typeof v === 'object') return `${k} { ${staticSelection(v as Record<string, unknown>, false)} }`;
    return k;
  });
  return [...(node ? ['id'] : []), ...fields].join(' ');
}

/** A bare graphql-yoga server answering each list's shape with a static page of PAGE edges. */
async function bareYoga(): Promise<{ url: string; server: Server }> {
  // Each list's types get their own names in one schema.
  const typeDefs: string[] = [];
  const resolvers: Record<string, Record<string, unknown>> = { Query: {} };
  const fields: string[] = [];
  LISTS.forEach((list, i) => {
    const suffix = `_${i}`;
    typeDefs.push(list.static.type.replace(/\b(Item|Cfg|Binding|Sec)\b/g, (m) => m + suffix));
    typeDefs.push(`type Edge${suffix} { cursor: String! node: Item${suffix}! } type Connection${suffix} { edges: [Edge${suffix}!]! }`);
    fields.push(`${list.static.field}${suffix}(first: Int): Connection${suffix}!`);
    const edges = Array.from({ length: PAGE }, () => {
      const id = uid(list.static.prefix);
      return { cursor: encodeCursor({ createdAt: new Date(), id }), node: { id, ...list.static.item } };
    });
    resolvers.Query![`${list.static.field}${suffix}`] = (_: unknown, args: { first?: number }) => ({ edges: edges.slice(0, args.first ?? PAGE) });
    list.static.field = `${list.static.field}${suffix}`;
  });
  const yoga = createYoga({ schema: createSchema({ typeDefs: [...typeDefs, `type Query { ${fields.join(' ')} }`], resolvers }), logging: false });
  const server = createServer(yoga);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server };
}

function wholeInstallation(list: List): boolean {
  return list.name.startsWith('audit') || list.name === 'namespaces';
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`\nRead path on PostgreSQL, page of ${PAGE}, ${RUNS} runs per cell, interleaved (${new Date().toISOString()})\n`);
  process.stdout.write(`${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

function printScaling(rows: string[][]): void {
  const p50 = (list: string, size: string, page: string) => Number.parseFloat(rows.find((r) => r[0] === list && r[1]!.startsWith(size) && r[2] === page)?.[3] ?? 'NaN');
  process.stdout.write('\nScaling (GraphQL p50 ratios; target ≤ 1.2)\n');
  for (const list of LISTS) {
    const bySize = p50(list.name, 'large', 'first') / p50(list.name, 'small', 'first');
    const byDepth = p50(list.name, 'large', 'deep') / p50(list.name, 'large', 'first');
    const parts = [Number.isNaN(bySize) ? null : `large/small first page ${bySize.toFixed(2)}`, Number.isNaN(byDepth) ? null : `deep/first page at large ${byDepth.toFixed(2)}`];
    process.stdout.write(`- ${list.name}: ${parts.filter(Boolean).join(', ')}\n`);
  }
}

const GRANTS = 50;

/**
 * The scoped readers and their lists: the administrator of the small namespace (its rows among
 * the large one's and the installation's audit trail), and a reader granted namespace-viewer on
 * GRANTS single secrets, configurations and agents of the large namespace (and on that namespace,
 * to reach them) and namespace-admin on GRANTS single audit events. Each list's minimal SQL is
 * that reader's: the namespace's rows, or the granted ids.
 */
async function scopedLists(small: Filled, large: Filled): Promise<Array<{ list: List; filled: Filled; rowsLabel: string }>> {
  const boot = runtime.installation.bootstrapPrincipalId;
  const namespaceAdmin = await createHumanPrincipal(runtime.db, 'bench-namespace-admin', boot);
  const granted = await createHumanPrincipal(runtime.db, 'bench-granted', boot);
  const spread = (ids: string[]) => Array.from({ length: Math.min(GRANTS, ids.length) }, (_, i) => ids[Math.floor((i * ids.length) / Math.min(GRANTS, ids.length))]!);
  const auditIds = (await sql.query(`SELECT id FROM "AuditEvent" ORDER BY at, id`)).rows.map((r: { id: string }) => r.id);
  const picked = { secret: spread(large.secretIds), configuration: spread(large.configurationIds), agent: spread(large.agentIds), auditEvent: spread(auditIds) };
  const binding = (subjectId: string, roleId: string, scope: { scopeKind: 'NAMESPACE' | 'RESOURCE'; namespaceId: string | null; resourceKind?: string; resourceId?: string }) => ({ id: `bnd_${randomUUID()}`, subjectId, roleId, createdById: boot, ...scope });
  await runtime.db.accessBinding.createMany({
    data: [
      binding(namespaceAdmin.principalId, 'rol_namespace-admin', { scopeKind: 'NAMESPACE', namespaceId: small.namespaceId }),
      binding(granted.principalId, 'rol_namespace-viewer', { scopeKind: 'RESOURCE', namespaceId: large.namespaceId, resourceKind: 'namespace', resourceId: large.namespaceId }),
      ...(['secret', 'configuration', 'agent'] as const).flatMap((kind) =>
        picked[kind].map((resourceId) => binding(granted.principalId, 'rol_namespace-viewer', { scopeKind: 'RESOURCE', namespaceId: large.namespaceId, resourceKind: kind, resourceId })),
      ),
      ...picked.auditEvent.map((resourceId) => binding(granted.principalId, 'rol_namespace-admin', { scopeKind: 'RESOURCE', namespaceId: null, resourceKind: 'auditEvent', resourceId })),
    ],
  });
  await sql.query('ANALYZE "AccessBinding"');
  const base = (name: string) => LISTS.find((l) => l.name === name)!;
  const ids = (list: string[]) => `id = ANY('{${list.join(',')}}'::text[])`;
  const namespaced = ['secrets', 'configurations', 'agents with configuration and its bindings’ secrets'] as const;
  const kindOf = { secrets: 'secret', configurations: 'configuration', 'agents with configuration and its bindings’ secrets': 'agent' } as const;
  const audit = base('audit events, unfiltered');
  const out: Array<{ list: List; filled: Filled; rowsLabel: string }> = [];
  for (const name of namespaced) {
    const b = base(name);
    out.push({ list: { ...b, name: `${name}, namespace admin`, key: namespaceAdmin.apiKey }, filled: small, rowsLabel: `small (${SMALL}) of ${namespaceCount} namespaces` });
    const only = ids(picked[kindOf[name]]);
    out.push({
      list: { ...b, name: `${name}, ${GRANTS} grants`, key: granted.apiKey, sql: b.sql.replace('WHERE "namespaceId" = $1 AND', `WHERE "namespaceId" = $1 AND ${only} AND`), keyset: { ...b.keyset, where: `${b.keyset.where} AND ${only}` } },
      filled: large,
      rowsLabel: `${GRANTS} of large (${LARGE})`,
    });
  }
  out.push({
    list: {
      ...audit,
      name: 'audit events, unfiltered, namespace admin',
      key: namespaceAdmin.apiKey,
      sql: audit.sql.replace('WHERE ($1::text IS NULL OR true) AND', 'WHERE "namespaceId" = $1 AND'),
      sqlArgs: (f) => [f.namespaceId],
      keyset: { ...audit.keyset, where: '"namespaceId" = $1' },
    },
    filled: small,
    rowsLabel: `small's of ${AUDIT}+`,
  });
  const onlyAudit = ids(picked.auditEvent);
  out.push({
    list: { ...audit, name: `audit events, unfiltered, ${GRANTS} grants`, key: granted.apiKey, sql: audit.sql.replace('WHERE ($1::text IS NULL OR true) AND', `WHERE ($1::text IS NULL OR true) AND ${onlyAudit} AND`), keyset: { ...audit.keyset, where: `${audit.keyset.where} AND ${onlyAudit}` } },
    filled: large,
    rowsLabel: `${GRANTS} of ${AUDIT}+`,
  });
  for (const { list } of out) if (list.sql === base(list.name.replace(/, (namespace admin|\d+ grants)$/, '')).sql && list.key === granted.apiKey) throw new Error(`scoped SQL not rewritten: ${list.name}`);
  return out;
}

// The run itself, after every declaration above it.
const database = `occ_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const databaseUrl = withDatabase(serverUrl, database);

const logger = createLogger(() => {}, 'error');
const runtime = await startRuntime({ env: { dataDir: `/tmp/${database}`, databaseUrl, kubeconfig: null }, logger, inMemory: true, migrate: migrateDatabase });
// No P7 budget: thousands of pages of 100 from one principal in minutes, far past a console's
// budget; this bench measures the read path, not admission (bench/api/fairness.bench.ts does).
const app = createHttpApp({ deps: runtime.deps, production: false, consoleDir: '/nonexistent', requestBudget: null });
const server = await listen(app, '127.0.0.1', 0);
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const key = runtime.installation.bootstrapApiKey!;
const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
let namespaceCount = 2;

try {
  const actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE' as const, name: 'bench', apiKeyId: 'bench' };
  const started = Date.now();
  const fill = (namespace: string, size: number, audit: number) =>
    fillNamespace(runtime.deps, actor, { namespace, secrets: size, configurations: size, agents: size, audit }, {
      parallel: 8,
      onProgress: ({ phase, done, total }) => process.stderr.write(`fill ${namespace} ${phase} ${done}/${total} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`),
    });
  // One grantee per namespace, granted secret-operator on each secret through the service (audited,
  // as a console grant is), so the access-bindings list has as many rows as the namespace has secrets.
  const withGrantee = async (filled: FillResult, label: string): Promise<Filled> => {
    const grantee = await createHumanPrincipal(runtime.db, `grantee-${label}`, actor.principalId);
    for (let i = 0; i < filled.secretIds.length; i += 8) {
      await Promise.all(
        filled.secretIds.slice(i, i + 8).map((resourceId) =>
          grantAccess(runtime.deps, actor, { subjectId: grantee.principalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId } }),
        ),
      );
      if (i % 1000 === 0) process.stderr.write(`grants ${label} ${i}/${filled.secretIds.length} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
    return { ...filled, granteeId: grantee.principalId };
  };
  const small = await withGrantee(await fill('bench-small', SMALL, 0), 'small');
  const large = await withGrantee(await fill('bench-large', LARGE, AUDIT), 'large');
  await runtime.worker.stop();
  // The namespaces list: LARGE namespaces in the installation, created through the service with the
  // worker stopped (rows and their queued work; no Kubernetes namespace is made for them).
  for (let i = namespaceCount; i < LARGE; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, LARGE - i) }, (_, j) => createNamespace(runtime.deps, actor, { name: `bench-ns-${String(i + j).padStart(6, '0')}` })));
    if (i % 1000 === 0) process.stderr.write(`namespaces ${i}/${LARGE} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  namespaceCount = Number((await sql.query('SELECT count(*) AS n FROM "Namespace"')).rows[0].n);
  await sql.query('ANALYZE');

  const yoga = await bareYoga();
  const rows: string[][] = [];
  for (const list of LISTS.filter((l) => ONLY.test(l.name))) {
    for (const [label, filled, size] of [['small', small, SMALL], ['large', large, LARGE]] as const) {
      // Audit and namespace lists read the whole installation: one row each is enough.
      if (wholeInstallation(list) && label === 'small') continue;
      const first = await measure(list, filled, null, yoga.url);
      const deepAfter = await deepCursor(list, filled);
      const deep = deepAfter ? await measure(list, filled, deepAfter, yoga.url) : null;
      for (const [page, m] of [['first', first], ['deep', deep]] as const) {
        if (!m) continue;
        rows.push([
          list.name,
          `${label} (${list.name.startsWith('audit') ? `${AUDIT}+` : wholeInstallation(list) ? namespaceCount : size})`,
          page,
          ms(m.gql.p50),
          ms(m.gql.p95),
          ms(m.sql.p50),
          ms(m.auth.p50),
          ms(m.yoga.p50),
          (m.gql.p50 / (m.sql.p50 + m.yoga.p50)).toFixed(2),
          (m.gql.p50 / (m.auth.p50 + m.yoga.p50)).toFixed(2),
        ]);
      }
    }
  }
  // The scoped readers, each list read as the reader may see it.
  const scoped = await scopedLists(small, large);
  for (const { list, filled, rowsLabel } of scoped.filter((s) => ONLY.test(s.list.name))) {
    const first = await measure(list, filled, null, yoga.url);
    const deepAfter = await deepCursor(list, filled);
    const deep = deepAfter ? await measure(list, filled, deepAfter, yoga.url) : null;
    for (const [page, m] of [['first', first], ['deep', deep]] as const) {
      if (!m) continue;
      rows.push([list.name, rowsLabel, page, ms(m.gql.p50), ms(m.gql.p95), ms(m.sql.p50), ms(m.auth.p50), ms(m.yoga.p50), (m.gql.p50 / (m.sql.p50 + m.yoga.p50)).toFixed(2), (m.gql.p50 / (m.auth.p50 + m.yoga.p50)).toFixed(2)]);
    }
  }
  printTable(['list', 'rows', 'page', 'GraphQL p50', 'GraphQL p95', 'SQL p50', 'SQL with auth p50', 'bare yoga p50', 'GraphQL / (SQL + yoga)', 'GraphQL / (SQL with auth + yoga)'], rows);
  printScaling(rows);
  await new Promise<void>((r) => yoga.server.close(() => r()));
} finally {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await sql.end();
  await runtime.close();
  if (process.env.OCC_BENCH_KEEP) process.stderr.write(`kept database ${database} (OCC_BENCH_KEEP)\n`);
  else await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
