import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authCacheOf } from '../services/auth-cache.ts';
import { testDatabaseMode } from '../test/database.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// A request's round trips to the database, statement by statement. Authentication reads
// the key with its principal; the caller's bindings are read once, when the first decision needs
// them; a list then costs what it reads. n-plus-one.test.ts holds the count equal across sizes;
// this holds what the count is, so a statement added to every request (a second read of the
// bindings, a lookup per field) fails here. (Reading the bindings in the key's statement, with
// json_agg, was measured: no faster for a list, and slower for a request that needs no decision.)
// On PostgreSQL a process keeps the key and the bindings it read (services/auth-cache.ts), so a
// repeated request reads only what it lists; a cold one (the cache emptied by a change) reads all.
// namespace(id)'s row is kept the same way.

let stack: TestStack;
let statements: string[] = [];
let nsId: string;

beforeAll(async () => {
  // An API key's lastUsedAt is written at most once a minute (authenticate.ts): not counted.
  stack = await startTestStack({ onQuery: (sql) => void (/^UPDATE "public"\."ApiKey"/.test(sql) || statements.push(sql)) });
  nsId = await createReadyNamespace(stack, 'round-trips');
  for (const name of ['one', 'two', 'three']) await createSecretOk(stack, nsId, name, 'v');
  await stack.runtime.worker.stop();
});
afterAll(() => stack?.close());

/** The table each statement of one request reads (its FROM outside any parenthesis), in order. */
async function tablesRead(query: string, variables: Record<string, unknown>): Promise<string[]> {
  statements = [];
  const result = await stack.gql(query, variables);
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return statements.map((statement) => {
    let outer = statement;
    while (/\([^()]*\)/.test(outer)) outer = outer.replace(/\([^()]*\)/g, '');
    return /FROM "public"\."(\w+)"/.exec(outer)?.[1] ?? statement.slice(0, 40);
  });
}

describe('P3 statements per request', () => {
  it.each([
    // [what, query, cold, warm]: warm is what a repeated request reads with the cache on (the key,
    // the bindings and namespace(id)'s row are kept; a page of namespaces is still read).
    ['viewer', '{ viewer { id } }', ['ApiKey'], []],
    ['a namespace', 'query($ns: ID!) { namespace(id: $ns) { id name } }', ['ApiKey', 'Namespace', 'AccessBinding'], []],
    ['a page of secrets', 'query($ns: ID!) { namespace(id: $ns) { secrets(first: 20) { edges { node { id name version } } } } }', ['ApiKey', 'Namespace', 'AccessBinding', 'Secret'], ['Secret']],
    ['a page of namespaces', '{ namespaces(first: 20) { edges { node { id name } } } }', ['ApiKey', 'AccessBinding', 'Namespace'], ['Namespace']],
    ['a page of audit events', '{ auditEvents(first: 20) { edges { node { id action } } } }', ['ApiKey', 'AccessBinding', 'AuditEvent'], ['AuditEvent']],
  ])('P3 %s costs one statement to authenticate, one for the caller\'s bindings when a decision needs them, and one per thing it reads; A2 a repeated one, with the cache, only what it reads', async (_name, query, cold, warm) => {
    const cache = authCacheOf(stack.runtime.db);
    expect(cache?.on ?? false).toBe(testDatabaseMode() === 'postgres');
    cache?.clear();
    expect(await tablesRead(query, { ns: nsId })).toEqual(cold);
    expect(await tablesRead(query, { ns: nsId })).toEqual(cache?.on ? warm : cold);
  });
});

describe('P3 a page reads the columns its fields need', () => {
  let secretId: string;
  beforeAll(async () => {
    const secrets = await stack.gql('query($ns: ID!) { namespace(id: $ns) { secrets(first: 1) { edges { node { id } } } } }', { ns: nsId });
    secretId = secrets.body.data!.namespace.secrets.edges[0].node.id;
    const created = await stack.gql('mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename } }', {
      input: { namespaceId: nsId, name: 'reads', values: { channels: { telegram: { enabled: true } } }, secretBindings: [{ envName: 'BOT_TOKEN', source: { id: secretId } }] },
    });
    expect(created.body.data?.createConfiguration.__typename).toBe('CreateConfigurationSuccess');
  });

  // Each case: the node's selection, and whether the page's statement may read values, bindings.
  it.each([
    ['names only', 'id name generation', false, false],
    ['values', 'id values', true, false],
    ['bindings', 'secretBindings { envName }', false, true],
    ['both, under an alias', 'v: values b: secretBindings { envName }', true, true],
    ['both, through fragments', '... on Configuration { ...Parts }', true, true],
  ])('P3 configurations, %s: values and bindings are read only when asked for, and answered when they are', async (_what, selection, values, bindings) => {
    statements = [];
    const fragment = selection.includes('...Parts') ? ' fragment Parts on Configuration { values secretBindings { envName } }' : '';
    const query = `query($ns: ID!) { namespace(id: $ns) { configurations(first: 5) { edges { node { ${selection} } } } } }${fragment}`;
    const result = await stack.gql(query, { ns: nsId });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const page = statements.find((s) => /FROM "public"\."Configuration" c/.test(s))!;
    expect(page).toBeDefined();
    expect(/c\."values"|c\.\*/.test(page)).toBe(values);
    expect(page.includes('ConfigurationSecretBinding')).toBe(bindings);
    const node = result.body.data!.namespace.configurations.edges[0].node;
    if (values) expect(node.values ?? node.v).toEqual({ channels: { telegram: { enabled: true } } });
    if (bindings) expect(node.secretBindings ?? node.b).toEqual([{ envName: 'BOT_TOKEN' }]);
  });
});

describe('P3 a page of agents reads what it shows of their configurations in its own statement', () => {
  beforeAll(async () => {
    const secret = (await createSecretOk(stack, nsId, 'agent-page-token', 'v')).id;
    const configuration = payload(
      await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'agent-page', values: { channels: { telegram: { enabled: true } } }, secretBindings: [binding('BOT_TOKEN', secret)] } }),
      'createConfiguration',
    ).configuration.id;
    payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: nsId, name: 'agent-page', configurationId: configuration } }), 'createAgent');
  });

  // Each case: the node's selection, and which of Configuration, its bindings, their secrets the page's statement joins.
  it.each([
    ['names only', 'id name', [false, false, false]],
    ['the configuration', 'configuration { id name }', [true, false, false]],
    ['its values', 'configuration { values }', [true, false, false]],
    ['its bindings', 'configuration { secretBindings { envName } }', [true, true, false]],
    ['their secrets', 'configuration { secretBindings { envName secret { id name } } }', [true, true, true]],
    ['their secrets, through a fragment and an alias', '...F', [true, true, true]],
  ])('P3 agents with %s: one statement reads the page and what it shows', async (_what, selection, [configuration, bindings, secrets]) => {
    const fragment = selection === '...F' ? ' fragment F on Agent { c: configuration { secretBindings { s: secret { name } } } }' : '';
    statements = [];
    const result = await stack.gql(`query($ns: ID!) { namespace(id: $ns) { agents(first: 5) { edges { node { ${selection} } } } } }${fragment}`, { ns: nsId });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const reading = statements.filter((s) => /"public"\."(Agent|Configuration|ConfigurationSecretBinding|Secret)"/.test(s));
    expect(reading).toHaveLength(1);
    expect(reading[0]).toContain('"public"."Agent"');
    expect(reading[0]!.includes('"public"."Configuration"')).toBe(configuration);
    expect(reading[0]!.includes('"public"."ConfigurationSecretBinding"')).toBe(bindings);
    expect(reading[0]!.includes('"public"."Secret"')).toBe(secrets);
    const node = result.body.data!.namespace.agents.edges[0].node;
    if (secrets) expect(JSON.stringify(node)).toContain('agent-page-token');
  });
});

describe('P3 an agents page reads the secret columns its selection needs', () => {
  it.each([
    ['id name', ['name'], ['version', 'backendUid']],
    ['version updatedAt', ['version', 'updatedAt'], ['name', 'backendUid']],
    // A field with no entry in secret.ts SECRET_FIELD_COLUMNS reads the whole row.
    ['name backendLocator { uid }', ['name', 'version', 'backendUid'], []],
  ])('P3 secret { %s }', async (selection, read, unread) => {
    statements = [];
    const result = await stack.gql(`query($ns: ID!) { namespace(id: $ns) { agents(first: 5) { edges { node { configuration { secretBindings { secret { ${selection} } } } } } } } }`, { ns: nsId });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const page = statements.find((s) => s.includes('"public"."Agent"'))!;
    for (const column of ['id', 'namespaceId', ...read]) expect(page).toContain(`s."${column}"`);
    for (const column of unread) expect(page).not.toContain(`s."${column}"`);
  });
});
