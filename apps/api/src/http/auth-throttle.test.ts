import { randomBytes } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHumanPrincipal } from '../services/principals.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHttpApp, listen } from './server.ts';
import { AuthThrottle } from './throttle.ts';

// P5 through the real HTTP stack. Every client address is a loopback address of its own
// (127.0.0.0/8 is all local), so one test can be an attacker and an administrator at once.

let stack: TestStack;
let server: Server;
let port: number;
let bootstrapKey: string;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  bootstrapKey = stack.bootstrapKey;
  // A small budget, so the test spends it quickly; refills slowly enough not to recover mid-test.
  const throttle = new AuthThrottle({ perAddress: { burst: 5, refillPerSecond: 0.01 }, perKeyPrefix: { burst: 3, refillPerSecond: 0.01 } });
  const app = createHttpApp({ deps: stack.runtime.deps, production: false, consoleDir: '/nonexistent', throttle });
  server = await listen(app, '127.0.0.1', 0);
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await stack?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(from: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, localAddress: from, headers: { ...(data ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const wrongKey = (prefix = `occ_${randomBytes(6).toString('base64url')}`) => `${prefix}${randomBytes(32).toString('base64url')}`.slice(0, 47);
const signIn = (from: string, apiKey: string) => send(from, 'POST', '/auth/session', { apiKey });
const gql = (from: string, key: string | null, query: string) =>
  send(from, 'POST', '/graphql', { query }, key ? { authorization: `Bearer ${key}` } : {});

async function anonymousAudit(): Promise<{ rows: number; refusals: number }> {
  const rows = await stack.runtime.db.auditEvent.findMany({ where: { actorId: null, outcome: 'DENIED' } });
  return { rows: rows.length, refusals: rows.reduce((n, r) => n + r.count, 0) };
}

describe('failed authentication is throttled (P5)', () => {
  it('P5 failed sign-ins from one address answer 429 with Retry-After once its budget is spent; a valid key from that address still signs in', async () => {
    const from = '127.0.0.2';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await signIn(from, wrongKey())).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const throttled = await signIn(from, wrongKey());
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(throttled.body)).toMatchObject({ code: 'TOO_MANY_FAILED_AUTHENTICATIONS' });

    expect((await signIn(from, bootstrapKey)).status).toBe(204);
    expect((await signIn('127.0.0.3', wrongKey())).status).toBe(401);
  });

  it('P5 failures aimed at one key prefix are throttled from any address; other prefixes and the real key are not', async () => {
    const prefix = bootstrapKey.slice(0, 12);
    const statuses: number[] = [];
    for (const from of ['127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']) statuses.push((await signIn(from, wrongKey(prefix))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await signIn('127.0.0.8', wrongKey())).status).toBe(401);
    expect((await signIn('127.0.0.8', bootstrapKey)).status).toBe(204);
  });

  it('P5 a bad bearer key on /graphql answers 401, then 429 once the address is spent; a valid key from the same address is served', async () => {
    const from = '127.0.0.9';
    const first = await gql(from, wrongKey(), '{ viewer { id } }');
    expect(first.status).toBe(401);
    expect(JSON.parse(first.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    for (let i = 0; i < 4; i++) await gql(from, wrongKey(), '{ viewer { id } }');
    const throttled = await gql(from, wrongKey(), '{ viewer { id } }');
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(throttled.body).errors[0].extensions.code).toBe('TOO_MANY_FAILED_AUTHENTICATIONS');
    const served = await gql(from, bootstrapKey, '{ viewer { id } }');
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body).data.viewer.id).toBe(stack.runtime.installation.bootstrapPrincipalId);
  });

  it('P5 anonymous refusals add one audit row per address and minute, however many; authenticated denials stay one row each', async () => {
    const before = await anonymousAudit();
    const from = '127.0.0.10';
    for (let i = 0; i < 15; i++) {
      await signIn(from, wrongKey());
      await gql(from, null, 'mutation { createNamespace(input: {name: "x"}) { __typename } }');
      await send(from, 'GET', '/auth/session', undefined, { cookie: 'occ_session=expired-or-made-up' });
    }
    const after = await anonymousAudit();
    // One row for the minute, or two if the loop crossed a minute boundary.
    expect(after.rows - before.rows).toBeGreaterThanOrEqual(1);
    expect(after.rows - before.rows).toBeLessThanOrEqual(2);
    expect(after.refusals - before.refusals).toBe(45);

    const user = await createHumanPrincipal(stack.runtime.db, `nobody-${randomBytes(3).toString('hex')}`, stack.runtime.installation.bootstrapPrincipalId);
    const denied = () => stack.runtime.db.auditEvent.count({ where: { actorId: user.principalId, outcome: 'DENIED' } });
    const deniedBefore = await denied();
    for (let i = 0; i < 3; i++) {
      const res = await gql('127.0.0.11', user.apiKey, 'mutation { createNamespace(input: {name: "nope"}) { __typename } }');
      expect(JSON.parse(res.body).data.createNamespace.__typename).toBe('ForbiddenError');
    }
    expect((await denied()) - deniedBefore).toBe(3);
  });

  it('A3 an unauthenticated mutation is answered only once its denial is in the audit, however slow the write', async () => {
    // A real slow write: the coalesced audit row's insert sleeps in the database. The denial is
    // audited from Pothos' synchronous unauthorizedError, so the answer must wait for that write.
    const db = stack.runtime.db;
    await db.$executeRawUnsafe(`CREATE FUNCTION slow_anonymous_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$`);
    await db.$executeRawUnsafe(
      `CREATE TRIGGER slow_anonymous_audit BEFORE INSERT ON "AuditEvent" FOR EACH ROW WHEN (NEW."action" = 'anonymousRefusals') EXECUTE FUNCTION slow_anonymous_audit()`,
    );
    try {
      const from = '127.0.0.12';
      const res = await gql(from, null, 'mutation { createNamespace(input: {name: "x"}) { __typename } }');
      expect(JSON.parse(res.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
      const rows = await db.auditEvent.findMany({ where: { actorId: null, coalesceKey: { startsWith: `anonymous:${from}:` } } });
      expect(rows.map((r) => [r.action, r.reason, r.count])).toEqual([['anonymousRefusals', 'UNAUTHENTICATED', 1]]);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER slow_anonymous_audit ON "AuditEvent"`);
      await db.$executeRawUnsafe(`DROP FUNCTION slow_anonymous_audit()`);
    }
  });
});
