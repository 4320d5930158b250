import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthThrottle, keyPrefixOf } from './throttle.ts';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('AuthThrottle (P5)', () => {
  it('P5 an address may fail a burst of times, then waits; the wait is the time its debt takes to refill', () => {
    const c = clock();
    const throttle = new AuthThrottle({ perAddress: { burst: 3, refillPerSecond: 0.5 }, now: c.now });
    const subject = { clientAddress: '10.0.0.1' };
    expect([throttle.fail(subject), throttle.fail(subject), throttle.fail(subject)]).toEqual([0, 0, 0]);
    expect(throttle.fail(subject)).toBe(2);
    c.advance(2_000);
    expect(throttle.fail(subject)).toBe(2); // one forgiven, spent again
    c.advance(10_000);
    expect(throttle.fail(subject)).toBe(0);
  });

  it('P5 a client that keeps failing waits at most burst / refill seconds', () => {
    const c = clock();
    const throttle = new AuthThrottle({ perAddress: { burst: 5, refillPerSecond: 0.5 }, now: c.now });
    let wait = 0;
    for (let i = 0; i < 1000; i++) wait = throttle.fail({ clientAddress: 'x' });
    expect(wait).toBe(10);
  });

  it('P5 failures under one key prefix are throttled whatever the address, and do not touch other prefixes', () => {
    const c = clock();
    const throttle = new AuthThrottle({ perAddress: { burst: 100, refillPerSecond: 1 }, perKeyPrefix: { burst: 2, refillPerSecond: 0.1 }, now: c.now });
    const waits = ['a', 'b', 'c'].map((clientAddress) => throttle.fail({ clientAddress, keyPrefix: 'occ_AAAAAAAA' }));
    expect(waits).toEqual([0, 0, 10]);
    expect(throttle.fail({ clientAddress: 'd', keyPrefix: 'occ_BBBBBBBB' })).toBe(0);
  });

  it('P5 addresses are independent: one address throttled leaves another alone', () => {
    const throttle = new AuthThrottle({ perAddress: { burst: 1, refillPerSecond: 0.5 }, now: clock().now });
    throttle.fail({ clientAddress: 'attacker' });
    expect(throttle.fail({ clientAddress: 'attacker' })).toBeGreaterThan(0);
    expect(throttle.fail({ clientAddress: 'admin' })).toBe(0);
  });

  it('P5 memory stays bounded under any sequence of failures, and random prefixes never evict address buckets', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ clientAddress: fc.string({ maxLength: 4 }), keyPrefix: fc.option(fc.string({ maxLength: 12 })) }), { maxLength: 300 }),
        (failures) => {
          const throttle = new AuthThrottle({ maxEntries: 16, now: clock().now });
          for (const f of failures) throttle.fail(f);
          expect(throttle.size.addresses).toBeLessThanOrEqual(16);
          expect(throttle.size.prefixes).toBeLessThanOrEqual(16);
        },
      ),
      { numRuns: 200 },
    );
    const throttle = new AuthThrottle({ maxEntries: 8, perAddress: { burst: 1, refillPerSecond: 0.01 }, now: clock().now });
    throttle.fail({ clientAddress: 'attacker' });
    for (let i = 0; i < 100; i++) throttle.fail({ clientAddress: 'attacker', keyPrefix: `occ_${i}` });
    expect(throttle.fail({ clientAddress: 'attacker' })).toBeGreaterThan(0);
  });

  it('P5 keyPrefixOf takes the listed prefix of an API key and nothing of other strings', () => {
    expect(keyPrefixOf('occ_abcdefghijklmnop')).toBe('occ_abcdefgh');
    expect(keyPrefixOf('Bearer nonsense')).toBeNull();
  });
});
