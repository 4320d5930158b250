import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { transaction } from './client.ts';
import { parseUtc, sql, sqlCount, sqlRows } from './sql.ts';

// The read path's SQL (db/sql.ts) runs on the client's pool outside a transaction and through
// Prisma inside one. Both must give the same rows with the same types, whatever the process's time
// zone (timestamp(3) columns hold UTC wall time), and the pool path must be counted as Prisma's
// statements are (the statement-count tests rely on it).

let stack: TestStack;
const statements: string[] = [];
const savedTz = process.env.TZ;

beforeAll(async () => {
  stack = await startTestStack({ worker: false, onQuery: (text) => statements.push(text) });
});
afterAll(() => stack?.close());
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

/** Times on both sides of a day boundary, with milliseconds, in and out of daylight saving time. */
const TIMES = ['2026-01-01T00:00:00.001Z', '2026-03-29T01:30:00.250Z', '2026-06-30T23:59:59.999Z', '2026-10-25T00:45:12.500Z'].map((t) => new Date(t));
const ZONES = ['UTC', 'Pacific/Kiritimati', 'America/St_Johns', 'Europe/Berlin'];

async function plantEvents(): Promise<{ ids: string[]; action: string }> {
  const action = `test.sql-${randomUUID().slice(0, 8)}`;
  const ids = TIMES.map(() => `aud_${randomUUID()}`);
  await stack.runtime.db.auditEvent.createMany({ data: TIMES.map((at, i) => ({ id: ids[i]!, at, systemActor: 'worker', action, resourceKind: 'secret', outcome: 'SUCCESS' as const, details: { i } })) });
  return { ids, action };
}

describe('the read path in SQL', () => {
  it('a timestamp(3) as PostgreSQL prints it is read as the instant written, for 3,000 generated instants from year 100 to 9999, every millisecond digit (trailing zeros printed short)', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const min = Date.UTC(100, 0, 1);
    const max = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    const instants = Array.from({ length: 3000 }, (_, i) => {
      const at = new Date(Math.floor(min + random() * (max - min)));
      // Every tenth with a whole second, every tenth a whole tenth: PostgreSQL prints those short.
      if (i % 10 === 0) at.setUTCMilliseconds(0);
      if (i % 10 === 1) at.setUTCMilliseconds(100 * (i % 9));
      return at;
    });
    instants.push(new Date(Date.UTC(2026, 0, 1)), new Date('0050-06-15T12:00:00.123Z'), new Date('0100-01-01T00:00:00.000Z'), new Date('9999-12-31T23:59:59.999Z'));
    const printed = await sqlRows<{ t: string }>(stack.runtime.db, sql`SELECT unnest(${instants.map((d) => d.toISOString())}::timestamp(3)[])::text AS t`);
    expect(printed.some((r) => r.t.length === 23) && printed.some((r) => r.t.length < 23)).toBe(true);
    expect(printed.map((r) => parseUtc(r.t).toISOString())).toEqual(instants.map((d) => d.toISOString()));
  });

  it.each(ZONES)('the pool and a transaction read the same rows with the same types, and a Date parameter compares as UTC, with the process in time zone %s', async (zone) => {
    process.env.TZ = zone;
    const { ids, action } = await plantEvents();
    const query = sql`SELECT "id", "at", "action", "outcome", "details", "count" FROM "public"."AuditEvent" WHERE "action" = ${action} ORDER BY "at", "id"`;
    const viaPool = await sqlRows<{ id: string; at: Date }>(stack.runtime.db, query);
    const viaTransaction = await transaction(stack.runtime.db, (tx) => sqlRows<{ id: string; at: Date }>(tx, query));
    const viaPrisma = await stack.runtime.db.auditEvent.findMany({ where: { action }, orderBy: [{ at: 'asc' }, { id: 'asc' }], select: { id: true, at: true, action: true, outcome: true, details: true, count: true } });
    expect(viaPool.map((r) => r.at.toISOString())).toEqual(TIMES.map((t) => t.toISOString()));
    expect(viaPool).toEqual(viaPrisma);
    expect(viaTransaction).toEqual(viaPrisma);
    // A cursor: the rows after each planted time are exactly the later ones.
    for (const [i, at] of TIMES.entries()) {
      const after = sql`SELECT "id" FROM "public"."AuditEvent" WHERE "action" = ${action} AND ("at", "id") > (${at}::timestamp(3), ${ids[i]!}) ORDER BY "at", "id"`;
      expect((await sqlRows<{ id: string }>(stack.runtime.db, after)).map((r) => r.id)).toEqual(ids.slice(i + 1));
      expect((await transaction(stack.runtime.db, (tx) => sqlRows<{ id: string }>(tx, after))).map((r) => r.id)).toEqual(ids.slice(i + 1));
    }
  });

  it('a statement on the pool is reported to the query hook, and a count comes back as a number either way', async () => {
    const { action } = await plantEvents();
    statements.length = 0;
    const count = sql`SELECT count(*)::int AS n FROM "public"."AuditEvent" WHERE "action" = ${action}`;
    expect(await sqlCount(stack.runtime.db, count)).toBe(TIMES.length);
    expect(statements).toEqual([count.text]);
    expect(await transaction(stack.runtime.db, (tx) => sqlCount(tx, count))).toBe(TIMES.length);
  });
});
