import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import {
  CREATE_CONFIGURATION,
  DELETE_SECRET,
  UPDATE_CONFIGURATION,
  binding,
  createReadyNamespace,
  createSecretOk,
  payload,
} from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

let stack: TestStack;
let nsId: string;
let otherNs: string;
let s1: string;
let s2: string;
let foreign: string;

beforeAll(async () => {
  stack = await startTestStack();
  nsId = await createReadyNamespace(stack, 'cfg-team');
  otherNs = await createReadyNamespace(stack, 'cfg-other');
  s1 = (await createSecretOk(stack, nsId, 'telegram-token', 'v1')).id;
  s2 = (await createSecretOk(stack, nsId, 'slack-token', 'v2')).id;
  foreign = (await createSecretOk(stack, otherNs, 'theirs', 'v3')).id;
});
afterAll(() => stack?.close());

const values = { channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_BOT_TOKEN' } } } };

async function create(input: Record<string, unknown>, key?: string) {
  return payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, values, ...input } }, { key }), 'createConfiguration');
}

describe('createConfiguration', () => {
  it('C1 stores bindings with delivery defaulting to env, and the native values as given', async () => {
    const r = await create({ name: 'c1-ok', secretBindings: [binding('TELEGRAM_BOT_TOKEN', s1)] });
    expect(r.__typename).toBe('CreateConfigurationSuccess');
    expect(r.configuration).toMatchObject({ generation: 1, values, secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', source: { kind: 'secret', namespaceId: nsId, id: s1 }, delivery: { type: 'env' } }] });
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['C1 a binding name that breaks the grammar', { secretBindings: [binding('1BAD', 'x')] }, 'INVALID_BINDING_NAME'],
    ['C1 a binding name with a dash', { secretBindings: [binding('MY-VAR', 'x')] }, 'INVALID_BINDING_NAME'],
    ['C1 more than 64 bindings', { secretBindings: Array.from({ length: 65 }, (_, i) => binding(`V${i}`, 'x')) }, 'TOO_MANY_BINDINGS'],
    ['C1 an unknown delivery type fails closed', { secretBindings: [binding('MY_VAR', 'x', { delivery: { type: 'file' } })] }, 'UNSUPPORTED_DELIVERY'],
    ['C1 an unknown source kind fails closed', { secretBindings: [{ envName: 'MY_VAR', source: { kind: 'vault', id: 'x' } }] }, 'UNSUPPORTED_SOURCE'],
    ['C2 PATH is reserved', { secretBindings: [binding('PATH', 'x')] }, 'RESERVED_BINDING_NAME'],
    ['C2 a platform prefix (OPENCLAW_) is reserved', { secretBindings: [binding('OPENCLAW_GATEWAY_TOKEN', 'x')] }, 'RESERVED_BINDING_NAME'],
    ['C2 LD_ is reserved', { secretBindings: [binding('LD_PRELOAD', 'x')] }, 'RESERVED_BINDING_NAME'],
    ['C2 a model-credential name is reserved for harnessAuth', { secretBindings: [binding('OPENAI_API_KEY', 'x')] }, 'RESERVED_BINDING_NAME'],
    ['values with a literal credential', { values: { channels: { telegram: { botToken: '123:abc' } } } }, 'LITERAL_CREDENTIAL'],
    ['values that are not an object', { values: [1, 2] }, 'INVALID_VALUES'],
    ['values over 256 KiB', { values: { blob: 'x'.repeat(256 * 1024) } }, 'VALUES_TOO_LARGE'],
  ];
  for (const [title, input, code] of bad) {
    it(`${title} is a ValidationError and writes nothing`, async () => {
      const before = await stack.runtime.db.configuration.count();
      const r = await create({ name: `bad-${Math.random().toString(36).slice(2, 8)}`, ...input });
      expect(r).toMatchObject({ __typename: 'ValidationError', code });
      expect(await stack.runtime.db.configuration.count()).toBe(before);
    });
  }

  it("C3 another namespace's secret is NOT_FOUND, as is an unknown one", async () => {
    expect(await create({ name: 'c3-foreign', secretBindings: [binding('MY_VAR', foreign)] })).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(await create({ name: 'c3-foreign-2', secretBindings: [{ envName: 'MY_VAR', source: { namespaceId: otherNs, id: foreign } }] })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await create({ name: 'c3-unknown', secretBindings: [binding('MY_VAR', newId('secret'))] })).toMatchObject({ __typename: 'NotFoundError' });
  });

  it('C4 needs operate on every bound secret: an editor without it is FORBIDDEN; with operate on exactly those, allowed', async () => {
    const editor = await createHumanPrincipal(stack.runtime.db, 'cfg-editor', 'test');
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'namespace-editor', { kind: 'namespace', namespaceId: nsId }, 'test');
    const input = { name: 'c4', secretBindings: [binding('A_TOKEN', s1), binding('B_TOKEN', s2)] };
    expect(await create(input, editor.apiKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.' });
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: s1, namespaceId: nsId }, 'test');
    expect(await create(input, editor.apiKey)).toMatchObject({ __typename: 'ForbiddenError' });
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: s2, namespaceId: nsId }, 'test');
    expect((await create(input, editor.apiKey)).__typename).toBe('CreateConfigurationSuccess');
  });
});

describe('updateConfiguration', () => {
  it('C5 carries the expected generation: a stale one is a CONFLICT and changes nothing', async () => {
    const c = (await create({ name: 'c5', secretBindings: [binding('TELEGRAM_BOT_TOKEN', s1)] })).configuration;
    const ok = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: c.id, expectedGeneration: 1, values: { channels: {} } } }), 'updateConfiguration');
    expect(ok.configuration).toMatchObject({ generation: 2, values: { channels: {} } });
    const stale = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: c.id, expectedGeneration: 1, values: { x: 1 } } }), 'updateConfiguration');
    expect(stale).toMatchObject({ __typename: 'ConflictError', code: 'STALE_GENERATION' });
    const row = await stack.runtime.db.configuration.findUniqueOrThrow({ where: { id: c.id } });
    expect(row.generation).toBe(2);
    expect(row.values).toEqual({ channels: {} });
  });

  it('C4 an update that leaves bindings out retains them and still needs operate on them; {} clears', async () => {
    const c = (await create({ name: 'c4-retained', secretBindings: [binding('TELEGRAM_BOT_TOKEN', s1)] })).configuration;
    const editor = await createHumanPrincipal(stack.runtime.db, 'cfg-editor-2', 'test');
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'namespace-editor', { kind: 'namespace', namespaceId: nsId }, 'test');
    const denied = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: c.id, expectedGeneration: 1, values: { v: 2 } } }, { key: editor.apiKey }), 'updateConfiguration');
    expect(denied).toMatchObject({ __typename: 'ForbiddenError' });
    const cleared = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: c.id, expectedGeneration: 1, secretBindings: [] } }, { key: editor.apiKey }), 'updateConfiguration');
    expect(cleared.configuration).toMatchObject({ generation: 2, secretBindings: [] });
    const retained = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id: c.id, expectedGeneration: 2, values: { v: 3 } } }, { key: editor.apiKey }), 'updateConfiguration');
    expect(retained.configuration).toMatchObject({ generation: 3, secretBindings: [] });
  });

  it('S7 a secret bound by a configuration cannot be deleted; the configuration is named as its consumer', async () => {
    const c = (await create({ name: 'binds-s2', secretBindings: [binding('SLACK_TOKEN', s2)] })).configuration;
    const r = payload(await stack.gql(DELETE_SECRET, { input: { id: s2 } }), 'deleteSecret');
    expect(r).toMatchObject({ __typename: 'SecretInUseError', code: 'SECRET_IN_USE' });
    expect(r.consumers.items).toContainEqual({ kind: 'configuration', id: c.id, name: 'binds-s2' });
    expect(await stack.runtime.db.secret.findUnique({ where: { id: s2 } })).not.toBeNull();
  });

  it('S7 consumers the caller may not read are counted, not named', async () => {
    const secret = await createSecretOk(stack, nsId, 'counted', 'v');
    await create({ name: 'hidden-consumer', secretBindings: [binding('HIDDEN_TOKEN', secret.id)] });
    const deleter = await createHumanPrincipal(stack.runtime.db, 'deleter', 'test');
    await grantBuiltInRole(stack.runtime.db, deleter.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId: nsId }, 'test');
    await stack.runtime.db.role.upsert({
      where: { id: 'rol_test-secret-deleter' },
      create: { id: 'rol_test-secret-deleter', name: 'test-secret-deleter', permissions: [{ action: 'delete', resourceKind: 'secret' }, { action: 'read', resourceKind: 'secret' }] },
      update: {},
    });
    await stack.runtime.db.accessBinding.create({ data: { id: newId('accessBinding'), subjectId: deleter.principalId, roleId: 'rol_test-secret-deleter', scopeKind: 'RESOURCE', namespaceId: nsId, resourceKind: 'secret', resourceId: secret.id, createdById: 'test' } });
    const r = payload(await stack.gql(DELETE_SECRET, { input: { id: secret.id } }, { key: deleter.apiKey }), 'deleteSecret');
    expect(r).toMatchObject({ __typename: 'SecretInUseError', consumers: { total: 1, hiddenCount: 1, items: [] } });
  });
});
