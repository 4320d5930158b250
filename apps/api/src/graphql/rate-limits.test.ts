import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, listen } from '../http/server.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { testDatabaseMode } from '../test/database.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { PrincipalBudget, type BudgetLimitsByKind } from './principal-budget.ts';

// Rule P7 through the HTTP app as `npm start` serves it: each principal's GraphQL budget and its
// cap on requests in execution. Each test serves the stack's runtime through an app of its own,
// with the limits below and a clock it moves by hand. Every number expected is worked out here
// from those limits and the documents' costs. Admission spends the cost of full pages (object 2,
// scalar 1, times the page size); once the result is ready, the cost with each page counted at the
// items it held is kept and the rest given back. The stack holds at least 50 namespaces (and so at
// least 50 audit events), so these pages come back full and keep all they spent:
//   namespaces(first: 50) { edges { node { id name } } }   (2 + 2 + 2 + 1 + 1) x 50 = 400
//   namespaces(first: 10) { edges { node { id name } } }   8 x 10 = 80
//   auditEvents(first: 10) { edges { node { id } } }        (2 + 2 + 2 + 1) x 10 = 70
//   viewer { id }                                           2 + 1 = 3
// A person: 1,000 points refilled over 60 s (16 2/3 a second), 2 requests at once. A service
// principal (the bootstrap key): 400 points over 10 s (40 a second), 2 at once.

const LIMITS: BudgetLimitsByKind = {
  HUMAN: { points: 1000, windowSeconds: 60, concurrency: 2 },
  SERVICE: { points: 400, windowSeconds: 10, concurrency: 2 },
};
const T0 = 1_700_000_000_000; // ms; 1,700,000,000 in Unix seconds

const LIST_50 = '{ namespaces(first: 50) { edges { node { id name } } } }';
const LIST_N = 'query($n: Int) { namespaces(first: $n) { edges { node { id name } } } }';
const LIST_10 = '{ namespaces(first: 10) { edges { node { id name } } } }';
const AUDIT_10 = '{ auditEvents(first: 10) { edges { node { id } } } }';
// 2 + 1 + the new namespace (2) with a page of 50 of its secrets, (2+2+2+1) x 50: 355 at admission.
// Its page comes back empty and is kept as a page of 1: 2 + 1 + 2 + 7 = 12.
const CREATE_WITH_PAGE =
  'mutation($name: String!) { createNamespace(input: { name: $name }) { __typename ... on CreateNamespaceSuccess { namespace { secrets(first: 50) { edges { node { id } } } } } } }';

let stack: TestStack;
let recording: string[] | null = null;
beforeAll(async () => {
  stack = await startTestStack({ worker: false, onQuery: (sql) => recording?.push(sql) });
  // Without a worker they stay PROVISIONING: the lists read rows, never the cluster.
  for (let i = 0; i < 50; i++) {
    const created = await stack.gql('mutation($name: String!) { createNamespace(input: { name: $name }) { __typename } }', { name: `p7-seed-${i}` });
    expect(created.body.data).toEqual({ createNamespace: { __typename: 'CreateNamespaceSuccess' } });
  }
});
afterAll(() => stack?.close());

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

/** An HTTP app over the stack's runtime with its own budget, on a clock the test moves. */
async function serve(): Promise<{ clock: { now: number }; post(key: string, query: string, variables?: Record<string, unknown>): Promise<Answer>; close(): Promise<void> }> {
  const clock = { now: T0 };
  const app = createHttpApp({ deps: stack.runtime.deps, production: false, consoleDir: '/nonexistent', requestBudget: new PrincipalBudget({ limits: LIMITS, now: () => clock.now }) });
  const server: Server = await listen(app, '127.0.0.1', 0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    clock,
    async post(key, query, variables = {}) {
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
      return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A person who reads every namespace. */
async function reader(name: string): Promise<string> {
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const user = await createHumanPrincipal(stack.runtime.db, `${name}-${Math.random().toString(36).slice(2, 8)}`, boot);
  await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'installation' }, boot);
  return user.apiKey;
}

/** The SQL statements run while `send` ran. */
async function statementsOf<T>(send: () => Promise<T>): Promise<{ answer: T; statements: string[] }> {
  recording = [];
  try {
    const answer = await send();
    return { answer, statements: recording };
  } finally {
    recording = null;
  }
}

const left = (answer: Answer) => ({
  limit: answer.headers.get('x-ratelimit-limit'),
  remaining: answer.headers.get('x-ratelimit-remaining'),
  reset: answer.headers.get('x-ratelimit-reset'),
});
const codes = (answer: Answer) => answer.body.errors?.map((e) => e.extensions?.code);
// The operations' own statements: a page of namespaces (keyset, ordered) and a namespace's insert.
// Other statements may run meanwhile (the leader's controllers read the Namespace table on their
// own), so "nothing ran" is checked on these.
const namespacePages = (statements: string[]) => statements.filter((s) => s.includes('FROM "public"."Namespace"') && /\bORDER BY\b/i.test(s));
const namespaceInserts = (statements: string[]) => statements.filter((s) => s.includes('INSERT INTO "public"."Namespace"'));

describe('P7 cost budget and concurrent requests per principal', () => {
  it('P7 a principal that spends its budget gets 429 with Retry-After and RATE_LIMITED, and nothing of the operation runs; the headers count down', async () => {
    const app = await serve();
    try {
      const key = await reader('p7-spender');
      const first = await statementsOf(() => app.post(key, LIST_50));
      expect(first.answer.status).toBe(200);
      expect(first.answer.body.errors).toBeUndefined();
      // 1,000 - 400 = 600 left; whole again after 400 / (1000/60) = 24 s.
      expect(left(first.answer)).toEqual({ limit: '1000', remaining: '600', reset: '1700000024' });
      expect(namespacePages(first.statements)).toHaveLength(1); // the list reads its page when it runs

      const second = await app.post(key, LIST_N, { n: 50 }); // the page size given as a variable costs the same
      expect(second.status).toBe(200);
      expect(left(second)).toEqual({ limit: '1000', remaining: '200', reset: '1700000048' });

      const refused = await statementsOf(() => app.post(key, LIST_50));
      expect(refused.answer.status).toBe(429);
      // 400 - 200 = 200 points missing at 16 2/3 a second: 12 s.
      expect(refused.answer.headers.get('retry-after')).toBe('12');
      expect(codes(refused.answer)).toEqual(['RATE_LIMITED']);
      expect(refused.answer.body.data ?? null).toBeNull();
      expect(namespacePages(refused.statements)).toEqual([]);
      expect(left(refused.answer)).toEqual({ limit: '1000', remaining: '200', reset: '1700000048' }); // a refusal spends nothing
    } finally {
      await app.close();
    }
  });

  it('P7 a mutation refused for the budget writes nothing', async () => {
    const app = await serve();
    try {
      const key = stack.bootstrapKey; // a service principal: 400 points
      expect(left(await app.post(key, LIST_50))).toEqual({ limit: '400', remaining: '0', reset: '1700000010' });
      const name = `p7-refused-${Math.random().toString(36).slice(2, 8)}`;
      const refused = await statementsOf(() => app.post(key, CREATE_WITH_PAGE, { name }));
      expect(refused.answer.status).toBe(429);
      // 355 points missing at 40 a second: 8.875 s, so 9.
      expect(refused.answer.headers.get('retry-after')).toBe('9');
      expect(codes(refused.answer)).toEqual(['RATE_LIMITED']);
      expect(namespaceInserts(refused.statements)).toEqual([]);
      expect(await stack.runtime.db.namespace.count({ where: { name } })).toBe(0);
      expect(left(refused.answer)).toEqual({ limit: '400', remaining: '0', reset: '1700000010' });
      // The same mutation once the budget is back runs, and its insert is seen; it keeps 12 of 355.
      app.clock.now = T0 + 10_000;
      const admitted = await statementsOf(() => app.post(key, CREATE_WITH_PAGE, { name }));
      expect(admitted.answer.status).toBe(200);
      expect(admitted.answer.body.errors).toBeUndefined();
      expect(namespaceInserts(admitted.statements)).toHaveLength(1);
      expect(await stack.runtime.db.namespace.count({ where: { name } })).toBe(1);
      expect(left(admitted.answer)).toEqual({ limit: '400', remaining: '388', reset: '1700000011' }); // 12 / 40 = 0.3 s
    } finally {
      await app.close();
    }
  });

  it('P7 another principal is unaffected by one that spent its budget', async () => {
    const app = await serve();
    try {
      const [spender, other] = [await reader('p7-a'), await reader('p7-b')];
      for (const remaining of ['600', '200']) expect(left(await app.post(spender, LIST_50)).remaining).toBe(remaining);
      expect((await app.post(spender, LIST_50)).status).toBe(429);
      const answer = await app.post(other, LIST_50);
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(left(answer)).toEqual({ limit: '1000', remaining: '600', reset: '1700000024' });
    } finally {
      await app.close();
    }
  });

  it('P7 the budget refills with the clock, continuously', async () => {
    const app = await serve();
    try {
      const key = await reader('p7-refill');
      await app.post(key, LIST_50);
      await app.post(key, LIST_50);
      expect((await app.post(key, LIST_50)).headers.get('retry-after')).toBe('12');
      // 11 s later: 200 + 11 x 16 2/3 = 383 left, 17 short of 400: one more second.
      app.clock.now = T0 + 11_000;
      const early = await app.post(key, LIST_50);
      expect(early.status).toBe(429);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(left(early)).toEqual({ limit: '1000', remaining: '383', reset: '1700000048' });
      // 12 s later exactly 400 are back, and the operation runs.
      app.clock.now = T0 + 12_000;
      const admitted = await app.post(key, LIST_50);
      expect(admitted.status).toBe(200);
      expect(admitted.body.errors).toBeUndefined();
      expect(left(admitted)).toEqual({ limit: '1000', remaining: '0', reset: '1700000072' });
      // After a whole window the budget is whole and no more: 1,000, not 1,000 + what was left.
      app.clock.now = T0 + 12_000 + 600_000;
      // 1,000 - 80 = 920, whole again in 80 / (1000/60) = 4.8 s.
      expect(left(await app.post(key, LIST_10))).toEqual({ limit: '1000', remaining: '920', reset: '1700000617' });
    } finally {
      await app.close();
    }
  });

  it('P7 a page that returns fewer items than it asked for is charged for those it returned: the rest comes back when it finishes', async () => {
    const app = await serve();
    try {
      // A person who may see one namespace: a page of 50 of them holds 1.
      const boot = stack.runtime.installation.bootstrapPrincipalId;
      const user = await createHumanPrincipal(stack.runtime.db, `p7-one-${Math.random().toString(36).slice(2, 8)}`, boot);
      const only = await stack.runtime.db.namespace.findFirstOrThrow({ where: { name: 'p7-seed-0' } });
      await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: only.id }, boot);
      for (let i = 1; i <= 10; i++) {
        const answer = await app.post(user.apiKey, LIST_50);
        expect(answer.status).toBe(200);
        expect((answer.body.data?.namespaces as { edges: unknown[] }).edges).toHaveLength(1);
        // Each keeps a page of 1, 8, of the 400 it needed to start; charged in full, the third would be refused.
        expect(left(answer).remaining).toBe(String(1000 - 8 * i));
      }
    } finally {
      await app.close();
    }
  });

  // Requests are held inside their SELECT by a second connection's table lock: PGlite is one session,
  // where that lock would hold the product's every statement too.
  it.skipIf(testDatabaseMode() !== 'postgres')('P7 the (n+1)th request of a principal with n in execution is refused with CONCURRENCY_LIMITED and runs nothing; others are served; a finished request frees its slot (PostgreSQL only)', async () => {
    const app = await serve();
    // A real slow path: the audit table locked by another session, so a page of audit events waits
    // inside its SELECT until the lock is released.
    const locker = new pg.Client({ connectionString: stack.databaseUrl });
    await locker.connect();
    try {
      const key = stack.bootstrapKey; // a service principal: 2 at once
      const other = await reader('p7-other');
      expect((await app.post(other, '{ viewer { id } }')).status).toBe(200); // its key read before the lock
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "AuditEvent" IN ACCESS EXCLUSIVE MODE');
      const held = [app.post(key, AUDIT_10), app.post(key, AUDIT_10)];
      await waitFor(async () => (await waitingOnAuditEvents(locker)) === 2);

      const refused = await statementsOf(() => app.post(key, LIST_10));
      expect(refused.answer.status).toBe(429);
      expect(refused.answer.headers.get('retry-after')).toBe('1');
      expect(codes(refused.answer)).toEqual(['CONCURRENCY_LIMITED']);
      expect(namespacePages(refused.statements)).toEqual([]);
      // The two held spent 2 x 70 of 400; the refusal spent nothing. Whole in 140 / 40 = 3.5 s.
      expect(left(refused.answer)).toEqual({ limit: '400', remaining: '260', reset: '1700000004' });

      const served = await app.post(other, '{ viewer { id } }'); // another principal's slots are its own
      expect(served.status).toBe(200);
      // 1,000 - 3 - 3 (its first viewer and this one): 994, whole again in 6 / (1000/60) = 0.36 s.
      expect(left(served)).toEqual({ limit: '1000', remaining: '994', reset: '1700000001' });

      await locker.query('COMMIT');
      for (const answer of await Promise.all(held)) {
        expect(answer.status).toBe(200);
        expect(answer.body.errors).toBeUndefined();
      }
      // The held ones' pages came back full and kept their 140.
      const after = await app.post(key, LIST_10);
      expect(after.status).toBe(200);
      expect(left(after)).toEqual({ limit: '400', remaining: '180', reset: '1700000006' }); // 260 - 80; 220 / 40 = 5.5 s
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
      await app.close();
    }
  });
});

async function waitingOnAuditEvents(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND relation = '"AuditEvent"'::regclass`,
  );
  return rows[0]!.n;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
