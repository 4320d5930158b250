import fc from 'fast-check';
import { getNamedType, isObjectType, isScalarType } from 'graphql';
import { schema } from './schema/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { createReadyNamespace, createSecretOk } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// Lists are keyset pages in SQL, in creation order, with access applied in the query,
// so a page holds `first` readable rows and a cursor survives rows added around it.

let stack: TestStack;
let nsId: string;
const names: string[] = [];

const SECRETS = `query($ns: ID!, $first: Int, $after: String, $last: Int, $before: String, $namePrefix: String, $used: Boolean) {
  namespace(id: $ns) { secrets(first: $first, after: $after, last: $last, before: $before, namePrefix: $namePrefix, used: $used) {
    totalCount edges { cursor node { name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

type Page = { totalCount: number; edges: Array<{ cursor: string; node: { name: string } }>; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } };

async function secrets(variables: Record<string, unknown>, key?: string): Promise<Page> {
  const res = await stack.gql(SECRETS, { ns: nsId, ...variables }, { key });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data!.namespace.secrets as Page;
}

beforeAll(async () => {
  stack = await startTestStack({ worker: true });
  nsId = await createReadyNamespace(stack, 'paging');
  for (let i = 0; i < 23; i++) {
    const name = `s${String(i).padStart(2, '0')}`;
    await createSecretOk(stack, nsId, name, `value-${i}`);
    names.push(name);
  }
  for (const name of ['a_b', 'axb']) {
    await createSecretOk(stack, nsId, name, 'v');
    names.push(name);
  }
}, 120_000);
afterAll(() => stack?.close());

describe('cursor pagination in SQL', () => {
  it('walking forward or backward with any page size visits every secret once, in creation order, with exact page flags', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.boolean(), async (size, backward) => {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 40; pages++) {
          const page = await secrets(backward ? { last: size, before: cursor } : { first: size, after: cursor });
          const batch = page.edges.map((e) => e.node.name);
          if (backward) seen.unshift(...batch);
          else seen.push(...batch);
          expect(page.totalCount).toBe(names.length);
          const more = backward ? page.pageInfo.hasPreviousPage : page.pageInfo.hasNextPage;
          expect(batch.length).toBe(more ? size : batch.length);
          if (!more) break;
          cursor = backward ? page.pageInfo.startCursor : page.pageInfo.endCursor;
        }
        expect(seen).toEqual(names);
      }),
      { numRuns: 6 },
    );
  });

  it('a cursor stays valid when rows are added before and after it', async () => {
    const first = await secrets({ first: 5 });
    await createSecretOk(stack, nsId, 'late-1', 'v');
    names.push('late-1');
    const next = await secrets({ first: 5, after: first.pageInfo.endCursor });
    expect(next.edges.map((e) => e.node.name)).toEqual(names.slice(5, 10));
    expect(next.pageInfo.hasPreviousPage).toBe(true);
  });

  it('A2 P6 access is applied in the query: a page holds `first` rows the caller may read, and totalCount counts only those', async () => {
    const user = await createHumanPrincipal(stack.runtime.db, 'pager', stack.runtime.installation.bootstrapPrincipalId);
    const rows = await stack.runtime.db.secret.findMany({ where: { namespaceId: nsId, name: { in: ['s03', 's11', 's19'] } } });
    // Read on three exact secrets (and on the namespace itself, to reach its list), nothing more.
    for (const row of rows) {
      await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: row.id, namespaceId: nsId }, stack.runtime.installation.bootstrapPrincipalId);
    }
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'namespace', resourceId: nsId, namespaceId: nsId }, stack.runtime.installation.bootstrapPrincipalId);
    const page1 = await secrets({ first: 2 }, user.apiKey);
    expect(page1.edges.map((e) => e.node.name)).toEqual(['s03', 's11']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    expect(page1.totalCount).toBe(3);
    const page2 = await secrets({ first: 2, after: page1.pageInfo.endCursor }, user.apiKey);
    expect(page2.edges.map((e) => e.node.name)).toEqual(['s19']);
    expect(page2.pageInfo.hasNextPage).toBe(false);
  });

  it('P4 namePrefix is a literal prefix: LIKE wildcards in it match only themselves', async () => {
    expect((await secrets({ first: 100, namePrefix: 'a_' })).edges.map((e) => e.node.name)).toEqual(['a_b']);
    expect((await secrets({ first: 100, namePrefix: 'a%' })).edges).toEqual([]);
    expect((await secrets({ first: 100, namePrefix: 's1' })).totalCount).toBe(10);
  });

  it('used: true lists the secrets a configuration binds, false the rest', async () => {
    const s05 = (await stack.runtime.db.secret.findFirstOrThrow({ where: { namespaceId: nsId, name: 's05' } })).id;
    const res = await stack.gql(
      `mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename } }`,
      { input: { namespaceId: nsId, name: 'uses-s05', values: {}, secretBindings: [{ envName: 'S05', source: { id: s05 } }] } },
    );
    expect(res.body.data?.createConfiguration.__typename).toBe('CreateConfigurationSuccess');
    expect((await secrets({ first: 100, used: true })).edges.map((e) => e.node.name)).toEqual(['s05']);
    expect((await secrets({ first: 100, used: false })).totalCount).toBe(names.length - 1);
  });

  it.each([
    ['a cursor from nowhere', { first: 2, after: 'bm90LWEtY3Vyc29y' }, 'after'],
    ['a cursor that is not base64url', { first: 2, before: '%%%' }, 'before'],
    ['first over the limit', { first: 101 }, 'first'],
    ['a negative last', { last: -1 }, 'last'],
    ['first and last together', { first: 1, last: 1 }, 'last'],
  ])('P4 %s is BAD_USER_INPUT naming the argument', async (_what, variables, argument) => {
    const res = await stack.gql(SECRETS, { ns: nsId, ...variables });
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
  });

  // Every connection in the schema, reached from the root or through namespace(id): a new
  // connection elsewhere fails here until it is given a route and so a check.
  const ROUTES: Record<string, (field: string, args: string) => string> = {
    Query: (field, args) => `query($v: String) { ${field}(${args}) { totalCount } }`,
    Namespace: (field, args) => `query($ns: ID!, $v: String) { namespace(id: $ns) { ${field}(${args}) { totalCount } } }`,
    Agent: (field, args) => `query($ns: ID!, $v: String) { namespace(id: $ns) { agents(first: 1) { edges { node { ${field}(${args}) { totalCount } } } } } }`,
    Configuration: (field, args) => `query($ns: ID!, $v: String) { namespace(id: $ns) { configurations(first: 1) { edges { node { ${field}(${args}) { totalCount } } } } } }`,
  };
  const connections = Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .filter((type) => !type.name.startsWith('__'))
    .flatMap((type) =>
      Object.values(type.getFields())
        // A connection (its page of edges); search(first:) is a plain list, checked in unstorable-input.test.ts.
        .filter((f) => f.args.some((a) => a.name === 'first') && getNamedType(f.type).name.endsWith('Connection'))
        .map((field) => ({ type: type.name, field })),
    );

  it('every connection of the schema can be reached by the text-argument check below', () => {
    expect(connections.length).toBeGreaterThanOrEqual(5);
    expect(connections.filter((c) => !ROUTES[c.type]).map((c) => `${c.type}.${c.field.name}`)).toEqual([]);
  });

  for (const { type, field } of connections) {
    const textArgs = field.args.filter((a) => isScalarType(getNamedType(a.type)) && getNamedType(a.type).name === 'String' && !['after', 'before'].includes(a.name));
    it(`P4 ${type}.${field.name}: NUL or a lone surrogate in ${textArgs.map((a) => a.name).join(', ') || 'no text argument'} is BAD_USER_INPUT naming it, never internal`, async () => {
      for (const arg of textArgs) {
        for (const hostile of ['x\u0000y', '\ud800']) {
          const res = await stack.gql(ROUTES[type]!(field.name, `first: 1, ${arg.name}: $v`), { ns: nsId, v: hostile });
          expect(res.status).toBeLessThan(500);
          expect(res.body.errors?.[0]?.extensions, `${type}.${field.name}(${arg.name})`).toMatchObject({ code: 'BAD_USER_INPUT', argument: arg.name });
        }
      }
    });
  }
});
