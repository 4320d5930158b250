'use client';

// A list's view kept in the address, so that a reload, a link and Back keep it, and the page's first
// request (lib/page-requests.ts) asks for it: its order (ListOrder in the API), chosen by a column
// header or the Sort control beside the search, and its filters (a secret's use, an agent's
// status). A module of its own, so that lists without either do not load it.
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
  const update = useAddressUpdate();
  const order = listOrderOf(params.get('order'));
  const sortBy = useCallback((next: ListOrder) => update({ order: next === DEFAULT_ORDER ? null : next }), [update]);
  return { order, label: LIST_ORDERS[order], sortBy };
}

/** Sets (or, with null, removes) parameters of the address, keeping the others; no new history entry. */
export function useAddressUpdate(): (changes: Readonly<Record<string, string | null>>) => void {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  return useCallback(
    (changes) => {
      const to = new URLSearchParams(params.toString());
      for (const [name, value] of Object.entries(changes)) {
        if (value === null) to.delete(name);
        else to.set(name, value);
      }
      router.replace(`${pathname}?${to.toString()}`, { scroll: false });
    },
    [params, router, pathname],
  );
}

/** One choice of a list filter: its words and the address parameters it sets (null: removes). */
export interface FilterChoice {
  label: string;
  params: Readonly<Record<string, string | null>>;
}

/**
 * A select that filters a list through the address: `choices` by key, the first is "no filter";
 * `current` is the key the address holds now.
 */
export function FilterSelect({ label, choices, current }: { label: string; choices: Readonly<Record<string, FilterChoice>>; current: string }) {
  const id = useId();
  const update = useAddressUpdate();
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={current} onChange={(event) => update(choices[event.target.value]?.params ?? {})}>
        {Object.entries(choices).map(([key, choice]) => (
          <option key={key} value={key}>
            {choice.label}
          </option>
        ))}
      </select>
    </>
  );
}

/** The orders as FilterSelect's choices: each sets `order`, the default by leaving it out (as useListOrder's sortBy). */
const ORDER_CHOICES: Readonly<Record<string, FilterChoice>> = Object.fromEntries(
  Object.entries(LIST_ORDERS).map(([order, label]) => [order, { label: label[0]!.toUpperCase() + label.slice(1), params: { order: order === DEFAULT_ORDER ? null : order } }]),
);

/** The Sort control beside a list's search: every order the list offers. */
export function OrderSelect({ sorting, noun }: { sorting: Sorting; noun: string }) {
  return <FilterSelect label={`Sort ${noun}`} choices={ORDER_CHOICES} current={sorting.order} />;
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
