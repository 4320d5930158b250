import pg from 'pg';
import { Prisma } from '../generated/prisma/client.ts';
import { poolOf, queryHookOf, type Db, type Tx } from './client.ts';

// The read path in hand-written SQL. Every request authenticates, reads the caller's
// bindings and reads a page; through Prisma's client each of those statements also pays its query
// compiler (Wasm) and result mapping, about 0.3 to 0.5 ms a statement here, more than PostgreSQL
// takes to answer it. These reads go straight to the client's own connection pool instead; writes,
// and reads inside a transaction (which must use the transaction's connection), stay with Prisma.
//
// Fragments are Prisma's `Prisma.sql` templates: values are always parameters, never spliced.

export const sql = Prisma.sql;
export const join = Prisma.join;
export const empty = Prisma.empty;
/** Text spliced into a statement as is: only for constants of this code, never for input. */
export const raw = Prisma.raw;
export type Sql = Prisma.Sql;

/**
 * `timestamp(3)` columns hold UTC wall time (as Prisma writes them); node-postgres would read them
 * as the process's local time, so they are read as UTC here, as Prisma's adapter does.
 */
const TIMESTAMP = 1114;
const TIMESTAMP_ARRAY = 1115;
export function parseUtc(text: string): Date {
  // A page reads hundreds of these: the usual `YYYY-MM-DD HH:MM:SS.mmm` by its digits (several
  // times faster than parsing a string into a Date), anything else as an ISO string. No closure is
  // made per call: under tsx each one costs a keepNames call.
  if (text.length === 23 && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32 && text.charCodeAt(19) === 46) {
    const year = digits(text, 0, 4);
    // Date.UTC reads years 0 to 99 as 1900 to 1999.
    if (year >= 100) {
      return new Date(Date.UTC(year, digits(text, 5, 2) - 1, digits(text, 8, 2), digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), digits(text, 20, 3)));
    }
  }
  return new Date(`${text.replace(' ', 'T')}Z`);
}

function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === TIMESTAMP) return parseUtc;
    if (oid === TIMESTAMP_ARRAY) throw new Error('sqlRows: select timestamp arrays as text[]');
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** A Date parameter compared with a `timestamp(3)` column must be its UTC wall time, not local. */
function param(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * The rows of one statement. Outside a transaction it runs on the client's pool (and is reported to
 * the client's query hook, as Prisma reports its own); inside one it runs through the transaction.
 * Rows have the table's column names; counts must be cast (`count(*)::int`), since int8 comes back
 * as a string from the pool and as a BigInt from Prisma.
 */
export async function sqlRows<T>(db: Db | Tx, query: Sql): Promise<T[]> {
  const pool = poolOf(db as Db);
  if (!pool) return (db as Tx).$queryRaw<T[]>(query);
  const values = query.values.map(param);
  queryHookOf(db as Db)?.(query.text, JSON.stringify(values));
  const result = await pool.query({ text: query.text, values, types });
  return result.rows as T[];
}

/** `count(*)` of a statement that selects it `AS n`. */
export async function sqlCount(db: Db | Tx, query: Sql): Promise<number> {
  const rows = await sqlRows<{ n: number }>(db, query);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Columns of the table aliased `alias` under prefixed names (`c."id" AS "c.id"`), for a statement
 * that joins tables whose columns share names. `columns` are constants of this code.
 */
export function prefixed(alias: string, columns: readonly string[]): Sql {
  return raw(columns.map((c) => `${alias}."${c}" AS "${alias}.${c}"`).join(', '));
}

/** The columns `prefixed` read, from one row, under their own names; null where the join found no row (the first column is null). */
export function unprefixed<T>(row: Record<string, unknown>, alias: string, columns: readonly string[]): T | null {
  if (row[`${alias}.${columns[0]}`] == null) return null;
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[`${alias}.${c}`];
  return out as T;
}

/** Conditions joined by AND; none is true. */
export function and(conditions: Array<Sql | null | undefined>): Sql {
  const kept = conditions.filter((c): c is Sql => c !== null && c !== undefined && c !== empty);
  return kept.length === 0 ? sql`TRUE` : sql`(${join(kept, ' AND ')})`;
}
