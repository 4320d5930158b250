import type { ReadableSet } from '@occ/domain/access';
import type { Db, Tx } from '../db/client.ts';
import { and, empty, join, raw, sql, sqlCount, sqlRows, type Sql } from '../db/sql.ts';

// Keyset pagination in SQL: a list is ordered by (createdAt, id), or by (name, id) where it offers
// name order; neither changes for a row (names are immutable), so a cursor stays valid while rows are
// added or removed around it, and a page costs the same at row 10 as at row 10,000 (an index on the
// order, no OFFSET, nothing sliced in memory).

/** A row's place in the order (its time column and id); a cursor encodes one (graphql/connections.ts). */
export interface Keyset {
  createdAt: Date;
  id: string;
}

/** A row's place in name order; names are unique within a namespace, the id breaks ties across them. */
export interface NameKey {
  name: string;
  id: string;
}

/** A page of a list; `K` is a row's place in the list's order (a Keyset, unless the list says otherwise). */
export interface PageRequest<K = Keyset | NameKey> {
  /** Rows wanted: `first` going forward, `last` going backward. */
  size: number;
  direction: 'forward' | 'backward';
  after: K | null;
  before: K | null;
  /**
   * Lists in creation order: newest first when true. A cursor is a place in the list whatever the
   * order: after it means older rows newest first, newer ones oldest first. Lists with an order of
   * their own (the audit trail, SelfConfig requests: newest first) pass it and ignore this.
   */
  newestFirst?: boolean;
  /**
   * Lists that offer it (the ORDER_ARG lists): by name, A to Z, or Z to A with `newestFirst` (which
   * then means "descending"). Its cursors are NameKeys.
   */
  byName?: boolean;
}

export interface PageOf<T, K = Keyset | NameKey> {
  /** Each node with its place in the order, from which its cursor is made. */
  edges: Array<{ key: K; node: T }>;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Rows matching the filter on every page; counted only when asked for. */
  totalCount: () => Promise<number>;
}

type TimeField = 'createdAt' | 'at';
type OrderField = TimeField | 'name';

/** What a page statement receives: the cursor's condition, the order and how many rows to take. */
interface KeysetQuery {
  where: Sql;
  orderBy: Sql;
  limit: number;
}

/** A column of the list's table, qualified by its alias in a statement that joins others. */
function column(name: string, table: string | undefined): Sql {
  return raw(table ? `${table}."${name}"` : `"${name}"`);
}

/**
 * The cursor as a row comparison, `(time, id) > (t, i)`: PostgreSQL starts the index range at the
 * cursor. The same condition written as `time > t OR (time = t AND id > i)` (as Prisma writes it)
 * is a filter, so a page deep into the list read and threw away every row before it
 * (graphql/list-plans.test.ts).
 */
function beyondSql(field: OrderField, key: Keyset | NameKey, op: 'gt' | 'lt', table: string | undefined): Sql {
  const place = field === 'name' ? sql`${nameOf(key)}::text` : sql`${timeOf(key)}::timestamp(3)`;
  return sql`(${column(field, table)}, ${column('id', table)}) ${raw(op === 'gt' ? '>' : '<')} (${place}, ${key.id})`;
}

// A cursor of the other order never reaches here: pageRequest decodes cursors for the order asked for.
function nameOf(key: Keyset | NameKey): string {
  if (!('name' in key)) throw new Error('pagination: a creation-order cursor on a list in name order');
  return key.name;
}

function timeOf(key: Keyset | NameKey): Date {
  if (!('createdAt' in key)) throw new Error('pagination: a name-order cursor on a list in creation order');
  return key.createdAt;
}

/** The list's order: its time column (or its name), ascending unless newestFirst; the id breaks ties. */
export interface KeysetOrder<F extends OrderField> {
  field: F;
  newestFirst: boolean;
  /** The list table's alias, when its SQL statement joins other tables. */
  table?: string;
}

/** The order the page asks for: creation order (oldest first unless newest first), or name order. */
export function requestedOrder(page: Pick<PageRequest<unknown>, 'newestFirst' | 'byName'>, table?: string): KeysetOrder<'createdAt' | 'name'> {
  return { field: page.byName ? 'name' : 'createdAt', newestFirst: page.newestFirst ?? false, ...(table ? { table } : {}) };
}

/**
 * Runs one list query for a page. `fetch` ANDs `query.where` with its own filter (access, name
 * prefix …) and returns the rows; one row more than the page is asked for, to know whether more
 * follow. Backward pages are read in reverse order and turned round.
 */
async function keysetPage<Row extends { id: string }, T, F extends OrderField = 'createdAt'>(
  page: PageRequest,
  fetch: (query: KeysetQuery) => Promise<Row[]>,
  count: () => Promise<number>,
  view: (row: Row) => T,
  order: KeysetOrder<F>,
): Promise<PageOf<T>> {
  const { field, newestFirst, table } = order;
  const ascending = (page.direction === 'forward') !== newestFirst;
  const dir = raw(ascending ? ' ASC' : ' DESC');
  const rows = await fetch({
    where: and([page.after ? beyondSql(field, page.after, newestFirst ? 'lt' : 'gt', table) : null, page.before ? beyondSql(field, page.before, newestFirst ? 'gt' : 'lt', table) : null]),
    orderBy: sql`${column(field, table)}${dir}, ${column('id', table)}${dir}`,
    limit: page.size + 1,
  });
  const more = rows.length > page.size;
  const kept = rows.slice(0, page.size);
  if (page.direction === 'backward') kept.reverse();
  let counted: Promise<number> | null = null;
  return {
    edges: kept.map((row) => ({ key: keyOf(row, field), node: view(row) })),
    // A cursor on the other side means at least that row lies there (Relay allows this shortcut).
    hasNextPage: page.direction === 'forward' ? more : page.before !== null,
    hasPreviousPage: page.direction === 'backward' ? more : page.after !== null,
    totalCount: () => (counted ??= count()),
  };
}

function keyOf(row: { id: string }, field: OrderField): Keyset | NameKey {
  const place = (row as unknown as Record<string, unknown>)[field];
  return field === 'name' ? { name: place as string, id: row.id } : { createdAt: place as Date, id: row.id };
}

/**
 * The rows a ReadableSet covers, as a Prisma condition; `namespaceField` names the row's namespace.
 * An empty part is left out: `id IN ()` ORed to the namespaces' condition kept PostgreSQL from
 * reading them as an index range.
 */
export function readableWhere(set: ReadableSet, namespaceField: 'namespaceId' | 'id' = 'namespaceId'): object {
  if (set.everywhere) return {};
  const parts = [set.namespaceIds.length > 0 ? { [namespaceField]: { in: set.namespaceIds } } : null, set.resourceIds.length > 0 ? { id: { in: set.resourceIds } } : null].filter(Boolean);
  return parts.length === 0 ? { id: { in: [] } } : parts.length === 1 ? parts[0]! : { OR: parts };
}

/**
 * The rows a reader may see in a list, as families of index ranges: a row is visible
 * when, for one family, its `column` holds one of `values`. A family of `ranges` has an index
 * led by its column and followed by the list's order ((namespaceId, createdAt, id)): each value is
 * read as its own range, in order, a page's rows at most, and the ranges are merged. Any other
 * family (granted ids) is a set of single rows, looked up at once and sorted: no more rows than
 * the grants. Written as one condition, `namespaceId = ANY(…) OR id = ANY(…)`, PostgreSQL could
 * use neither and read every row of the reader's namespaces (or of all of them) and sorted them.
 * `null`: every row (installation scope).
 */
export interface Visible {
  any: ReadonlyArray<{ column: string; values: readonly string[]; ranges: boolean }>;
}

/** A ReadableSet as a list's Visible; `namespaceColumn` names the row's namespace (a namespace is its own). */
export function readableScopes(set: ReadableSet, namespaceColumn: '"namespaceId"' | '"id"' = '"namespaceId"'): Visible | null {
  if (set.everywhere) return null;
  if (namespaceColumn === '"id"') return { any: [{ column: '"id"', values: [...new Set([...set.namespaceIds, ...set.resourceIds])], ranges: false }].filter((f) => f.values.length > 0) };
  return {
    any: [
      { column: namespaceColumn, values: set.namespaceIds, ranges: true },
      { column: '"id"', values: set.resourceIds, ranges: false },
    ].filter((f) => f.values.length > 0),
  };
}

/**
 * What is visible of a list held to one value of a column (a namespace's secrets): all of it when
 * a family of ranges holds that value, else the other families' rows (the reader's grants).
 */
export function visibleWithin(visible: Visible | null, column: string, value: string): Visible | null {
  if (!visible) return null;
  if (visible.any.some((f) => f.column === column && f.ranges && f.values.includes(value))) return null;
  return { any: visible.any.filter((f) => f.column !== column) };
}

/** Visible as one plain condition (counts, and the old shape the tests compare with); `null`: every row. */
export function visibleSql(visible: Visible | null, table?: string): Sql | null {
  if (!visible) return null;
  if (visible.any.length === 0) return sql`FALSE`;
  return sql`(${join(visible.any.map((f) => anyOf(f.column, f.values, table)), ' OR ')})`;
}

function anyOf(name: string, values: readonly string[], table: string | undefined): Sql {
  const col = raw(table ? `${table}.${name}` : name);
  return values.length === 1 ? sql`${col} = ${values[0]}` : sql`${col} = ANY(${[...values]}::text[])`;
}

/**
 * A family of ranges read one value at a time, each its own branch of a UNION ALL merged in order
 * (Merge Append), for up to this many values; beyond, one branch reads them all through a LATERAL
 * join (each range limited to a page, the pages sorted): one statement whatever the count.
 */
const MERGED_RANGES = 8;

/** A list read with hand-written SQL (db/sql.ts): `table` may carry an alias that `columns`, `joins` and `where` use. */
export interface SqlList<Row = unknown> {
  columns: Sql;
  table: Sql;
  /** Joins the columns need; the count reads the table alone. */
  joins?: Sql;
  where: Sql;
  /** The rows the reader may see (readableScopes), read as index ranges; absent or null: `where` alone. */
  visible?: Visible | null;
  /**
   * Rows of other tables read with the page in the same statement: the page becomes a CTE named
   * as the order's table alias, `from` joins it to them and `columns` reads theirs (prefixed, so
   * that names do not collide). A page row may come back several times (once per joined row, side
   * by side in the page's order); `group` folds them into one row each.
   */
  joined?: { columns: Sql; from: Sql; group: (rows: Array<Record<string, unknown>>) => Row[] };
}

/**
 * The page statement: one branch per range of `visible` (each ordered and limited), merged in the
 * page's order and limited again; a single branch is the statement itself.
 */
function pageStatement(list: SqlList, q: KeysetQuery, field: OrderField, ascending: boolean, table: string | undefined): Sql {
  const branch = (scope: Sql | null) =>
    sql`SELECT ${list.columns} FROM ${list.table} ${list.joins ?? empty} WHERE ${and([list.where, scope, q.where])} ORDER BY ${q.orderBy} LIMIT ${q.limit}`;
  const visible = list.visible;
  if (!visible) return branch(null);
  if (visible.any.length === 0) return branch(sql`FALSE`);
  const col = (name: string) => raw(table ? `${table}.${name}` : name);
  const branches: Sql[] = [];
  // A LATERAL branch holds a page per range, unordered: it is always merged below.
  let lateral = false;
  visible.any.forEach((family, i) => {
    // A row of an earlier family is read there: each row comes from one branch only.
    const before = visible.any.slice(0, i).map((f) => sql`NOT coalesce(${col(f.column)} = ANY(${[...f.values]}::text[]), false)`);
    if (!family.ranges) branches.push(branch(and([anyOf(family.column, family.values, table), ...before])));
    else if (family.values.length <= MERGED_RANGES) for (const value of family.values) branches.push(branch(and([sql`${col(family.column)} = ${value}`, ...before])));
    else {
      const inner = branch(and([sql`${col(family.column)} = scope.value`, ...before]));
      lateral = true;
      branches.push(sql`SELECT ranged.* FROM unnest(${[...family.values]}::text[]) AS scope(value) CROSS JOIN LATERAL (${inner}) ranged`);
    }
  });
  if (branches.length === 1 && !lateral) return branches[0]!;
  const dir = raw(ascending ? ' ASC' : ' DESC');
  return sql`SELECT * FROM (${join(branches.map((b) => sql`(${b})`), ' UNION ALL ')}) merged ORDER BY ${raw(`"${field}"`)}${dir}, "id"${dir} LIMIT ${q.limit}`;
}

/** keysetPage for a list read with SQL: the page statement and, when asked, the count. */
export function sqlKeysetPage<Row extends { id: string }, T, F extends OrderField = 'createdAt'>(
  db: Db | Tx,
  page: PageRequest,
  list: SqlList<Row>,
  view: (row: Row) => T,
  ordered?: KeysetOrder<F>,
): Promise<PageOf<T>> {
  const { joined } = list;
  const order = ordered ?? (requestedOrder(page) as KeysetOrder<F>);
  const field = order.field;
  const ascending = (page.direction === 'forward') !== order.newestFirst;
  return keysetPage(
    page,
    (q) => {
      const pageSql = pageStatement(list as SqlList, q, field, ascending, order.table);
      if (!joined) return sqlRows<Row>(db, pageSql);
      if (!order.table) throw new Error('sqlKeysetPage: a list with joined rows names its table alias in its order');
      const alias = raw(order.table);
      return sqlRows<Record<string, unknown>>(db, sql`WITH ${alias} AS (${pageSql}) SELECT ${alias}.*, ${joined.columns} FROM ${alias} ${joined.from} ORDER BY ${q.orderBy}`).then(joined.group);
    },
    () => sqlCount(db, sql`SELECT count(*)::int AS n FROM ${list.table} WHERE ${and([list.where, visibleSql(list.visible ?? null, order.table)])}`),
    view,
    order,
  );
}

/** namePrefixWhere in SQL, with the same escaping. */
export function namePrefixSql(prefix: string | null | undefined): Sql | null {
  if (!prefix) return null;
  return sql`"name" LIKE ${`${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`;
}
