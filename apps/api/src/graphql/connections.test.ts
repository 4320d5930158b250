import { ID_PREFIXES } from '@occ/domain/ids';
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { decodeCursor, decodeNameCursor, encodeCursor } from './connections.ts';

// Cursors: every row's place in its order comes back from its cursor exactly, a cursor
// is URL-safe, and anything else a client sends as one is a BAD_USER_INPUT naming the argument.

const MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const keyset = fc.record({
  createdAt: fc.integer({ min: 0, max: MAX }).map((ms) => new Date(ms)),
  id: fc.tuple(fc.constantFrom(...Object.values(ID_PREFIXES)), fc.uuid({ version: 4 })).map(([prefix, uuid]) => `${prefix}${uuid}`),
});

/** Names as validation.ts allows them (lowercase letters, digits, `-`, `_`, `.`; up to 63). */
const nameKey = fc.record({
  name: fc.string({ unit: fc.constantFrom(...'abcxyz019-_.'), minLength: 1, maxLength: 63 }),
  id: keyset.map((k) => k.id),
});

function refusal(cursor: string): unknown {
  try {
    decodeCursor(cursor, 'after');
  } catch (error) {
    return error;
  }
  return null;
}

describe('cursors', () => {
  it('P4 a cursor gives back its row’s place exactly, and is URL-safe, for generated rows', () => {
    fc.assert(
      fc.property(keyset, (key) => {
        const cursor = encodeCursor(key);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        const back = decodeCursor(cursor, 'after');
        expect(back.createdAt.getTime()).toBe(key.createdAt.getTime());
        expect(back.id).toBe(key.id);
      }),
      { numRuns: 2_000 },
    );
  });

  it('P4 a name-order cursor gives back its place exactly; each order refuses the other’s cursors as BAD_USER_INPUT', () => {
    fc.assert(
      fc.property(nameKey, keyset, (key, time) => {
        const cursor = encodeCursor(key);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeNameCursor(cursor, 'before')).toEqual(key);
        for (const [decode, other] of [[decodeCursor, cursor], [decodeNameCursor, encodeCursor(time)]] as const) {
          let error: unknown = null;
          try {
            decode(other, 'before');
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(GraphQLError);
          expect((error as GraphQLError).extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'before' });
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('P4 any other string is BAD_USER_INPUT naming the argument, never another error', () => {
    const tampered = fc.tuple(keyset, fc.nat(), fc.constantFrom(...'ABCabc019-_')).map(([key, at, c]) => {
      const cursor = encodeCursor(key);
      const i = at % cursor.length;
      return cursor.slice(0, i) + c + cursor.slice(i + 1);
    });
    const anything = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') }),
      fc.string({ unit: 'binary' }).map((s) => Buffer.from(s).toString('base64url')),
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => Buffer.from(`${a}.${b}`).toString('base64url')),
      tampered,
    );
    fc.assert(
      fc.property(anything, (cursor) => {
        const error = refusal(cursor);
        if (error === null) {
          // Only what encodes a row's place decodes: it must encode back to the same place.
          const key = decodeCursor(cursor, 'after');
          expect(decodeCursor(encodeCursor(key), 'after')).toEqual(key);
          return;
        }
        expect(error).toBeInstanceOf(GraphQLError);
        expect((error as GraphQLError).extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
      }),
      { numRuns: 3_000 },
    );
  });

  it.each([
    ['a cursor of the earlier JSON form', Buffer.from(JSON.stringify(['2026-12-01T00:00:00.000Z', 'sec_00000000-0000-0000-0000-000000000000'])).toString('base64url')],
    ['a time that is not a number', Buffer.from('12x4.sec_00000000-0000-0000-0000-000000000000').toString('base64url')],
    ['a time past the year 9999', Buffer.from(`${MAX + 1}.sec_00000000-0000-0000-0000-000000000000`).toString('base64url')],
    ['a time before 1970', Buffer.from('-1.sec_00000000-0000-0000-0000-000000000000').toString('base64url')],
    ['an id of no kind', Buffer.from('1.x_00000000-0000-0000-0000-000000000000').toString('base64url')],
    ['nothing after the time', Buffer.from('1764547200000.').toString('base64url')],
    ['an empty cursor', ''],
    ['a long cursor', 'A'.repeat(10_000)],
  ])('P4 %s is refused', (_what, cursor) => {
    expect((refusal(cursor) as GraphQLError | null)?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
  });
});
