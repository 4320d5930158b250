import type { ReadableSet } from '@occ/domain/access';

// Keyset pagination in SQL: every list is ordered by (createdAt, id), which never changes for a
// row, so a cursor stays valid while rows are added or removed around it, and a page costs the
// same at row 10 as at row 10,000 (an index on the order, no OFFSET, nothing sliced in memory).

/** A row's place in the order; a cursor encodes one (graphql/connections.ts). */
export interface Keyset {
  createdAt: Date;
  id: string;
}

export interface PageRequest {
  /** Rows wanted: `first` going forward, `last` going backward. */
  size: number;
  direction: 'forward' | 'backward';
  after: Keyset | null;
  before: Keyset | null;
}

export interface PageOf<T> {
  /** Each node with its place in the order, from which its cursor is made. */
  edges: Array<{ key: Keyset; node: T }>;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Rows matching the filter on every page; counted only when asked for. */
  totalCount: () => Promise<number>;
}

/** What a list query receives: the cursor's condition, the order and how many rows to take. */
export interface KeysetQuery {
  where: object;
  orderBy: Array<{ createdAt: 'asc' | 'desc' } | { id: 'asc' | 'desc' }>;
  take: number;
}

function beyond(key: Keyset, op: 'gt' | 'lt'): object {
  return { OR: [{ createdAt: { [op]: key.createdAt } }, { createdAt: key.createdAt, id: { [op]: key.id } }] };
}

/**
 * Runs one list query for a page. `fetch` ANDs `query.where` with its own filter (access, name
 * prefix …) and returns the rows; one row more than the page is asked for, to know whether more
 * follow. Backward pages are read in reverse order and turned round.
 */
export async function keysetPage<Row extends Keyset, T>(
  page: PageRequest,
  fetch: (query: KeysetQuery) => Promise<Row[]>,
  count: () => Promise<number>,
  view: (row: Row) => T,
): Promise<PageOf<T>> {
  const conditions: object[] = [];
  if (page.after) conditions.push(beyond(page.after, 'gt'));
  if (page.before) conditions.push(beyond(page.before, 'lt'));
  const dir = page.direction === 'forward' ? 'asc' : 'desc';
  const rows = await fetch({ where: { AND: conditions }, orderBy: [{ createdAt: dir }, { id: dir }], take: page.size + 1 });
  const more = rows.length > page.size;
  const kept = rows.slice(0, page.size);
  if (page.direction === 'backward') kept.reverse();
  let counted: Promise<number> | null = null;
  return {
    edges: kept.map((row) => ({ key: { createdAt: row.createdAt, id: row.id }, node: view(row) })),
    // A cursor on the other side means at least that row lies there (Relay allows this shortcut).
    hasNextPage: page.direction === 'forward' ? more : page.before !== null,
    hasPreviousPage: page.direction === 'backward' ? more : page.after !== null,
    totalCount: () => (counted ??= count()),
  };
}

/** The rows a ReadableSet covers, as a Prisma condition; `namespaceField` names the row's namespace. */
export function readableWhere(set: ReadableSet, namespaceField: 'namespaceId' | 'id' = 'namespaceId'): object {
  if (set.everywhere) return {};
  return { OR: [{ [namespaceField]: { in: set.namespaceIds } }, { id: { in: set.resourceIds } }] };
}

/**
 * A name-prefix filter. Prisma turns startsWith into LIKE without escaping its wildcards
 * (prisma/prisma#19506), so `%`, `_` and the escape character itself are escaped here.
 */
export function namePrefixWhere(prefix: string | null | undefined): object {
  if (!prefix) return {};
  return { name: { startsWith: prefix.replace(/[\\%_]/g, (c) => `\\${c}`) } };
}
