import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { payload } from '../test/operations.ts';
import { newId } from '../ids.ts';
import { hashToken } from './api-keys.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// Human principals and API keys over GraphQL: keys shown once and stored hashed; a revoked key or
// a disabled user authenticates nobody; identity administration is audited, denials too (A3).

const CREATE_USER = `mutation($input: CreateUserInput!) { createUser(input: $input) { __typename
  ... on CreateUserSuccess { apiKey principal { id kind name disabled createdAt } storedKey { id prefix principalId revokedAt } }
  ... on Error { code message } ... on ValidationError { field } } }`;
const USERS = `{ users { edges { node { id name kind disabled } } } }`;
const DISABLE_USER = `mutation($input: DisableUserInput!) { disableUser(input: $input) { __typename
  ... on DisableUserSuccess { changed principal { id disabled } } ... on Error { code message } } }`;
const CREATE_KEY = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { __typename
  ... on CreateApiKeySuccess { apiKey storedKey { id prefix principalId createdAt revokedAt lastUsedAt } } ... on Error { code message } } }`;
const KEYS = `query($principalId: ID!) { apiKeys(principalId: $principalId) { id prefix principalId createdAt revokedAt lastUsedAt } }`;
const REVOKE_KEY = `mutation($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { __typename
  ... on RevokeApiKeySuccess { changed apiKey { id revokedAt } } ... on Error { code message } } }`;
const VIEWER = `{ viewer { id name disabled createdAt } }`;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
});
afterAll(() => stack?.close());

const db = () => stack.runtime.db;
const FORBIDDEN = { code: 'FORBIDDEN', message: 'You are not allowed to do this.' };
/** A key or cookie that authenticates nobody: the viewer is absent. */
const viewerWith = async (auth: { key?: string | null; cookie?: string }) => (await stack.gql(VIEWER, {}, auth)).body.data?.viewer ?? null;
const unauthenticated = async (key: string) => (await viewerWith({ key })) === null;

async function createUser(name: string, key?: string) {
  return payload(await stack.gql(CREATE_USER, { input: { name } }, { key }), 'createUser');
}

describe('users', () => {
  it('createUser returns the API key once; only its hash is stored; the key authenticates', async () => {
    const made = await createUser('Ada Lovelace');
    expect(made).toMatchObject({ __typename: 'CreateUserSuccess', principal: { kind: 'HUMAN', name: 'Ada Lovelace', disabled: false } });
    expect(made.apiKey).toMatch(/^occ_/);
    expect(made.storedKey).toMatchObject({ prefix: made.apiKey.slice(0, 12), principalId: made.principal.id, revokedAt: null });
    const row = await db().apiKey.findUniqueOrThrow({ where: { id: made.storedKey.id } });
    expect(row.hash).toBe(hashToken(made.apiKey));
    expect(JSON.stringify(row)).not.toContain(made.apiKey);
    expect(await db().auditEvent.count({ where: { action: 'principal.create', resourceId: made.principal.id, outcome: 'SUCCESS' } })).toBe(1);
    expect(JSON.stringify(await db().auditEvent.findMany())).not.toContain(made.apiKey);
    expect(payload(await stack.gql(VIEWER, {}, { key: made.apiKey }), 'viewer')).toMatchObject({ id: made.principal.id, name: 'Ada Lovelace', disabled: false });
    // Nothing reads the key back.
    const keys = payload(await stack.gql(KEYS, { principalId: made.principal.id }), 'apiKeys');
    expect(JSON.stringify(keys)).not.toContain(made.apiKey);
    const fields = await stack.gql(`{ __type(name: "ApiKey") { fields { name } } }`);
    expect(fields.body.data!.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'prefix', 'principalId', 'revokedAt']);
  });

  it('createUser validates the name', async () => {
    expect(await createUser('   ')).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_NAME', field: 'name' });
    expect(await createUser('x'.repeat(101))).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_NAME' });
    expect(await createUser('tab\there')).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_NAME' });
  });

  it('createUser refuses a name another user already has, in any case, with a ConflictError NAME_TAKEN, and creates nothing', async () => {
    const first = await createUser('Margaret Hamilton');
    expect(first.__typename).toBe('CreateUserSuccess');
    const before = await db().principal.count();
    for (const again of ['Margaret Hamilton', 'margaret hamilton', 'MARGARET HAMILTON']) {
      expect(await createUser(again)).toMatchObject({ __typename: 'ConflictError', code: 'NAME_TAKEN' });
    }
    expect(await db().principal.count()).toBe(before);
  });

  it('createUser: two creates of one new name at once make exactly one user', async () => {
    const answers = await Promise.all([createUser('Twin'), createUser('Twin'), createUser('twin')]);
    expect(answers.map((a) => a.__typename).sort()).toEqual(['ConflictError', 'ConflictError', 'CreateUserSuccess']);
    expect(await db().principal.count({ where: { kind: 'HUMAN', name: { equals: 'twin', mode: 'insensitive' } } })).toBe(1);
  });

  it('bootstrapPrincipal names the bootstrap service principal to an administrator, whose keys are listed and revocable; null to a user who cannot read principals', async () => {
    const BOOTSTRAP = `{ bootstrapPrincipal { id kind name } }`;
    const bootstrapId = stack.runtime.installation.bootstrapPrincipalId;
    expect(payload(await stack.gql(BOOTSTRAP), 'bootstrapPrincipal')).toEqual({ id: bootstrapId, kind: 'SERVICE', name: 'bootstrap' });
    const plain = await createHumanPrincipal(db(), 'no-principals', 'test');
    expect(payload(await stack.gql(BOOTSTRAP, {}, { key: plain.apiKey }), 'bootstrapPrincipal')).toBeNull();
    // A second bootstrap key, so the test stack keeps its own: listed by prefix, then revoked.
    const extra = payload(await stack.gql(CREATE_KEY, { input: { principalId: bootstrapId } }), 'createApiKey');
    expect(extra.__typename).toBe('CreateApiKeySuccess');
    const keys = payload(await stack.gql(KEYS, { principalId: bootstrapId }), 'apiKeys');
    expect(keys.map((k: { id: string }) => k.id)).toContain(extra.storedKey.id);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    const revoked = payload(await stack.gql(REVOKE_KEY, { input: { id: extra.storedKey.id } }), 'revokeApiKey');
    expect(revoked).toMatchObject({ __typename: 'RevokeApiKeySuccess', changed: true });
    expect(await unauthenticated(extra.apiKey)).toBe(true);
  });

  it('A3 a user without create on principals is FORBIDDEN without detail, and the denial is audited', async () => {
    const plain = await createHumanPrincipal(db(), 'plain', 'test');
    const before = await db().principal.count();
    expect(await createUser('sneaky', plain.apiKey)).toEqual({ __typename: 'ForbiddenError', ...FORBIDDEN });
    expect(await db().principal.count()).toBe(before);
    expect(await db().auditEvent.count({ where: { actorId: plain.principalId, outcome: 'DENIED', action: 'principal.create' } })).toBe(1);
  });

  it('users lists every human for an administrator, and only yourself otherwise', async () => {
    const made = await createUser('Grace');
    const all = payload(await stack.gql(USERS), 'users').edges.map((e: { node: { id: string } }) => e.node.id);
    expect(all).toContain(made.principal.id);
    expect(all.length).toBeGreaterThan(1);
    const own = payload(await stack.gql(USERS, {}, { key: made.apiKey }), 'users').edges;
    expect(own).toEqual([{ node: { id: made.principal.id, name: 'Grace', kind: 'HUMAN', disabled: false } }]);
  });

  it('a disabled user cannot authenticate, by key or session; disabling again changes nothing', async () => {
    const made = await createUser('Disabled Dan');
    const login = await stack.request('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: made.apiKey }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect(await viewerWith({ key: null, cookie })).toMatchObject({ id: made.principal.id });
    const first = payload(await stack.gql(DISABLE_USER, { input: { id: made.principal.id } }), 'disableUser');
    expect(first).toEqual({ __typename: 'DisableUserSuccess', changed: true, principal: { id: made.principal.id, disabled: true } });
    expect(await unauthenticated(made.apiKey)).toBe(true);
    expect(await viewerWith({ key: null, cookie })).toBeNull();
    const again = payload(await stack.gql(DISABLE_USER, { input: { id: made.principal.id } }), 'disableUser');
    expect(again).toMatchObject({ changed: false, principal: { disabled: true } });
    expect(await db().auditEvent.count({ where: { action: 'principal.disable', resourceId: made.principal.id } })).toBe(1);
    expect(payload(await stack.gql(DISABLE_USER, { input: { id: newId('humanPrincipal') } }), 'disableUser')).toMatchObject({ __typename: 'NotFoundError' });
    // The bootstrap is a service principal, not a user.
    expect(payload(await stack.gql(DISABLE_USER, { input: { id: stack.runtime.installation.bootstrapPrincipalId } }), 'disableUser')).toMatchObject({ __typename: 'NotFoundError' });
  });

  it('A3 P6 disabling someone needs administer on principals: to a namespace admin, who cannot read principals, the user is NOT_FOUND, audited', async () => {
    const target = await createUser('Target');
    const nsAdmin = await createHumanPrincipal(db(), 'ns-admin', 'test');
    const nsId = newId('namespace');
    await db().namespace.create({ data: { id: nsId, name: 'users-ns', k8sName: 'occ-users-ns', status: 'READY', createdById: 'test' } });
    await grantBuiltInRole(db(), nsAdmin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    const hidden = { __typename: 'NotFoundError', code: 'NOT_FOUND', message: 'No such user.' };
    expect(payload(await stack.gql(DISABLE_USER, { input: { id: target.principal.id } }, { key: nsAdmin.apiKey }), 'disableUser')).toMatchObject(hidden);
    expect(payload(await stack.gql(DISABLE_USER, { input: { id: newId('humanPrincipal') } }, { key: nsAdmin.apiKey }), 'disableUser')).toMatchObject(hidden);
    expect((await db().principal.findUniqueOrThrow({ where: { id: target.principal.id } })).disabledAt).toBeNull();
    expect(await db().auditEvent.count({ where: { actorId: nsAdmin.principalId, outcome: 'DENIED', action: 'principal.read', resourceId: target.principal.id } })).toBe(1);
  });
});

describe('API keys', () => {
  it('a user creates, lists and revokes their own keys; a revoked key cannot authenticate', async () => {
    const me = await createUser('Key Keeper');
    const made = payload(await stack.gql(CREATE_KEY, { input: { principalId: me.principal.id } }, { key: me.apiKey }), 'createApiKey');
    expect(made).toMatchObject({ __typename: 'CreateApiKeySuccess', storedKey: { principalId: me.principal.id, revokedAt: null, lastUsedAt: null } });
    expect(made.apiKey).not.toBe(me.apiKey);
    expect((await db().apiKey.findUniqueOrThrow({ where: { id: made.storedKey.id } })).hash).toBe(hashToken(made.apiKey));
    expect(await db().auditEvent.count({ where: { action: 'apiKey.create', details: { path: ['apiKeyId'], equals: made.storedKey.id } } })).toBe(1);
    expect(payload(await stack.gql(VIEWER, {}, { key: made.apiKey }), 'viewer')).toMatchObject({ id: me.principal.id });

    const listed = payload(await stack.gql(KEYS, { principalId: me.principal.id }, { key: me.apiKey }), 'apiKeys');
    expect(listed.map((k: { id: string }) => k.id)).toEqual([me.storedKey.id, made.storedKey.id]);
    expect(JSON.stringify(listed)).not.toContain(made.apiKey);

    const revoked = payload(await stack.gql(REVOKE_KEY, { input: { id: made.storedKey.id } }, { key: me.apiKey }), 'revokeApiKey');
    expect(revoked).toMatchObject({ __typename: 'RevokeApiKeySuccess', changed: true, apiKey: { id: made.storedKey.id } });
    expect(revoked.apiKey.revokedAt).not.toBeNull();
    expect(await unauthenticated(made.apiKey)).toBe(true);
    expect(payload(await stack.gql(VIEWER, {}, { key: me.apiKey }), 'viewer')).toMatchObject({ id: me.principal.id });
    const again = payload(await stack.gql(REVOKE_KEY, { input: { id: made.storedKey.id } }, { key: me.apiKey }), 'revokeApiKey');
    expect(again).toMatchObject({ changed: false });
    expect(await db().auditEvent.count({ where: { action: 'apiKey.revoke', details: { path: ['apiKeyId'], equals: made.storedKey.id } } })).toBe(1);
    expect(payload(await stack.gql(REVOKE_KEY, { input: { id: newId('apiKey') } }), 'revokeApiKey')).toMatchObject({ __typename: 'NotFoundError' });
  });

  it("A3 P6 someone else's keys: NOT_FOUND to create or revoke for who cannot read principals (audited), as for made-up ids; invisible to list; an administrator may", async () => {
    const owner = await createUser('Owner');
    const other = await createUser('Other');
    expect(payload(await stack.gql(CREATE_KEY, { input: { principalId: owner.principal.id } }, { key: other.apiKey }), 'createApiKey')).toEqual({ __typename: 'NotFoundError', code: 'NOT_FOUND', message: 'No such principal.' });
    expect(payload(await stack.gql(CREATE_KEY, { input: { principalId: newId('humanPrincipal') } }, { key: other.apiKey }), 'createApiKey')).toEqual({ __typename: 'NotFoundError', code: 'NOT_FOUND', message: 'No such principal.' });
    expect(payload(await stack.gql(REVOKE_KEY, { input: { id: owner.storedKey.id } }, { key: other.apiKey }), 'revokeApiKey')).toEqual({ __typename: 'NotFoundError', code: 'NOT_FOUND', message: 'No such API key.' });
    expect(payload(await stack.gql(REVOKE_KEY, { input: { id: newId('apiKey') } }, { key: other.apiKey }), 'revokeApiKey')).toEqual({ __typename: 'NotFoundError', code: 'NOT_FOUND', message: 'No such API key.' });
    expect(await db().auditEvent.count({ where: { actorId: other.principal.id, outcome: 'DENIED', action: 'principal.read', resourceId: owner.principal.id } })).toBe(2);
    expect(payload(await stack.gql(KEYS, { principalId: owner.principal.id }, { key: other.apiKey }), 'apiKeys')).toEqual([]);
    expect(await db().apiKey.count({ where: { principalId: owner.principal.id } })).toBe(1);

    const byAdmin = payload(await stack.gql(CREATE_KEY, { input: { principalId: owner.principal.id } }), 'createApiKey');
    expect(byAdmin).toMatchObject({ __typename: 'CreateApiKeySuccess', storedKey: { principalId: owner.principal.id } });
    expect(payload(await stack.gql(KEYS, { principalId: owner.principal.id }), 'apiKeys')).toHaveLength(2);
    expect(payload(await stack.gql(REVOKE_KEY, { input: { id: owner.storedKey.id } }), 'revokeApiKey')).toMatchObject({ changed: true });
    expect(await unauthenticated(owner.apiKey)).toBe(true);
    expect(payload(await stack.gql(CREATE_KEY, { input: { principalId: newId('humanPrincipal') } }), 'createApiKey')).toMatchObject({ __typename: 'NotFoundError' });
  });

  it('a disabled principal gets no new key', async () => {
    const gone = await createUser('Gone');
    await stack.gql(DISABLE_USER, { input: { id: gone.principal.id } });
    expect(payload(await stack.gql(CREATE_KEY, { input: { principalId: gone.principal.id } }), 'createApiKey')).toMatchObject({ __typename: 'ConflictError', code: 'PRINCIPAL_DISABLED' });
  });
});
