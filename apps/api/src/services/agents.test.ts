import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import {
  CREATE_AGENT,
  CREATE_CONFIGURATION,
  DELETE_SECRET,
  UPDATE_AGENT,
  binding,
  createReadyNamespace,
  createSecretOk,
  payload,
} from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';
import { authenticateApiKey } from './authenticate.ts';

let stack: TestStack;
let nsId: string;
let otherNs: string;
let modelKey: string;
let channelSecret: string;
let cfgId: string;

beforeAll(async () => {
  stack = await startTestStack();
  nsId = await createReadyNamespace(stack, 'agents-team');
  otherNs = await createReadyNamespace(stack, 'agents-other');
  modelKey = (await createSecretOk(stack, nsId, 'model-key', 'sk-model')).id;
  channelSecret = (await createSecretOk(stack, nsId, 'channel', 'tok')).id;
  const cfg = payload(
    await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gateway', values: {}, secretBindings: [binding('TELEGRAM_BOT_TOKEN', channelSecret)] } }),
    'createConfiguration',
  );
  cfgId = cfg.configuration.id;
});
afterAll(() => stack?.close());

async function createAgent(input: Record<string, unknown>, key?: string) {
  return payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: nsId, ...input } }, { key }), 'createAgent');
}

describe('createAgent', () => {
  it('A1 creates the Agent with its own service principal and returns it', async () => {
    const r = await createAgent({ name: 'a1', configurationId: cfgId, harnessAuth: { provider: 'openai', source: { id: modelKey } }, selfConfigure: { enabled: true, allowedActions: ['skills'] } });
    expect(r.__typename).toBe('CreateAgentSuccess');
    expect(r.servicePrincipalId).toMatch(/^spn_/);
    expect(r.agent).toMatchObject({
      servicePrincipalId: r.servicePrincipalId,
      servicePrincipal: { id: r.servicePrincipalId, kind: 'SERVICE', name: 'agent:a1' },
      configuration: { id: cfgId },
      harnessAuth: { provider: 'openai', envName: 'OPENAI_API_KEY', source: { id: modelKey } },
      selfConfigure: { enabled: true, allowedActions: ['skills'] },
    });
    // The new principal holds no grants: it must be granted exactly what it consumes.
    expect(await stack.runtime.db.accessBinding.count({ where: { subjectId: r.servicePrincipalId } })).toBe(0);
    const audit = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { resourceId: r.agent.id, action: 'agent.create' } });
    expect(audit.details).toMatchObject({ servicePrincipalId: r.servicePrincipalId });
  });

  it('A1 the provider decides the model-credential env name', async () => {
    const r = await createAgent({ name: 'a1-anthropic', harnessAuth: { provider: 'anthropic', source: { id: modelKey } } });
    expect(r.agent.harnessAuth).toMatchObject({ provider: 'anthropic', envName: 'ANTHROPIC_API_KEY' });
    expect(await createAgent({ name: 'a1-unknown', harnessAuth: { provider: 'nope', source: { id: modelKey } } })).toMatchObject({ __typename: 'ValidationError', code: 'UNKNOWN_PROVIDER' });
  });

  it('A1 selecting a configuration with bindings, or a harnessAuth source, needs operate on each of those secrets', async () => {
    const editor = await createHumanPrincipal(stack.runtime.db, 'agent-editor', 'test');
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'namespace-editor', { kind: 'namespace', namespaceId: nsId }, 'test');
    const before = await stack.runtime.db.agent.count();
    expect(await createAgent({ name: 'a1-cfg', configurationId: cfgId }, editor.apiKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await createAgent({ name: 'a1-harness', harnessAuth: { provider: 'openai', source: { id: modelKey } } }, editor.apiKey)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await stack.runtime.db.agent.count()).toBe(before);
    expect(await stack.runtime.db.principal.count({ where: { name: { in: ['agent:a1-cfg', 'agent:a1-harness'] } } })).toBe(0);
    // Without a selection, the editor's create permission is enough.
    expect((await createAgent({ name: 'a1-bare' }, editor.apiKey)).__typename).toBe('CreateAgentSuccess');
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: channelSecret, namespaceId: nsId }, 'test');
    expect((await createAgent({ name: 'a1-cfg', configurationId: cfgId }, editor.apiKey)).__typename).toBe('CreateAgentSuccess');
  });

  it("A1 another namespace's configuration or harness secret is NOT_FOUND", async () => {
    const theirs = await createSecretOk(stack, otherNs, 'their-model', 'x');
    expect(await createAgent({ name: 'a1-x1', harnessAuth: { provider: 'openai', source: { id: theirs.id } } })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await createAgent({ name: 'a1-x2', harnessAuth: { provider: 'openai', source: { namespaceId: otherNs, id: theirs.id } } })).toMatchObject({ __typename: 'NotFoundError' });
    const otherCfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: otherNs, name: 'theirs', values: {} } }), 'createConfiguration');
    expect(await createAgent({ name: 'a1-x3', configurationId: otherCfg.configuration.id })).toMatchObject({ __typename: 'NotFoundError' });
  });

  it("A1 the agent's service principal is created without an API key; a key issued to it later signs in as that principal and no other", async () => {
    const r = await createAgent({ name: 'a1-nokey' });
    expect(await stack.runtime.db.apiKey.count({ where: { principalId: r.servicePrincipalId } })).toBe(0);
    const issued = payload(
      await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey storedKey { principalId } } } }`, { i: { principalId: r.servicePrincipalId } }),
      'createApiKey',
    );
    expect(issued.storedKey.principalId).toBe(r.servicePrincipalId);
    expect(await stack.runtime.db.apiKey.count({ where: { principalId: r.servicePrincipalId } })).toBe(1);
    expect(await authenticateApiKey(stack.runtime.db, issued.apiKey)).toMatchObject({ principalId: r.servicePrincipalId, kind: 'SERVICE', name: 'agent:a1-nokey' });
    const viewer = await stack.gql('{ viewer { id kind name } }', {}, { key: issued.apiKey });
    expect(viewer.body.data?.viewer).toEqual({ id: r.servicePrincipalId, kind: 'SERVICE', name: 'agent:a1-nokey' });
    // It holds no grants, so signing in gives it nothing: its own namespace is invisible to it.
    expect((await stack.gql('query($id: ID!) { namespace(id: $id) { id } }', { id: nsId }, { key: issued.apiKey })).body.data?.namespace).toBeNull();
  });
});

describe('A3 missing grants', () => {
  const MISSING = `query($id: ID!) { agent(id: $id) { servicePrincipalId missingGrants { subjectId action resourceKind resourceId namespaceId roleId } } }`;

  it("A3 names the Agent's service principal and the exact grant to add, per consumed secret, until granted", async () => {
    const a = (await createAgent({ name: 'a3', configurationId: cfgId, harnessAuth: { provider: 'openai', source: { id: modelKey } } })).agent;
    const read = async () => payload(await stack.gql(MISSING, { id: a.id }), 'agent');
    const before = await read();
    const grant = (secretId: string) => ({ subjectId: a.servicePrincipalId, action: 'operate', resourceKind: 'secret', resourceId: secretId, namespaceId: nsId, roleId: 'rol_secret-operator' });
    expect(before.missingGrants).toEqual(expect.arrayContaining([grant(channelSecret), grant(modelKey)]));
    expect(before.missingGrants).toHaveLength(2);
    await grantBuiltInRole(stack.runtime.db, a.servicePrincipalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: modelKey, namespaceId: nsId }, 'test');
    expect((await read()).missingGrants).toEqual([grant(channelSecret)]);
    // Reading the secret does not imply operating it: a viewer grant changes nothing.
    await grantBuiltInRole(stack.runtime.db, a.servicePrincipalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    expect((await read()).missingGrants).toEqual([grant(channelSecret)]);
  });

  it("A3 a caller's own denial stays bare: no missing grant is named", async () => {
    const editor = await createHumanPrincipal(stack.runtime.db, 'a3-editor', 'test');
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'namespace-editor', { kind: 'namespace', namespaceId: nsId }, 'test');
    const doc = `mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on ForbiddenError { code message missingGrant { subjectId } } } }`;
    const r = payload(await stack.gql(doc, { input: { namespaceId: nsId, name: 'a3-denied', configurationId: cfgId } }, { key: editor.apiKey }), 'createAgent');
    expect(r).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.', missingGrant: null });
  });
});

describe('updateAgent', () => {
  it('A1 applies to the resulting selection, and clearing needs nothing', async () => {
    const a = (await createAgent({ name: 'upd' })).agent;
    const editor = await createHumanPrincipal(stack.runtime.db, 'agent-updater', 'test');
    await grantBuiltInRole(stack.runtime.db, editor.principalId, 'namespace-editor', { kind: 'namespace', namespaceId: nsId }, 'test');
    const denied = payload(await stack.gql(UPDATE_AGENT, { input: { id: a.id, harnessAuth: { provider: 'openai', source: { id: modelKey } } } }, { key: editor.apiKey }), 'updateAgent');
    expect(denied).toMatchObject({ __typename: 'ForbiddenError' });
    const asAdmin = payload(await stack.gql(UPDATE_AGENT, { input: { id: a.id, harnessAuth: { provider: 'openai', source: { id: modelKey } }, configurationId: cfgId } }), 'updateAgent');
    expect(asAdmin.agent).toMatchObject({ configuration: { id: cfgId }, harnessAuth: { envName: 'OPENAI_API_KEY' } });
    // The editor may change selfConfigure only if the retained selection is operable: it is not.
    const retained = payload(await stack.gql(UPDATE_AGENT, { input: { id: a.id, selfConfigure: { enabled: true, allowedActions: ['config'] } } }, { key: editor.apiKey }), 'updateAgent');
    expect(retained).toMatchObject({ __typename: 'ForbiddenError' });
    const cleared = payload(await stack.gql(UPDATE_AGENT, { input: { id: a.id, clearConfiguration: true, clearHarnessAuth: true } }, { key: editor.apiKey }), 'updateAgent');
    expect(cleared.agent).toMatchObject({ configuration: null, harnessAuth: null });
    expect(payload(await stack.gql(UPDATE_AGENT, { input: { id: a.id, selfConfigure: { enabled: true, allowedActions: ['bogus'] } } }), 'updateAgent')).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_SELF_CONFIGURE_ACTION' });
  });

  it('S7 a secret used for harnessAuth cannot be deleted; the agent is named as its consumer', async () => {
    const key = await createSecretOk(stack, nsId, 'harness-only', 'k');
    const a = (await createAgent({ name: 'harness-user', harnessAuth: { provider: 'openai', source: { id: key.id } } })).agent;
    const r = payload(await stack.gql(DELETE_SECRET, { input: { id: key.id } }), 'deleteSecret');
    expect(r).toMatchObject({ __typename: 'SecretInUseError' });
    expect(r.consumers.items).toEqual([{ kind: 'agent', id: a.id, name: 'harness-user' }]);
  });
});
