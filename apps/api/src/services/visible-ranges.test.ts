import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { ReadableSet } from '@occ/domain/access';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, sql, sqlRows, type Sql } from '../db/sql.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { readableScopes, sqlKeysetPage, visibleWithin, type KeysetOrder, type PageRequest, type Visible } from './pagination.ts';

// A reader's visibility is read as index ranges (one branch per namespace, or a LATERAL
// join past eight, and the granted ids looked up apart, each row from one branch only). Random
// readers over random rows must page through exactly the rows the plain predicate
// `namespaceId = ANY(…) OR id = ANY(…)` selects, in the same order, with the same cursors and
// counts, forward and backward, at any page size. The expected rows come from that predicate as
// written here, run by PostgreSQL (its collation orders the ids).

const NAMESPACES = 12;
let stack: TestStack;
const namespaces = Array.from({ length: NAMESPACES }, () => `ns_${randomUUID()}`);
/** Rows of each table by namespace (null: none), with their ids, for readers to be granted. */
const rowIds: Record<'AuditEvent' | 'Secret' | 'SelfConfigRequest', string[]> = { AuditEvent: [], Secret: [], SelfConfigRequest: [] };
const agents = Array.from({ length: 14 }, () => `agt_${randomUUID()}`);

/** Few distinct times, so that many rows tie and the id decides their order. */
const timeOf = (i: number) => new Date(Date.UTC(2026, 0, 1) + (i % 7) * 1000);

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  await db.namespace.createMany({ data: namespaces.map((id, i) => ({ id, name: `vis-${i}`, k8sName: `occ-vis-${i}`, createdById: boot, status: 'READY' as const })) });
  // Namespaces hold unequal shares (the first few most rows); audit rows of no namespace too.
  const nsOf = (i: number): string | null => (i % 9 === 8 ? null : namespaces[(i * i) % (i % 3 === 0 ? 3 : NAMESPACES)]!);
  const audit = Array.from({ length: 240 }, (_, i) => ({ id: `aud_${randomUUID()}`, at: timeOf(i), systemActor: 'worker', action: 'vis.test', resourceKind: 'secret', namespaceId: nsOf(i), outcome: 'SUCCESS' as const }));
  await db.auditEvent.createMany({ data: audit });
  rowIds.AuditEvent = audit.map((r) => r.id);
  // The n-th secret of each namespace is named s-n: unique within it, the same name in many namespaces (the id orders them).
  const inNamespace = new Map<string, number>();
  const secrets = Array.from({ length: 200 }, (_, i) => ({
    id: `sec_${randomUUID()}`, namespaceId: nsOf(i) ?? namespaces[0]!, name: nthIn(inNamespace, nsOf(i) ?? namespaces[0]!), driverId: 'kubernetes', backendNamespace: 'x', backendName: `x-${i}`, backendKey: 'value', backendUid: randomUUID(), createdById: boot, createdAt: timeOf(i),
  }));
  await db.secret.createMany({ data: secrets });
  rowIds.Secret = secrets.map((r) => r.id);
  const requests = Array.from({ length: 240 }, (_, i) => ({
    id: `scr_${randomUUID()}`, uid: randomUUID(), k8sNamespace: 'occ-vis', name: `r-${i}`, instanceRef: 'i', namespaceId: nsOf(i), agentId: i % 5 === 4 ? null : agents[i % agents.length]!, createdAt: timeOf(i),
  }));
  await db.selfConfigRequest.createMany({ data: requests });
  rowIds.SelfConfigRequest = requests.map((r) => r.id);
  await db.$executeRawUnsafe('ANALYZE');
}, 120_000);
afterAll(() => stack?.close());

function nthIn(seen: Map<string, number>, ns: string): string {
  const n = seen.get(ns) ?? 0;
  seen.set(ns, n + 1);
  return `s-${n}`;
}

interface ListUnderTest {
  table: string;
  order: KeysetOrder<'createdAt' | 'at' | 'name'>;
  /** The list's own condition (a namespace's secrets), beside visibility. */
  where: (reader: Reader) => Sql;
  /** Visibility as the product builds it for this list. */
  visible: (reader: Reader) => Visible | null;
  /** The plain predicate: $1 namespaces, $2 ids, $3 agents. */
  plain: string;
}

interface Reader {
  set: ReadableSet;
  agentIds: string[];
  /** The namespace a namespaced list is read in. */
  ns: string;
}

const LISTS: ListUnderTest[] = [
  {
    table: 'AuditEvent',
    order: { field: 'at', newestFirst: true },
    // Only this test's rows: the stack audits its own work (the namespaces it finds missing, RC5) meanwhile.
    where: () => sql`"action" = 'vis.test'`,
    visible: (r) => readableScopes(r.set),
    plain: `("namespaceId" = ANY($1::text[]) OR id = ANY($2::text[])) AND "action" = 'vis.test'`,
  },
  {
    table: 'AuditEvent',
    order: { field: 'at', newestFirst: true },
    where: (r) => sql`"namespaceId" = ${r.ns} AND "action" = 'vis.test'`,
    visible: (r) => visibleWithin(readableScopes(r.set), '"namespaceId"', r.ns),
    plain: `("namespaceId" = ANY($1::text[]) OR id = ANY($2::text[])) AND "namespaceId" = $4 AND "action" = 'vis.test'`,
  },
  {
    table: 'Secret',
    order: { field: 'createdAt', newestFirst: false },
    where: (r) => sql`"namespaceId" = ${r.ns}`,
    visible: (r) => visibleWithin(readableScopes(r.set), '"namespaceId"', r.ns),
    plain: `("namespaceId" = ANY($1::text[]) OR id = ANY($2::text[])) AND "namespaceId" = $4`,
  },
  {
    // Name order (ORDER_ARG's NAME_Z_TO_A) within a namespace: its unique (namespaceId, name) index.
    table: 'Secret',
    order: { field: 'name', newestFirst: true },
    where: (r) => sql`"namespaceId" = ${r.ns}`,
    visible: (r) => visibleWithin(readableScopes(r.set), '"namespaceId"', r.ns),
    plain: `("namespaceId" = ANY($1::text[]) OR id = ANY($2::text[])) AND "namespaceId" = $4`,
  },
  {
    // Name order across namespaces, where one name is in many: the id breaks the ties.
    table: 'Secret',
    order: { field: 'name', newestFirst: false },
    where: () => sql`TRUE`,
    visible: (r) => readableScopes(r.set),
    plain: `("namespaceId" = ANY($1::text[]) OR id = ANY($2::text[]))`,
  },
  {
    // Two families of ranges (namespaces, agents), as the SelfConfig history reads them.
    table: 'SelfConfigRequest',
    order: { field: 'createdAt', newestFirst: true },
    where: () => sql`TRUE`,
    visible: (r) => ({
      any: [
        { column: '"namespaceId"', values: r.set.namespaceIds, ranges: true },
        { column: '"agentId"', values: r.agentIds, ranges: true },
      ].filter((f) => f.values.length > 0),
    }),
    plain: `("namespaceId" = ANY($1::text[]) OR "agentId" = ANY($3::text[]))`,
  },
];

/** Every page of a list, forward or backward, `size` rows each: the ids in list order, and the cursors. */
async function walk(list: ListUnderTest, reader: Reader, size: number, direction: 'forward' | 'backward'): Promise<{ ids: string[]; counts: number[] }> {
  const ids: string[] = [];
  const counts: number[] = [];
  let cursor: PageRequest['after'] = null;
  for (let guard = 0; guard < 500; guard++) {
    const page: PageRequest = { size, direction, after: direction === 'forward' ? cursor : null, before: direction === 'backward' ? cursor : null };
    const result = await sqlKeysetPage(stack.runtime.db, page, { columns: sql`*`, table: sqlTable(list.table), where: list.where(reader), visible: list.visible(reader) }, (row: { id: string }) => row.id, list.order);
    if (guard === 0) counts.push(await result.totalCount());
    const pageIds = result.edges.map((e) => e.node);
    if (direction === 'forward') ids.push(...pageIds);
    else ids.unshift(...pageIds);
    const more = direction === 'forward' ? result.hasNextPage : result.hasPreviousPage;
    if (!more) return { ids, counts };
    expect(result.edges.length).toBe(size);
    cursor = (direction === 'forward' ? result.edges.at(-1) : result.edges[0])!.key;
  }
  throw new Error('more than 500 pages');
}

function sqlTable(table: string): Sql {
  return raw(`"public"."${table}"`);
}

async function expected(list: ListUnderTest, reader: Reader): Promise<string[]> {
  const dir = list.order.newestFirst ? 'DESC' : 'ASC';
  const rows = await stack.runtime.db.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT id FROM "public"."${list.table}" WHERE ${list.plain} AND ($2::text[] IS NULL OR TRUE) AND ($3::text[] IS NULL OR TRUE) AND ($4::text IS NULL OR TRUE) ORDER BY "${list.order.field}" ${dir}, id ${dir}`,
    reader.set.namespaceIds,
    reader.set.resourceIds,
    reader.agentIds,
    reader.ns,
  );
  return rows.map((r) => r.id);
}

const subset = <T>(items: readonly T[], max: number) => fc.subarray([...items], { minLength: 0, maxLength: max });

describe('visibility as index ranges', () => {
  LISTS.forEach((list, n) => {
    it(`A2 P6 #${n} ${list.table} by ${list.order.field}: random readers (up to 12 namespaces, granted rows in and out of them) page through exactly the rows of the plain predicate, in its order, forward and backward, with its count`, async () => {
      await fc.assert(
        fc.asyncProperty(
          subset(namespaces, NAMESPACES),
          subset(rowIds[list.table as keyof typeof rowIds], 15),
          subset(agents, 12),
          fc.constantFrom(...namespaces),
          fc.integer({ min: 1, max: 9 }),
          async (namespaceIds, resourceIds, agentIds, ns, size) => {
            const reader: Reader = { set: { everywhere: false, namespaceIds, resourceIds }, agentIds, ns };
            const want = await expected(list, reader);
            for (const direction of ['forward', 'backward'] as const) {
              const got = await walk(list, reader, size, direction);
              expect(got.ids).toEqual(want);
              expect(got.counts).toEqual([want.length]);
            }
          },
        ),
        { numRuns: 40 },
      );
    }, 240_000);
  });

  it('A2 P6 the installation administrator reads every row, and a reader of nothing none (no statement shape reads rows it may not see)', async () => {
    for (const list of LISTS.slice(0, 3)) {
      const ns = namespaces[0]!;
      const all = await walk(list, { set: { everywhere: true, namespaceIds: [], resourceIds: [] }, agentIds: [], ns }, 50, 'forward');
      const count = await sqlRows<{ n: number }>(stack.runtime.db, sql`SELECT count(*)::int AS n FROM ${sqlTable(list.table)} WHERE ${list.where({ set: { everywhere: true, namespaceIds: [], resourceIds: [] }, agentIds: [], ns })}`);
      expect(all.ids.length).toBe(count[0]!.n);
      expect((await walk(list, { set: { everywhere: false, namespaceIds: [], resourceIds: [] }, agentIds: [], ns }, 5, 'forward')).ids).toEqual([]);
    }
  });
});
