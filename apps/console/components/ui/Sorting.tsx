'use client';

// A list's order (ListOrder in the API): kept in the address, chosen by a column header or the Sort
// control beside the search. A module of its own, so that lists without an order do not load it.
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useId } from 'react';
import { DEFAULT_ORDER, type ListOrder, type Sorting } from '../../lib/paging';

/** Each order as the pager and the sort control say it. */
export const LIST_ORDERS: Readonly<Record<ListOrder, string>> = {
  NEWEST_FIRST: 'newest first',
  OLDEST_FIRST: 'oldest first',
  NAME_A_TO_Z: 'by name, A to Z',
  NAME_Z_TO_A: 'by name, Z to A',
};

/** The order in the address (`?order=NAME_A_TO_Z`); anything else is the default. */
export function listOrderOf(value: string | null | undefined): ListOrder {
  return value && Object.hasOwn(LIST_ORDERS, value) ? (value as ListOrder) : DEFAULT_ORDER;
}

/**
 * The list's order, kept in the address (`order=…`, left out for the default) so that a link, a
 * reload and Back keep it; lib/page-requests.ts reads the same parameter for the page's first request.
 */
export function useListOrder(): Sorting {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const order = listOrderOf(params.get('order'));
  const sortBy = useCallback(
    (next: ListOrder) => {
      const to = new URLSearchParams(params.toString());
      if (next === DEFAULT_ORDER) to.delete('order');
      else to.set('order', next);
      router.replace(`${pathname}?${to.toString()}`, { scroll: false });
    },
    [params, router, pathname],
  );
  return { order, label: LIST_ORDERS[order], sortBy };
}

export function OrderSelect({ sorting, noun }: { sorting: Sorting; noun: string }) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>Sort {noun}</label>
      <select id={id} value={sorting.order} onChange={(event) => sorting.sortBy(event.target.value as ListOrder)}>
        {Object.entries(LIST_ORDERS).map(([order, label]) => (
          <option key={order} value={order}>
            {label[0]!.toUpperCase() + label.slice(1)}
          </option>
        ))}
      </select>
    </>
  );
}

/**
 * A column header that sorts the list by its column: `ascending` and `descending` are the orders
 * it toggles between (A to Z first for a name, newest first for a time); aria-sort says which holds.
 */
export function SortableHeader({ label, sorting, ascending, descending, first = ascending }: { label: string; sorting: Sorting | undefined; ascending: ListOrder; descending: ListOrder; first?: ListOrder }) {
  if (!sorting) return <th scope="col">{label}</th>;
  const { order, sortBy } = sorting;
  const state = order === ascending ? 'ascending' : order === descending ? 'descending' : 'none';
  const next = state === 'none' ? first : state === 'ascending' ? descending : ascending;
  return (
    <th scope="col" aria-sort={state}>
      <button type="button" className="sort-button" onClick={() => sortBy(next)} title={`Sort ${LIST_ORDERS[next]}`}>
        {label}
        <span aria-hidden="true" className="sort-mark">
          {state === 'ascending' ? '▲' : state === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}
