import { describeTextProblem, textProblem } from '@occ/domain/text';
import { GraphQLError } from 'graphql';
import type { Keyset, PageOf, PageRequest } from '../services/pagination.ts';

// Relay connection arguments to a keyset page request, and a page back to a connection. Cursors
// are opaque to clients: base64url of the row's place in the order, checked when decoded.

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

function refuse(argument: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', argument } });
}

export function encodeCursor(key: Keyset): string {
  return Buffer.from(JSON.stringify([key.createdAt.toISOString(), key.id]), 'utf8').toString('base64url');
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^[a-z]{2,4}_[0-9a-f-]{36}$/;

export function decodeCursor(cursor: string, argument: string): Keyset {
  let parsed: unknown = null;
  if (cursor.length <= 200 && /^[A-Za-z0-9_-]*$/.test(cursor)) {
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      parsed = null;
    }
  }
  if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && ISO.test(parsed[0]) && typeof parsed[1] === 'string' && ID.test(parsed[1])) {
    const createdAt = new Date(parsed[0]);
    if (!Number.isNaN(createdAt.getTime())) return { createdAt, id: parsed[1] };
  }
  throw refuse(argument, `${argument} is not a cursor this list gave out.`);
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
export function pageRequest<K>(args: ConnectionArgs, decode: (cursor: string, argument: string) => K = decodeCursor as never): PageRequest<K> {
  const first = size(args.first, 'first');
  const last = size(args.last, 'last');
  if (first !== null && last !== null) throw refuse('last', 'Ask for first or last, not both.');
  const after = args.after ? decode(args.after, 'after') : null;
  const before = args.before ? decode(args.before, 'before') : null;
  if (last !== null) return { size: last, direction: 'backward', after, before };
  return { size: first ?? DEFAULT_PAGE_SIZE, direction: 'forward', after, before };
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
