'use client';

import { columnVisibilityFeature, tableFeatures, useTable, type Cell, type ColumnDef, type RowData } from '@tanstack/react-table';
import { Fragment, useCallback, useId, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';
import { columnChoiceKey, hiddenColumnsFrom, visibilityState, withColumn } from '../../lib/column-choice';
import type { ListOrder, Sorting } from '../../lib/paging';
import { SortableHeader } from './ListAddress';
import { ScrollTable } from './ScrollTable';

// The product's lists (namespaces, secrets, configurations, agents, users) are one table: columns
// are TanStack Table column definitions (the library is headless: the markup, the classes and the
// accessibility below are ours), sorting is the API's (the header asks for a ListOrder, the rows
// come back ordered), and the viewer chooses which columns to show, kept per list in this browser.

export interface ListColumnMeta {
  /** The column's name: its header, and its checkbox in the column choice. */
  label: string;
  /** The cell names its row (`<th scope="row">`): always shown. */
  rowHeader?: boolean;
  /** The header is read to screen readers but not shown (a column of links). */
  quietHeader?: boolean;
  /** Orders the API offers for this column; the header then sorts. */
  sort?: { ascending: ListOrder; descending: ListOrder; first?: ListOrder };
  /** The cells' class (`numeric`, `actions`) and test id. */
  className?: string;
  testId?: string;
}

const listFeatures = tableFeatures({ columnVisibilityFeature, columnMeta: {} as ListColumnMeta });

export type ListColumn<Row extends RowData> = ColumnDef<typeof listFeatures, Row> & { id: string; meta: ListColumnMeta };

/** A column whose cell is rendered from the row (the common case: no accessor, no value). */
export function listColumn<Row extends RowData>(id: string, meta: ListColumnMeta, cell: (row: Row) => ReactNode): ListColumn<Row> {
  return { id, meta, enableHiding: !meta.rowHeader, cell: (context) => cell(context.row.original) };
}

/**
 * A cell's content: its column's renderer called, not mounted as a component (the library's
 * FlexRender mounts a function as one). A list whose columns are made again, because they close
 * over new data (the namespaces' health, refetched every 15 s), would otherwise give every cell a
 * new component type and remount it, closing a dialog open in it and losing what was typed there.
 * So a renderer returns elements and calls no hook itself.
 */
function contentOf<Row extends RowData>(cell: Cell<typeof listFeatures, Row, unknown>): ReactNode {
  const render = cell.column.columnDef.cell;
  return typeof render === 'function' ? (render(cell.getContext()) as ReactNode) : render;
}

/** Draws a row from its cells, for a list that adds to it (a panel row after it, spanning `width` columns). */
type ListRow<Row extends RowData> = (row: Row, cells: ReactNode, width: number) => ReactNode;

const storageListeners = new Set<() => void>();

function readStored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** The viewer's column choice for one list: this browser's, shared by its tabs. */
function useColumnChoice(table: string, hideable: readonly string[]): [string[], (id: string, visible: boolean) => void] {
  const key = columnChoiceKey(table);
  const subscribe = useCallback(
    (onChange: () => void) => {
      const fromOtherTab = (event: StorageEvent) => {
        if (event.key === key) onChange();
      };
      window.addEventListener('storage', fromOtherTab);
      storageListeners.add(onChange);
      return () => {
        window.removeEventListener('storage', fromOtherTab);
        storageListeners.delete(onChange);
      };
    },
    [key],
  );
  // Static HTML has no choice: the table is only drawn in the browser, after its data came.
  const stored = useSyncExternalStore(subscribe, () => readStored(key), () => null);
  const hidden = useMemo(() => hiddenColumnsFrom(stored, hideable), [stored, hideable]);
  const choose = useCallback(
    (id: string, visible: boolean) => {
      try {
        window.localStorage.setItem(key, JSON.stringify(withColumn(hidden, hideable, id, visible)));
      } catch {
        // Storage refused (full, or off): nothing is kept, and the table stays as it was.
      }
      storageListeners.forEach((listener) => listener());
    },
    [key, hidden, hideable],
  );
  return [hidden, choose];
}

export function DataTable<Row extends RowData>({
  name,
  label,
  rows,
  columns,
  rowId,
  sorting,
  row: drawRow,
  columnChoice = true,
}: {
  /** Names the list's column choice in storage ("secrets"). */
  name: string;
  /** The table's caption and its scroll region's name. */
  label: string;
  rows: Row[];
  columns: ReadonlyArray<ListColumn<Row>>;
  rowId: (row: Row) => string;
  sorting?: Sorting | undefined;
  row?: ListRow<Row>;
  /** Offers the column choice (not for a table of one fixed row). */
  columnChoice?: boolean;
}) {
  const hideable = useMemo(() => columns.filter((c) => !c.meta.rowHeader).map((c) => c.id), [columns]);
  const [chosen, choose] = useColumnChoice(name, hideable);
  const hidden = columnChoice ? chosen : [];
  const table = useTable({
    features: listFeatures,
    columns: columns as Array<ColumnDef<typeof listFeatures, Row>>,
    data: rows,
    getRowId: (r) => rowId(r),
    state: { columnVisibility: visibilityState(hidden) },
  });
  const visible = table.getVisibleLeafColumns();
  return (
    <div className="data-table">
      {columnChoice ? <ColumnChoice label={label} columns={columns.filter((c) => hideable.includes(c.id))} hidden={hidden} choose={choose} /> : null}
      <ScrollTable label={label}>
        <table className="table">
          <caption className="visually-hidden">{label}</caption>
          <thead>
            <tr>
              {visible.map((column) => {
                const meta = column.columnDef.meta!;
                if (meta.sort) return <SortableHeader key={column.id} label={meta.label} sorting={sorting} {...meta.sort} />;
                return (
                  <th key={column.id} scope="col">
                    {meta.quietHeader ? <span className="visually-hidden">{meta.label}</span> : meta.label}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => {
              const cells = row.getVisibleCells().map((cell) => {
                const meta = cell.column.columnDef.meta!;
                return meta.rowHeader ? (
                  <th key={cell.id} scope="row" className={meta.className}>
                    {contentOf(cell)}
                  </th>
                ) : (
                  <td key={cell.id} className={meta.className} data-testid={meta.testId}>
                    {contentOf(cell)}
                  </td>
                );
              });
              return drawRow ? <Fragment key={row.id}>{drawRow(row.original, cells, cells.length)}</Fragment> : <tr key={row.id}>{cells}</tr>;
            })}
          </tbody>
        </table>
      </ScrollTable>
    </div>
  );
}

/**
 * "Columns": a disclosure with a checkbox per column the viewer may hide (`columns`: the row's name
 * is not among them). Escape closes it and returns focus to its button; the button says how many are hidden.
 */
function ColumnChoice<Row extends RowData>({ label, columns, hidden, choose }: { label: string; columns: ReadonlyArray<ListColumn<Row>>; hidden: string[]; choose: (id: string, visible: boolean) => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const close = () => {
    button.current?.focus();
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    close();
  };
  return (
    <div className="column-choice">
      <button
        ref={button}
        type="button"
        className="button secondary small"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        aria-label={`Columns of ${label}${hidden.length ? `, ${hidden.length} hidden` : ''}`}
        onClick={() => setOpen((o) => !o)}
      >
        Columns{hidden.length ? ` (${hidden.length} hidden)` : ''}
      </button>
      {open ? (
        <fieldset id={panelId} className="column-choice-panel" onKeyDown={onKeyDown}>
          <legend>Show in {label.toLowerCase()}</legend>
          {columns.map((c) => (
            <label key={c.id} className="checkbox">
              <input type="checkbox" checked={!hidden.includes(c.id)} onChange={(e) => choose(c.id, e.currentTarget.checked)} /> {c.meta.label}
            </label>
          ))}
          <button type="button" className="button secondary small" onClick={close}>
            Done
          </button>
        </fieldset>
      ) : null}
    </div>
  );
}
