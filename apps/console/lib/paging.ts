'use client';

// Cursor pagination and name-prefix search over the API's connections (first/after, namePrefix,
// totalCount; apps/api/src/graphql/connections.ts). Going back pops the cursor it came from, so
// "Previous" needs no `last/before` round trip and shows exactly the page seen before.
import { useCallback, useState } from 'react';
import { PAGE_SIZE } from './page-size';

export type PageArgs = { first: number; after: string | null; namePrefix: string | null };

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

export function usePaging(pageSize = PAGE_SIZE) {
  const [namePrefix, setNamePrefix] = useState('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const search = useCallback((prefix: string) => {
    setNamePrefix(prefix);
    setCursors([null]);
  }, []);
  return {
    args: { first: pageSize, after, namePrefix: namePrefix.trim() || null } satisfies PageArgs,
    namePrefix,
    pageIndex: cursors.length - 1,
    pageSize,
    search,
    next: (endCursor: string | null) => {
      if (endCursor) setCursors((list) => [...list, endCursor]);
    },
    previous: () => setCursors((list) => (list.length > 1 ? list.slice(0, -1) : list)),
  };
}

export type Paging = ReturnType<typeof usePaging>;
