import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHumanPrincipal } from '../services/principals.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const VIEWER = '{ viewer { id kind name } }';
const NAMESPACES = '{ namespaces { edges { node { id } } } }';

async function signIn(apiKey: string): Promise<Response> {
  return stack.request('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey }) });
}

function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0]!;
}

describe('authentication', () => {
  it('a bearer API key authenticates the bootstrap service principal', async () => {
    const res = await stack.gql(VIEWER);
    expect(res.body.data?.viewer).toMatchObject({ kind: 'SERVICE', name: 'bootstrap', id: stack.runtime.installation.bootstrapPrincipalId });
  });

  it('using a key records when it was last used', async () => {
    const user = await createHumanPrincipal(stack.runtime.db, 'last-used', 'test');
    expect((await stack.runtime.db.apiKey.findUniqueOrThrow({ where: { id: user.apiKeyId } })).lastUsedAt).toBeNull();
    const before = Date.now();
    await stack.gql(VIEWER, {}, { key: user.apiKey });
    const used = (await stack.runtime.db.apiKey.findUniqueOrThrow({ where: { id: user.apiKeyId } })).lastUsedAt;
    expect(used!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('the bootstrap key is stored only as a hash', async () => {
    const keys = await stack.runtime.db.apiKey.findMany();
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(stack.bootstrapKey.includes(k.hash)).toBe(false);
      expect(k.hash.includes(stack.bootstrapKey)).toBe(false);
    }
  });

  it('signing in sets an httpOnly SameSite=Strict session cookie that authenticates GraphQL', async () => {
    const res = await signIn(stack.bootstrapKey);
    expect(res.status).toBe(204);
    const set = res.headers.get('set-cookie')!;
    expect(set).toMatch(/^occ_session=[^;]+; /);
    expect(set.split('; ').slice(1)).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(set).not.toContain('Secure'); // only in production
    const viewer = await stack.gql(VIEWER, {}, { key: null, cookie: cookieOf(res) });
    expect(viewer.body.data?.viewer?.name).toBe('bootstrap');
    const me = await stack.request('/auth/session', { headers: { cookie: cookieOf(res) } });
    expect(await me.json()).toMatchObject({ principal: { name: 'bootstrap', kind: 'SERVICE' } });
  });

  it('a wrong key is refused with 401 and a code, and sets no cookie', async () => {
    const res = await signIn('occ_not-a-real-key');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('a session cookie is ignored on a POST that is not JSON (CSRF: a form post cannot carry it)', async () => {
    const cookie = cookieOf(await signIn(stack.bootstrapKey));
    const res = await stack.request('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: `query=${encodeURIComponent(NAMESPACES)}`,
    });
    const text = await res.text();
    expect(text).not.toContain('"namespaces":{');
  });

  it('revoking the API key ends its sessions, and signing out ends the session', async () => {
    const user = await createHumanPrincipal(stack.runtime.db, 'session-user', 'test');
    const cookie = cookieOf(await signIn(user.apiKey));
    expect((await stack.gql(VIEWER, {}, { key: null, cookie })).body.data?.viewer?.name).toBe('session-user');
    await stack.runtime.db.apiKey.update({ where: { id: user.apiKeyId }, data: { revokedAt: new Date() } });
    expect((await stack.gql(VIEWER, {}, { key: null, cookie })).body.data?.viewer).toBeNull();
    const again = cookieOf(await signIn(stack.bootstrapKey));
    const out = await stack.request('/auth/session', { method: 'DELETE', headers: { cookie: again } });
    expect(out.status).toBe(204);
    expect((await stack.gql(VIEWER, {}, { key: null, cookie: again })).body.data?.viewer).toBeNull();
  });

  it('an unauthenticated query is UNAUTHENTICATED, with no data', async () => {
    const res = await stack.gql(NAMESPACES, {}, { key: null });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.body.data).toBeNull();
  });
});

describe('health and limits', () => {
  it('SC5 /healthz answers and /readyz checks the database, Kubernetes and the SelfConfig webhook (the embedded one registers itself, so it is ok once serving)', async () => {
    expect((await stack.request('/healthz')).status).toBe(200);
    const ready = await stack.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', kubernetes: 'ok', webhook: 'ok' } });
  });

  it('GraphiQL is served outside production', async () => {
    const res = await stack.request('/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/graphiql/i);
  });

  it('an operation nested deeper than the limit is refused before execution', async () => {
    let q = 'id';
    for (let i = 0; i < 8; i++) q = `namespace { secrets { edges { node { ${q} } } } }`;
    const res = await stack.gql(`{ secret(id: "sec_x") { ${q} } }`);
    expect(res.body.errors?.[0]?.message).toMatch(/levels deep; the limit is 12/);
  });
});
