import type { BindingView } from '@occ/domain/access';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import { createLogger } from '../log.ts';
import { testDatabaseMode } from '../test/database.ts';
import { createReadyNamespace, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { hashToken } from './api-keys.ts';
import { AuthCache, authCacheOf, ENTRY_TTL_MS, startAuthCache, type KeyRow, type Kept, type Kind } from './auth-cache.ts';
import { createHumanPrincipal } from './principals.ts';

// Keys, sessions and the caller's bindings kept between requests (auth-cache.ts), and
// forgotten on every change to them: from this process before the request that made it answers,
// from another process as soon as its notification arrives; off whenever that cannot be known.

const ROW: KeyRow = { keyId: 'key_1', principalId: 'hum_1', kind: 'HUMAN', name: 'Ada', lastUsedAt: null };

describe('AuthCache', () => {
  /** Remembers `value` under (kind, id) and says whether it was read (true) or kept (false). */
  function reader<K extends Kind>(cache: AuthCache, kind: K, id: string) {
    return async (value: Kept[K] | null, during?: () => void): Promise<boolean> => {
      let read = false;
      await cache.remember(kind, id, async () => {
        read = true;
        during?.();
        return value;
      });
      return read;
    };
  }
  const session = (end: number): KeyRow => ({ ...ROW, expiresAt: new Date(end) });

  it('A2 keeps nothing while it is off, and forgets everything when it turns on or off', async () => {
    const cache = new AuthCache();
    const key = reader(cache, 'key', 'h');
    expect(await key(ROW)).toBe(true);
    expect(await key(ROW)).toBe(true);
    cache.setLive(true);
    expect(await key(ROW)).toBe(true);
    expect(await key(ROW)).toBe(false);
    cache.setLive(false);
    expect(await key(ROW)).toBe(true);
    cache.setLive(true);
    expect(await key(ROW)).toBe(true);
  });

  it('A2 a miss is never kept, and what is kept is handed back as it was read', async () => {
    const cache = new AuthCache();
    cache.setLive(true);
    const key = reader(cache, 'key', 'h');
    expect(await key(null)).toBe(true);
    expect(await key(null)).toBe(true);
    await key(ROW);
    expect(await cache.remember('key', 'h', async () => null)).toBe(ROW);
    const bindings: BindingView[] = [];
    await cache.remember('bindings', 'hum_1', async () => bindings);
    expect(Object.isFrozen(await cache.remember('bindings', 'hum_1', async () => []))).toBe(true);
  });

  it('A2 a read that began before a change is not kept, for each kind of entry', async () => {
    const cache = new AuthCache();
    cache.setLive(true);
    const kinds = [
      [reader(cache, 'key', 'h'), ROW],
      [reader(cache, 'session', 'h'), session(Date.now() + 60_000)],
      [reader(cache, 'bindings', 'hum_1'), []],
    ] as const;
    for (const [read, value] of kinds) {
      expect(await read(value as never, () => cache.changed('ApiKey'))).toBe(true);
      expect(await read(value as never)).toBe(true);
      expect(await read(value as never)).toBe(false);
      cache.changed('AccessBinding');
      expect(await read(value as never)).toBe(true);
    }
  });

  it('A2 nothing is trusted past its time to live, and a session not past its end', async () => {
    let now = Date.now();
    const cache = new AuthCache(() => now);
    cache.setLive(true);
    const key = reader(cache, 'key', 'k');
    const ends = reader(cache, 'session', 's');
    await key(ROW);
    await ends(session(now + 1_000));
    now += 999;
    expect(await key(ROW)).toBe(false);
    expect(await ends(session(now + 1_000))).toBe(false);
    now += 2;
    expect(await ends(session(now + 60_000))).toBe(true);
    now += ENTRY_TTL_MS;
    expect(await key(ROW)).toBe(true);
  });
});

const postgres = testDatabaseMode() === 'postgres';

describe('A2 P5 the authentication cache of a process', () => {
  let stack: TestStack;
  let other: pg.Client;
  let nsId: string;
  const statements: string[] = [];
  beforeAll(async () => {
    stack = await startTestStack({ onQuery: (sql) => void statements.push(sql) });
    if (postgres) {
      other = new pg.Client({ connectionString: stack.databaseUrl });
      await other.connect();
    }
    nsId = await createReadyNamespace(stack, 'kept');
  });
  afterAll(async () => {
    await other?.end();
    await stack?.close();
  });

  const db = () => stack.runtime.db;
  const cache = () => authCacheOf(db())!;
  const reads = (table: string) => statements.filter((s) => s.includes(`FROM "public"."${table}"`)).length;

  /** Runs `fn` and answers how many statements it sent that read `table`. */
  async function readsDuring(table: string, fn: () => Promise<unknown>): Promise<number> {
    const before = reads(table);
    await fn();
    return reads(table) - before;
  }

  it.runIf(!postgres)('A2 embedded PGlite delivers no notification from one connection to another, so no cache is kept and every request reads', async () => {
    expect(authCacheOf(db())).toBeUndefined();
    const probe = startAuthCache(db(), stack.databaseUrl, createLogger(() => undefined, 'error'));
    await probe.ready;
    expect(probe.cache.on).toBe(false);
    await probe.close();
    for (let i = 0; i < 3; i++) expect(await readsDuring('ApiKey', () => stack.gql('{ viewer { id } }'))).toBe(1);
  });

  it.runIf(postgres)('A2 on PostgreSQL the cache is on: a repeated request reads neither the key nor the bindings again', async () => {
    expect(cache().on).toBe(true);
    const page = () => stack.gql('query($ns: ID!) { namespace(id: $ns) { secrets(first: 5) { edges { node { id } } } } }', { ns: nsId });
    await page();
    expect(await readsDuring('ApiKey', page)).toBe(0);
    expect(await readsDuring('AccessBinding', page)).toBe(0);
  });

  it.runIf(postgres)('A2 OCC_AUTH_CACHE=false: the process keeps nothing, and every request reads the key again', async () => {
    const read: string[] = [];
    const off = await startTestStack({ worker: false, env: { authCache: false }, onQuery: (sql) => void read.push(sql) });
    try {
      expect(authCacheOf(off.runtime.db)).toBeUndefined();
      for (let i = 0; i < 3; i++) {
        const before = read.filter((s) => s.includes('FROM "public"."ApiKey"')).length;
        expect((await off.gql('{ viewer { id } }')).body.data?.viewer?.id).toBe(off.runtime.installation.bootstrapPrincipalId);
        expect(read.filter((s) => s.includes('FROM "public"."ApiKey"')).length - before).toBe(1);
      }
    } finally {
      await off.close();
    }
  });

  interface Subject {
    principalId: string;
    apiKey: string;
    apiKeyId: string;
    cookie: string;
    roleId: string;
    bindingId: string;
  }

  /** A user who reads the namespace through a role of its own, signed in once. */
  async function subject(name: string): Promise<Subject> {
    const made = await createHumanPrincipal(db(), name, 'test');
    const roleId = newId('role');
    await db().role.create({ data: { id: roleId, name: `reader-${roleId}`, permissions: [{ action: 'read', resourceKind: 'namespace' }] } });
    const bindingId = newId('accessBinding');
    await db().accessBinding.create({ data: { id: bindingId, subjectId: made.principalId, roleId, scopeKind: 'NAMESPACE', namespaceId: nsId, createdById: 'test' } });
    const login = await stack.request('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: made.apiKey }) });
    expect(login.status).toBe(204);
    return { ...made, cookie: login.headers.get('set-cookie')!.split(';')[0]!, roleId, bindingId };
  }

  type Auth = { key?: string | null; cookie?: string };
  const byKey = (s: Subject): Auth => ({ key: s.apiKey });
  const bySession = (s: Subject): Auth => ({ key: null, cookie: s.cookie });
  /** Whether the caller is still who it was and still reads the namespace. */
  async function stillReads(s: Subject, auth: Auth, name: string): Promise<boolean> {
    const result = await stack.gql('query($ns: ID!) { viewer { id name } namespace(id: $ns) { id } }', { ns: nsId }, auth);
    return result.body.data?.viewer?.name === name && result.body.data?.namespace?.id === nsId;
  }

  // Every change the triggers announce that takes something away from a caller.
  const changes: Array<{ what: string; auth: (s: Subject) => Auth; sql: (s: Subject) => [string, unknown[]] }> = [
    { what: 'its API key revoked', auth: byKey, sql: (s) => ['UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1', [s.apiKeyId]] },
    { what: 'its API key deleted', auth: byKey, sql: (s) => ['DELETE FROM "ApiKey" WHERE id = $1', [s.apiKeyId]] },
    { what: 'the key of its session revoked', auth: bySession, sql: (s) => ['UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1', [s.apiKeyId]] },
    { what: 'its session ended', auth: bySession, sql: (s) => ['DELETE FROM "Session" WHERE "tokenHash" = $1', [hashToken(decodeURIComponent(s.cookie.split('=')[1]!))]] },
    { what: 'its session cut short', auth: bySession, sql: (s) => [`UPDATE "Session" SET "expiresAt" = now() - interval '1 minute' WHERE "apiKeyId" = $1`, [s.apiKeyId]] },
    { what: 'its principal disabled', auth: byKey, sql: (s) => ['UPDATE "Principal" SET "disabledAt" = now() WHERE id = $1', [s.principalId]] },
    { what: 'its principal renamed', auth: byKey, sql: (s) => [`UPDATE "Principal" SET name = name || ' (renamed)' WHERE id = $1`, [s.principalId]] },
    { what: 'its binding revoked', auth: byKey, sql: (s) => ['DELETE FROM "AccessBinding" WHERE id = $1', [s.bindingId]] },
    { what: 'its role emptied', auth: bySession, sql: (s) => [`UPDATE "Role" SET permissions = '[]' WHERE id = $1`, [s.roleId]] },
  ];

  // Another process is another connection; with embedded PGlite (one session shared by the
  // connections of this process) a second client's statements would interleave with the pool's.
  let n = 0;
  describe.each([
    ['this process', 'the very next request'],
    ...(postgres ? [['another process', 'the next request once its notification arrived']] : []),
  ])('A2 P5 a change committed by %s is seen by %s', (where) => {
    it.each(changes)('$what', async ({ auth, sql }) => {
      const name = `cached-${++n}`;
      const s = await subject(name);
      expect(await stillReads(s, auth(s), name)).toBe(true);
      if (postgres) expect(await readsDuring('AccessBinding', () => stillReads(s, auth(s), name))).toBe(0);
      const [text, values] = sql(s);
      if (where === 'this process') {
        await db().$executeRawUnsafe(text, ...values);
      } else {
        const seen: string[] = [];
        const stop = postgres ? cache().watch((table) => seen.push(table)) : () => undefined;
        await other.query(text, values);
        if (postgres) await waitFor(async () => seen.length > 0, 'the change to be announced', 5_000);
        stop();
      }
      expect(await stillReads(s, auth(s), name)).toBe(false);
    });
  });

  // Namespace rows are kept too (namespaces.ts, getNamespace): a change to one, from either
  // place, is answered by the next request (after its notification, from another process).
  describe.each([
    ['this process', 'the very next request'],
    ...(postgres ? [['another process', 'the next request once its notification arrived']] : []),
  ])('A2 a namespace changed by %s is answered as changed by %s', (where) => {
    const change = async (text: string, values: unknown[]) => {
      if (where === 'this process') return void (await db().$executeRawUnsafe(text, ...values));
      const seen: string[] = [];
      const stop = cache().watch((table) => seen.push(table));
      await other.query(text, values);
      await waitFor(async () => seen.includes('Namespace'), 'the change to be announced', 5_000);
      stop();
    };
    const read = async (id: string) => (await stack.gql('query($ns: ID!) { namespace(id: $ns) { id name status } }', { ns: id })).body.data?.namespace;

    it('its status, its name, then the row deleted', async () => {
      const id = newId('namespace');
      const name = `kept-${id.slice(-8)}`;
      await db().$executeRawUnsafe(`INSERT INTO "Namespace" (id, name, "k8sName", status, "createdById", "updatedAt") VALUES ($1, $2, $2, 'READY', 'test', now())`, id, name);
      expect(await read(id)).toEqual({ id, name, status: 'READY' });
      if (postgres) expect(await readsDuring('Namespace', () => read(id))).toBe(0);
      await change(`UPDATE "Namespace" SET status = 'FAILED' WHERE id = $1`, [id]);
      expect(await read(id)).toEqual({ id, name, status: 'FAILED' });
      await change(`UPDATE "Namespace" SET name = name || '-renamed' WHERE id = $1`, [id]);
      expect(await read(id)).toEqual({ id, name: `${name}-renamed`, status: 'FAILED' });
      await change(`DELETE FROM "Namespace" WHERE id = $1`, [id]);
      expect(await read(id)).toBeNull();
    });
  });

  it.runIf(postgres)('A2 a change rolled back announces nothing, and a key whose lastUsedAt alone moved announces nothing', async () => {
    const s = await subject('quiet');
    const seen: string[] = [];
    const stop = cache().watch((table) => seen.push(table));
    try {
      await other.query('BEGIN');
      await other.query('UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1', [s.apiKeyId]);
      await other.query('ROLLBACK');
      await other.query(`UPDATE "ApiKey" SET "lastUsedAt" = now() - interval '1 hour' WHERE id = $1`, [s.apiKeyId]);
      // A sentinel after both: once it arrived on a connection, anything committed before it had.
      await other.query(`SELECT pg_notify('occ_auth_changed', 'sentinel')`);
      await waitFor(async () => seen.includes('sentinel'), 'the sentinel', 5_000);
      expect(seen.filter((t) => t !== 'sentinel')).toEqual([]);
      expect(await stillReads(s, byKey(s), 'quiet')).toBe(true);
    } finally {
      stop();
    }
  });

  it.runIf(postgres)('A2 P5 while its listener connection is lost nothing is kept and every request reads; it reconnects and keeps again', async () => {
    const viewer = () => stack.gql('{ viewer { id } }');
    await viewer();
    expect(await readsDuring('ApiKey', viewer)).toBe(0);
    const killed = await other.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'occ-auth-listener' AND datname = current_database()`);
    expect(killed.rowCount).toBe(1);
    await waitFor(async () => !cache().on, 'the cache to turn off', 5_000);
    for (let i = 0; i < 3; i++) expect(await readsDuring('ApiKey', viewer)).toBe(1);
    await waitFor(async () => cache().on, 'the cache to turn on again', 10_000);
    await viewer();
    expect(await readsDuring('ApiKey', viewer)).toBe(0);
  });
});
