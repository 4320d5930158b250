import { describeTextProblem, textProblem } from '@occ/domain/text';
import { GraphQLError } from 'graphql';
import type { Keyset, NameKey, PageOf, PageRequest } from '../services/pagination.ts';

// Relay connection arguments to a keyset page request, and a page back to a connection. Cursors
// are opaque to clients: base64url of the row's place in the order, checked when decoded.

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  /** Lists that offer it (ORDER_ARG in schema/list-order.ts): creation order either way (oldest first is the default), or by name. */
  order?: 'OLDEST_FIRST' | 'NEWEST_FIRST' | 'NAME_A_TO_Z' | 'NAME_Z_TO_A' | null;
}

function refuse(argument: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', argument } });
}

/**
 * base64url of `<epoch ms>.<id>` (creation order) or `n:<name>/<id>` (name order). A page of 100
 * asks for 100 of these, so it is written for speed (btoa and three replacements measured 4x faster
 * than JSON through a Buffer); ids, digits and names (validation.ts: lowercase letters, digits,
 * `-`, `_`, `.`) are ASCII, which btoa needs.
 */
export function encodeCursor(key: Keyset | NameKey): string {
  const text = 'name' in key ? `n:${key.name}/${key.id}` : `${key.createdAt.getTime()}.${key.id}`;
  return btoa(text).replace(URL_UNSAFE, urlSafe);
}

const URL_UNSAFE = /[+/=]/g;
const urlSafe = (c: string) => (c === '+' ? '-' : c === '/' ? '_' : '');
const CURSOR = /^(\d{1,16})\.([a-z]{2,4}_[0-9a-f-]{36})$/;
/** The last instant a cursor may name: a time the database's timestamp reads (years up to 9999). */
const LAST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A cursor's text, or '' when it is not base64url of at most `max` characters. */
function cursorText(cursor: string, max: number): string {
  if (cursor.length > max || !/^[A-Za-z0-9_-]*$/.test(cursor)) return '';
  try {
    return atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return '';
  }
}

export function decodeCursor(cursor: string, argument: string): Keyset {
  const match = CURSOR.exec(cursorText(cursor, 120));
  if (match && Number(match[1]) <= LAST_TIME) return { createdAt: new Date(Number(match[1])), id: match[2]! };
  throw refuse(argument, `${argument} is not a cursor this list gave out.`);
}

const NAME_CURSOR = /^n:([a-z0-9._-]{1,253})\/([a-z]{2,4}_[0-9a-f-]{36})$/;

/** A cursor of a list in name order; a creation-order cursor (or anything else) is refused. */
export function decodeNameCursor(cursor: string, argument: string): NameKey {
  const match = NAME_CURSOR.exec(cursorText(cursor, 400));
  if (match) return { name: match[1]!, id: match[2]! };
  throw refuse(argument, `${argument} is not a cursor this list gave out in this order.`);
}

function size(value: number | null | undefined, argument: string): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE_SIZE) throw refuse(argument, `${argument} must be a whole number from 0 to ${MAX_PAGE_SIZE}.`);
  return value;
}

/**
 * A list's text filter (namePrefix, status): text PostgreSQL cannot compare (NUL, lone
 * surrogates) or longer than any name is refused naming the argument, never quoting it (P4).
 */
export function textFilter(value: string | null | undefined, argument: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  const problem = textProblem(value);
  if (problem) throw refuse(argument, `${argument} contains ${describeTextProblem(problem)}.`);
  if (value.length > 253) throw refuse(argument, `${argument} is longer than any name (253 characters).`);
  return value;
}

/** A cursor of a list ordered by a number unique within its parent (a configuration's generations). */
export function encodeNumberCursor(key: number): string {
  return Buffer.from(JSON.stringify(['n', key]), 'utf8').toString('base64url');
}

export function decodeNumberCursor(cursor: string, argument: string): number {
  let parsed: unknown = null;
  if (cursor.length <= 40 && /^[A-Za-z0-9_-]*$/.test(cursor)) {
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      parsed = null;
    }
  }
  if (Array.isArray(parsed) && parsed.length === 2 && parsed[0] === 'n' && Number.isSafeInteger(parsed[1]) && parsed[1] >= 0 && parsed[1] <= 2 ** 31 - 1) return parsed[1] as number;
  throw refuse(argument, `${argument} is not a cursor this list gave out.`);
}

export function pageRequest(args: ConnectionArgs): PageRequest;
export function pageRequest<K>(args: ConnectionArgs, decode: (cursor: string, argument: string) => K): PageRequest<K>;
export function pageRequest<K>(args: ConnectionArgs, decodeOwn?: (cursor: string, argument: string) => K): PageRequest<K> {
  const first = size(args.first, 'first');
  const last = size(args.last, 'last');
  if (first !== null && last !== null) throw refuse('last', 'Ask for first or last, not both.');
  const byName = args.order === 'NAME_A_TO_Z' || args.order === 'NAME_Z_TO_A';
  // A cursor is a place in one order: a list in name order takes only name cursors, and the other way round.
  const decode = (decodeOwn ?? (byName ? decodeNameCursor : decodeCursor)) as (cursor: string, argument: string) => K;
  const after = args.after ? decode(args.after, 'after') : null;
  const before = args.before ? decode(args.before, 'before') : null;
  const order = { newestFirst: args.order === 'NEWEST_FIRST' || args.order === 'NAME_Z_TO_A', ...(byName ? { byName } : {}) };
  if (last !== null) return { size: last, direction: 'backward', after, before, ...order };
  return { size: first ?? DEFAULT_PAGE_SIZE, direction: 'forward', after, before, ...order };
}

export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: () => Promise<number>;
}

export function toConnection<T>(page: PageOf<T>): Connection<T>;
export function toConnection<T, K>(page: PageOf<T, K>, encode: (key: K) => string): Connection<T>;
export function toConnection<T, K>(page: PageOf<T, K>, encode: (key: K) => string = encodeCursor as never): Connection<T> {
  // A cursor is encoded when it is asked for (most pages ask for the end cursor only, or none).
  const edges = page.edges.map(({ key, node }) => ({
    node,
    get cursor() {
      return encode(key);
    },
  }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges.at(-1)?.cursor ?? null;
      },
    },
    totalCount: page.totalCount,
  };
}

/** The `totalCount` field of every connection (`fields: (t) => ({ totalCount: t.int(totalCount) })`). */
export const totalCount = {
  description: 'Rows matching the filter on every page (counted only when asked for).',
  resolve: (parent: object) => (parent as Connection<unknown>).totalCount(),
};
