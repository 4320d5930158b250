import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_ID_LABEL, MANAGED_BY_LABEL, NAMESPACE_ID_LABEL } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { startTestStack, type TestStack } from '../test/stack.ts';
import {
  CREATE_SECRET,
  DELETE_SECRET,
  SECRET,
  UPDATE_SECRET,
  createReadyNamespace,
  createSecretOk,
  payload,
} from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';
import { newId } from '../ids.ts';

let stack: TestStack;
let nsId: string;

beforeAll(async () => {
  stack = await startTestStack();
  nsId = await createReadyNamespace(stack, 'team-secrets');
});
afterAll(() => stack?.close());

async function k8sSecret(name: string, k8sNamespace: string) {
  return stack.core.readNamespacedSecret({ name, namespace: k8sNamespace });
}

async function secretRowCount() {
  return stack.runtime.db.secret.count();
}

async function ourK8sSecretCount(k8sNamespace: string) {
  const list = await stack.core.listNamespacedSecret({ namespace: k8sNamespace, labelSelector: MANAGED_BY_LABEL });
  return list.items.length;
}

describe('createSecret', () => {
  it('S1 S2 stores the value in an Opaque Kubernetes Secret the server names and labels, under key "value"', async () => {
    const secret = await createSecretOk(stack, nsId, 'openai-key', 'sk-test-value');
    expect(secret.version).toBe(1);
    expect(secret.reference).toEqual({ kind: 'secret', namespaceId: nsId, id: secret.id });
    const locator = secret.backendLocator;
    expect(locator.key).toBe('value');
    expect(locator.name).toMatch(new RegExp(`^occ-${uuidOf(nsId).slice(0, 8)}-${uuidOf(secret.id)}-[a-z0-9]{8}$`));
    const live = await k8sSecret(locator.name, locator.k8sNamespace);
    expect(live.type).toBe('Opaque');
    expect(live.metadata?.uid).toBe(locator.uid);
    expect(live.metadata?.labels).toMatchObject({ [MANAGED_BY_LABEL]: 'openclaw-control-plane', [NAMESPACE_ID_LABEL]: uuidOf(nsId), [SECRET_ID_LABEL]: uuidOf(secret.id) });
    expect(Buffer.from(live.data!.value!, 'base64').toString('utf8')).toBe('sk-test-value');
    expect(Object.keys(live.data!)).toEqual(['value']);
    expect(live.metadata?.managedFields?.map((f) => [f.manager, f.operation])).toEqual([['occ-controller', 'Update']]);
  });

  it('S2 a caller cannot choose the backend name, namespace or key: such input fields do not exist', async () => {
    const before = await secretRowCount();
    const result = await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'chosen', value: 'v', backendName: 'mine', key: 'other' } });
    expect(result.body.errors?.[0]?.message).toMatch(/Field "backendName" is not defined|has a field it does not define/);
    expect(await secretRowCount()).toBe(before);
  });

  it('S2 two secrets never share a backend object, even with the same name in two namespaces', async () => {
    const other = await createReadyNamespace(stack, 'team-secrets-b');
    const a = await createSecretOk(stack, nsId, 'shared-name', 'a');
    const b = await createSecretOk(stack, other, 'shared-name', 'b');
    expect(a.backendLocator.name).not.toBe(b.backendLocator.name);
    expect(a.backendLocator.k8sNamespace).not.toBe(b.backendLocator.k8sNamespace);
  });

  it('S1 a duplicate name in the namespace is a CONFLICT and creates no second backend object', async () => {
    await createSecretOk(stack, nsId, 'dup', 'one');
    const k8sNs = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
    const objects = await ourK8sSecretCount(k8sNs);
    const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'dup', value: 'two' } }), 'createSecret');
    expect(result).toMatchObject({ __typename: 'ConflictError', code: 'NAME_TAKEN' });
    expect(await ourK8sSecretCount(k8sNs)).toBe(objects);
  });
});

describe('bad input gets a typed error with a code and writes nothing', () => {
  const cases: Array<[string, () => Record<string, unknown>, string, string]> = [
    ['S1 a name with capitals', () => ({ namespaceId: nsId, name: 'Bad_Name', value: 'v' }), 'ValidationError', 'INVALID_NAME'],
    ['S1 an empty name', () => ({ namespaceId: nsId, name: '', value: 'v' }), 'ValidationError', 'INVALID_NAME'],
    ['S1 a name of 64 characters', () => ({ namespaceId: nsId, name: 'a'.repeat(64), value: 'v' }), 'ValidationError', 'INVALID_NAME'],
    ['S1 an empty value', () => ({ namespaceId: nsId, name: 'empty', value: '' }), 'ValidationError', 'EMPTY_VALUE'],
    ['S1 a value over 64 KiB', () => ({ namespaceId: nsId, name: 'big', value: 'x'.repeat(64 * 1024 + 1) }), 'ValidationError', 'VALUE_TOO_LARGE'],
    ['S1 a value with a lone surrogate (invalid UTF-8)', () => ({ namespaceId: nsId, name: 'bad-utf8', value: 'abc\ud800def' }), 'ValidationError', 'INVALID_UTF8'],
    ['S1 a value with a NUL', () => ({ namespaceId: nsId, name: 'nul', value: 'a\u0000b' }), 'ValidationError', 'INVALID_UTF8'],
    ['S1 an unknown namespace', () => ({ namespaceId: newId('namespace'), name: 'x', value: 'v' }), 'NotFoundError', 'NOT_FOUND'],
    ['S1 a malformed namespace id', () => ({ namespaceId: 'nope', name: 'x', value: 'v' }), 'NotFoundError', 'NOT_FOUND'],
  ];
  for (const [title, input, typename, code] of cases) {
    it(title, async () => {
      const before = await secretRowCount();
      const result = payload(await stack.gql(CREATE_SECRET, { input: input() }), 'createSecret');
      expect(result).toMatchObject({ __typename: typename, code });
      expect(await secretRowCount()).toBe(before);
    });
  }

  it('S1 a value of exactly 64 KiB is accepted', async () => {
    const secret = await createSecretOk(stack, nsId, 'exactly-64k', 'é'.repeat(32 * 1024));
    expect(secret.version).toBe(1);
  });

  it('S1 invalid UTF-8 bytes in the request body are refused, not stored as replacement characters', async () => {
    const before = await secretRowCount();
    const body = Buffer.concat([
      Buffer.from(JSON.stringify({ query: CREATE_SECRET, variables: { input: { namespaceId: nsId, name: 'raw-bytes', value: 'PLACEHOLDER' } } }).split('PLACEHOLDER')[0]!),
      Buffer.from([0x61, 0xff, 0xfe, 0x62]),
      Buffer.from(JSON.stringify({ query: CREATE_SECRET, variables: { input: { namespaceId: nsId, name: 'raw-bytes', value: 'PLACEHOLDER' } } }).split('PLACEHOLDER')[1]!),
    ]);
    const res = await fetch(stack.baseUrl + '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}` }, body });
    const json = (await res.json()) as { data: { createSecret: { __typename: string; code: string } } };
    expect(json.data.createSecret).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_UTF8' });
    expect(await secretRowCount()).toBe(before);
  });

  it('S1 a namespace that is not ready answers NAMESPACE_NOT_READY and creates nothing in Kubernetes', async () => {
    const id = newId('namespace');
    await stack.runtime.db.namespace.create({ data: { id, name: 'not-ready', k8sName: `occ-${uuidOf(id)}`, status: 'PROVISIONING', createdById: 'test' } });
    const before = await secretRowCount();
    const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: id, name: 'early', value: 'v' } }), 'createSecret');
    expect(result).toMatchObject({ __typename: 'NamespaceNotReadyError', code: 'NAMESPACE_NOT_READY', namespaceStatus: 'PROVISIONING' });
    expect(await secretRowCount()).toBe(before);
  });

  it('a missing API key is UNAUTHENTICATED and writes nothing', async () => {
    const before = await secretRowCount();
    const result = await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'anon', value: 'v' } }, { key: null });
    expect(result.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(result.body.data).toBeFalsy();
    expect(await secretRowCount()).toBe(before);
  });

  it('a revoked API key is UNAUTHENTICATED and writes nothing', async () => {
    const user = await createHumanPrincipal(stack.runtime.db, 'revoked-user', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    const ok = payload(await stack.gql(SECRET, { id: newId('secret') }, { key: user.apiKey }), 'secret');
    expect(ok).toBeNull();
    await stack.runtime.db.apiKey.update({ where: { id: user.apiKeyId }, data: { revokedAt: new Date() } });
    const before = await secretRowCount();
    const result = await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'revoked', value: 'v' } }, { key: user.apiKey });
    expect(result.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await secretRowCount()).toBe(before);
  });

  it("S4 another namespace's secret is NOT_FOUND to a namespace admin, for read, update and delete", async () => {
    const other = await createReadyNamespace(stack, 'team-other');
    const foreign = await createSecretOk(stack, other, 'foreign', 'theirs');
    const user = await createHumanPrincipal(stack.runtime.db, 'ns-admin', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    expect(payload(await stack.gql(SECRET, { id: foreign.id }, { key: user.apiKey }), 'secret')).toBeNull();
    const upd = payload(await stack.gql(UPDATE_SECRET, { input: { id: foreign.id, value: 'mine now' } }, { key: user.apiKey }), 'updateSecret');
    expect(upd).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    const del = payload(await stack.gql(DELETE_SECRET, { input: { id: foreign.id } }, { key: user.apiKey }), 'deleteSecret');
    expect(del).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    const row = await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: foreign.id } });
    expect(row.version).toBe(1);
    const live = await k8sSecret(row.backendName, row.backendNamespace);
    expect(Buffer.from(live.data!.value!, 'base64').toString()).toBe('theirs');
  });

  it('S1 a viewer without create is FORBIDDEN, and the denial is audited', async () => {
    const viewer = await createHumanPrincipal(stack.runtime.db, 'viewer', 'test');
    await grantBuiltInRole(stack.runtime.db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    const before = await secretRowCount();
    const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'viewer-try', value: 'v' } }, { key: viewer.apiKey }), 'createSecret');
    expect(result).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await secretRowCount()).toBe(before);
    const denial = await stack.runtime.db.auditEvent.findFirst({ where: { actorId: viewer.principalId, outcome: 'DENIED' } });
    expect(denial).toMatchObject({ action: 'secret.create', namespaceId: nsId });
  });
});

describe('S4 reads', () => {
  it('S4 a namespace admin reads metadata and the reference, never the backend locator', async () => {
    const secret = await createSecretOk(stack, nsId, 'locator-check', 'v');
    const user = await createHumanPrincipal(stack.runtime.db, 'reader', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    const read = payload(await stack.gql(SECRET, { id: secret.id }, { key: user.apiKey }), 'secret');
    expect(read).toMatchObject({ id: secret.id, name: 'locator-check', reference: { kind: 'secret', namespaceId: nsId, id: secret.id } });
    expect(read.backendLocator).toBeNull();
    const asAdmin = payload(await stack.gql(SECRET, { id: secret.id }), 'secret');
    expect(asAdmin.backendLocator).toEqual({ name: secret.backendLocator.name, uid: secret.backendLocator.uid });
  });
});

describe('updateSecret', () => {
  it('S6 V1 changes only the value, as a new immutable object: same reference, version + 1, the previous object kept, stored not delivered', async () => {
    const secret = await createSecretOk(stack, nsId, 'rotate-me', 'first');
    const result = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: 'second' } }), 'updateSecret');
    expect(result.__typename).toBe('UpdateSecretSuccess');
    expect(result.secret.version).toBe(2);
    expect(result.secret.reference).toEqual(secret.reference);
    expect(result.delivery).toMatchObject({ stored: true, delivered: false, staleRevisionIds: [] });
    expect(result.delivery.message).toMatch(/^Stored as version 2, not delivered/);
    // The first version's object still holds its bytes; the second is another object.
    const first = await k8sSecret(secret.backendLocator.name, secret.backendLocator.k8sNamespace);
    expect(first.metadata?.uid).toBe(secret.backendLocator.uid);
    expect(Buffer.from(first.data!.value!, 'base64').toString()).toBe('first');
    const row = await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: secret.id } });
    expect(row.backendUid).not.toBe(secret.backendLocator.uid);
    const second = await k8sSecret(row.backendName, row.backendNamespace);
    expect(second.immutable).toBe(true);
    expect(Buffer.from(second.data!.value!, 'base64').toString()).toBe('second');
  });

  it('S6 concurrent updates serialize: both succeed and the version counts both', async () => {
    const secret = await createSecretOk(stack, nsId, 'concurrent', 'v0');
    const [a, b] = await Promise.all([
      stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: 'va' } }),
      stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: 'vb' } }),
    ]);
    const versions = [payload(a, 'updateSecret').secret.version, payload(b, 'updateSecret').secret.version].sort();
    expect(versions).toEqual([2, 3]);
  });

  it('S6 an update whose backend object was replaced by a foreign one is a CONFLICT and writes nothing to it', async () => {
    const secret = await createSecretOk(stack, nsId, 'swapped', 'original');
    const { name, k8sNamespace } = secret.backendLocator;
    await stack.core.deleteNamespacedSecret({ name, namespace: k8sNamespace });
    await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name }, stringData: { value: 'foreign' } } });
    const result = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: 'new' } }), 'updateSecret');
    expect(result).toMatchObject({ __typename: 'ConflictError', code: 'BACKEND_IDENTITY_CHANGED' });
    const live = await k8sSecret(name, k8sNamespace);
    expect(Buffer.from(live.data!.value!, 'base64').toString()).toBe('foreign');
    expect((await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: secret.id } })).version).toBe(1);
  });

  it('S6 an invalid new value is a ValidationError and changes nothing', async () => {
    const secret = await createSecretOk(stack, nsId, 'keep-me', 'kept');
    const result = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: '' } }), 'updateSecret');
    expect(result).toMatchObject({ __typename: 'ValidationError', code: 'EMPTY_VALUE', field: 'value' });
    const live = await k8sSecret(secret.backendLocator.name, secret.backendLocator.k8sNamespace);
    expect(Buffer.from(live.data!.value!, 'base64').toString()).toBe('kept');
  });
});

describe('deleteSecret', () => {
  it('S7 deletes the exact backend object, the metadata and the grants that target it', async () => {
    const secret = await createSecretOk(stack, nsId, 'delete-me', 'v');
    const user = await createHumanPrincipal(stack.runtime.db, 'operator', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId: nsId }, 'test');
    const result = payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }), 'deleteSecret');
    expect(result).toEqual({ __typename: 'DeleteSecretSuccess', deletedSecretId: secret.id });
    await expect(k8sSecret(secret.backendLocator.name, secret.backendLocator.k8sNamespace)).rejects.toMatchObject({ code: 404 });
    expect(await stack.runtime.db.secret.findUnique({ where: { id: secret.id } })).toBeNull();
    expect(await stack.runtime.db.accessBinding.count({ where: { resourceId: secret.id } })).toBe(0);
    expect(await stack.runtime.db.auditEvent.count({ where: { resourceId: secret.id, action: 'secret.delete', outcome: 'SUCCESS' } })).toBe(1);
  });

  it('S7 is refused with SECRET_IN_USE, listing the consumers, while pending work references it', async () => {
    const secret = await createSecretOk(stack, nsId, 'in-use', 'v');
    const workId = newId('workItem');
    await stack.runtime.db.workItem.create({ data: { id: workId, kind: 'test.hold', idempotencyKey: workId, payload: { secretIds: [secret.id] }, nextAttemptAt: new Date(Date.now() + 3600_000) } });
    const result = payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }), 'deleteSecret');
    expect(result).toMatchObject({ __typename: 'SecretInUseError', code: 'SECRET_IN_USE', consumers: { total: 1, hiddenCount: 0, items: [{ kind: 'work', id: workId, name: 'test.hold' }] } });
    await expect(k8sSecret(secret.backendLocator.name, secret.backendLocator.k8sNamespace)).resolves.toBeTruthy();
    expect(await stack.runtime.db.secret.findUnique({ where: { id: secret.id } })).not.toBeNull();
    await stack.runtime.db.workItem.update({ where: { id: workId }, data: { state: 'SUCCEEDED' } });
    expect(payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }), 'deleteSecret').__typename).toBe('DeleteSecretSuccess');
  });

  it('S7 a missing backend object counts as deleted', async () => {
    const secret = await createSecretOk(stack, nsId, 'already-gone', 'v');
    await stack.core.deleteNamespacedSecret({ name: secret.backendLocator.name, namespace: secret.backendLocator.k8sNamespace });
    const result = payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }), 'deleteSecret');
    expect(result.__typename).toBe('DeleteSecretSuccess');
    expect(await stack.runtime.db.secret.findUnique({ where: { id: secret.id } })).toBeNull();
  });

  it('S7 a foreign object under the same name is never deleted', async () => {
    const secret = await createSecretOk(stack, nsId, 'foreign-swap', 'v');
    const { name, k8sNamespace } = secret.backendLocator;
    await stack.core.deleteNamespacedSecret({ name, namespace: k8sNamespace });
    await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name }, stringData: { value: 'not ours' } } });
    const result = payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }), 'deleteSecret');
    expect(result.__typename).toBe('DeleteSecretSuccess');
    const live = await k8sSecret(name, k8sNamespace);
    expect(Buffer.from(live.data!.value!, 'base64').toString()).toBe('not ours');
  });

  it('S7 a viewer cannot delete: FORBIDDEN, and the secret stays', async () => {
    const secret = await createSecretOk(stack, nsId, 'viewer-cannot', 'v');
    const viewer = await createHumanPrincipal(stack.runtime.db, 'viewer2', 'test');
    await grantBuiltInRole(stack.runtime.db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    const result = payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }, { key: viewer.apiKey }), 'deleteSecret');
    expect(result).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    await expect(k8sSecret(secret.backendLocator.name, secret.backendLocator.k8sNamespace)).resolves.toBeTruthy();
  });
});
