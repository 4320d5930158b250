import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { auditAnonymousRefusal } from './audit.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
});
afterAll(() => stack?.close());

const coalesced = () => stack.runtime.db.auditEvent.findMany({ where: { coalesceKey: { not: null } }, orderBy: { at: 'asc' } });

describe('coalesced anonymous refusals (P5)', () => {
  it('P5 refusals from one address within a minute are one row with a count per action, even when they race', async () => {
    const at = new Date('2026-11-30T10:00:05Z');
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        auditAnonymousRefusal(stack.runtime.db, { clientAddress: '192.0.2.7', action: i % 2 ? 'signIn' : 'createSecret', reason: 'UNAUTHENTICATED', at: new Date(at.getTime() + i * 1000) }),
      ),
    );
    await auditAnonymousRefusal(stack.runtime.db, { clientAddress: '192.0.2.7', action: 'signIn', reason: 'THROTTLED', at });
    const rows = await coalesced();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actorId: null, outcome: 'DENIED', count: 41, at: new Date('2026-11-30T10:00:00Z') });
    expect(rows[0]!.details).toMatchObject({
      clientAddress: '192.0.2.7',
      counts: { 'signIn:UNAUTHENTICATED': 20, 'createSecret:UNAUTHENTICATED': 20, 'signIn:THROTTLED': 1 },
    });
  });

  it('P5 another address or another minute is another row, so rows grow with addresses and minutes, not with requests', async () => {
    const before = (await coalesced()).length;
    for (let i = 0; i < 30; i++) {
      await auditAnonymousRefusal(stack.runtime.db, { clientAddress: '198.51.100.1', action: 'signIn', reason: 'UNAUTHENTICATED', at: new Date('2026-11-30T11:00:30Z') });
      await auditAnonymousRefusal(stack.runtime.db, { clientAddress: '198.51.100.2', action: 'signIn', reason: 'UNAUTHENTICATED', at: new Date('2026-11-30T11:00:30Z') });
      await auditAnonymousRefusal(stack.runtime.db, { clientAddress: '198.51.100.1', action: 'signIn', reason: 'UNAUTHENTICATED', at: new Date('2026-11-30T11:01:30Z') });
    }
    const rows = (await coalesced()).slice(before);
    expect(rows.map((r) => r.count)).toEqual([30, 30, 30]);
  });
});
