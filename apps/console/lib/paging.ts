'use client';

// Cursor pagination and name-prefix search over the API's connections (first/after, namePrefix,
// totalCount; apps/api/src/graphql/connections.ts). Going back pops the cursor it came from, so
// "Previous" needs no `last/before` round trip and shows exactly the page seen before.
import { useCallback, useState } from 'react';
import { PAGE_SIZE } from './page-size';

/** The orders the API's creation lists offer (schema: ListOrder). */
export type ListOrder = 'NEWEST_FIRST' | 'OLDEST_FIRST' | 'NAME_A_TO_Z' | 'NAME_Z_TO_A';

/** The console's default order of a creation list: what was made last leads (the documents' `$order` default). */
export const DEFAULT_ORDER: ListOrder = 'NEWEST_FIRST';

/** `order` when absent: the document's default (so the page's first request, which omits it, is the same request). */
export type PageArgs = { first: number; after: string | null; namePrefix: string | null; order?: ListOrder };

/** A list's order and how to change it (components/ui/ListAddress.tsx: useListOrder). */
export interface Sorting {
  order: ListOrder;
  /** The order as words, for the pager: "newest first", "by name, A to Z" … */
  label: string;
  sortBy: (order: ListOrder) => void;
}

/** The shape every connection document selects: `edges { node { … } } pageInfo { hasNextPage endCursor } totalCount`. */
export type Connection<T> = {
  edges: readonly { node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  totalCount: number;
};

export type Page<T> = { items: T[]; hasNextPage: boolean; endCursor: string | null; totalCount: number };

export function toPage<T>(connection: Connection<T>): Page<T> {
  return {
    items: connection.edges.map((edge) => edge.node),
    hasNextPage: connection.pageInfo.hasNextPage,
    endCursor: connection.pageInfo.endCursor,
    totalCount: connection.totalCount,
  };
}

/**
 * Pages of a list. With `sorting` (useListOrder), pages of the list in that order: a cursor is a
 * place in one order, so another order starts again at the first page; so does another `filter`
 * (any text that names the list's filters from the address: page 3 of another filter is nothing).
 */
export function usePaging(pageSize = PAGE_SIZE, sorting?: Sorting, filter = '') {
  const [namePrefix, setNamePrefix] = useState('');
  const order = sorting?.order;
  const view = `${order ?? ''}|${filter}`;
  const [paged, setPaged] = useState<{ view: string; cursors: (string | null)[] }>({ view, cursors: [null] });
  const cursors = paged.view === view ? paged.cursors : [null];
  const after = cursors[cursors.length - 1] ?? null;
  const search = useCallback(
    (prefix: string) => {
      setNamePrefix(prefix);
      setPaged({ view, cursors: [null] });
    },
    [view],
  );
  return {
    args: { first: pageSize, after, namePrefix: namePrefix.trim() || null, ...(order && order !== DEFAULT_ORDER ? { order } : {}) } satisfies PageArgs,
    namePrefix,
    pageIndex: cursors.length - 1,
    pageSize,
    sorting,
    search,
    next: (endCursor: string | null) => {
      if (endCursor) setPaged({ view, cursors: [...cursors, endCursor] });
    },
    previous: () => setPaged({ view, cursors: cursors.length > 1 ? cursors.slice(0, -1) : cursors }),
  };
}

export type Paging = ReturnType<typeof usePaging>;
