'use client';

import { useEffect, useId, useState } from 'react';
import type { ReactNode } from 'react';
import type { Page, Paging } from '../../lib/paging';

/**
 * Search by name prefix, above a list, and beside it `children` (a list's Sort control,
 * components/ui/ListAddress.tsx). Typing filters after a short pause; the page resets to the first.
 */
export function ListSearch({ paging, noun, children }: { paging: Paging; noun: string; children?: ReactNode }) {
  const id = useId();
  const [text, setText] = useState(paging.namePrefix);
  const { search, namePrefix } = paging;
  useEffect(() => {
    if (text === namePrefix) return;
    const timer = setTimeout(() => search(text), 250);
    return () => clearTimeout(timer);
  }, [text, namePrefix, search]);
  return (
    <div className="list-search" role="search">
      <label htmlFor={id}>Search {noun} by name</label>
      <input
        id={id}
        type="search"
        value={text}
        autoComplete="off"
        spellCheck={false}
        placeholder="Name starts with…"
        onChange={(event) => setText(event.target.value)}
      />
      {children}
    </div>
  );
}

/** "21–40 of 57" (", newest first": the order of a list that has one) with Previous and Next, below a list. */
export function Pager<T>({ paging, page, noun }: { paging: Paging; page: Page<T> | undefined; noun: string }) {
  if (!page) return null;
  const start = paging.pageIndex * paging.pageSize + 1;
  const end = paging.pageIndex * paging.pageSize + page.items.length;
  if (page.totalCount === 0) return null;
  return (
    <nav className="pager" aria-label={`Pages of ${noun}`}>
      <p className="hint" aria-live="polite" data-testid="pager-range">
        {start}–{end} of {page.totalCount} {noun}
        {paging.sorting ? `, ${paging.sorting.label}` : null}
      </p>
      <div className="button-row">
        <button type="button" className="button secondary" disabled={paging.pageIndex === 0} onClick={paging.previous}>
          Previous
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={!page.hasNextPage}
          onClick={() => paging.next(page.endCursor)}
        >
          Next
        </button>
      </div>
    </nav>
  );
}
