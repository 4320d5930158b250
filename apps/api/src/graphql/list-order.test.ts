import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { createReadyNamespace, createSecretOk } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// order: NEWEST_FIRST on the lists people create in (namespaces, and a namespace's secrets,
// configurations and agents): the same rows as oldest first, reversed, page by page in both
// directions, for every kind of reader (all of it, a namespace administrator, single grants).
// NAME_A_TO_Z and NAME_Z_TO_A the same way, against the database's own name order; rows are
// created out of name order, so name order is not creation order by chance.

let stack: TestStack;
const ns: string[] = [];
const readers: Record<string, string | undefined> = {};

// Each list: the table it reads, and where its connection stands in a query.
const atRoot = (connection: string) => connection;
const inNamespace = (connection: string) => `namespace(id: $ns) { ${connection} }`;
const LISTS = {
  namespaces: { field: 'namespaces', table: 'Namespace', wrap: atRoot, node: 'id' },
  secrets: { field: 'secrets', table: 'Secret', wrap: inNamespace, node: 'id' },
  configurations: { field: 'configurations', table: 'Configuration', wrap: inNamespace, node: 'id' },
  agents: { field: 'agents', table: 'Agent', wrap: inNamespace, node: 'id' },
  'agents with configuration and bindings': { field: 'agents', table: 'Agent', wrap: inNamespace, node: 'id configuration { id secretBindings { envName secret { id } } }' },
} as const;

type ListName = keyof typeof LISTS;
type Order = 'OLDEST_FIRST' | 'NEWEST_FIRST' | 'NAME_A_TO_Z' | 'NAME_Z_TO_A';
/** Created in this order: not the order of their names. */
const LETTERS = ['d', 'a', 'e', 'c', 'b'];

async function walk(list: ListName, key: string | undefined, order: Order, direction: 'forward' | 'backward'): Promise<{ ids: string[]; total: number }> {
  const spec = LISTS[list];
  const scoped = spec.wrap === inNamespace;
  const args = direction === 'forward' ? 'first: 2, after: $cursor, order: $order' : 'last: 2, before: $cursor, order: $order';
  const connection = `${spec.field}(${args}) { totalCount edges { node { ${spec.node} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`;
  const document = `query(${scoped ? '$ns: ID!, ' : ''}$cursor: String, $order: ListOrder) { ${spec.wrap(connection)} }`;
  const ids: string[] = [];
  let cursor: string | null = null;
  let total = -1;
  for (let guard = 0; guard < 100; guard++) {
    const res = await stack.gql(document, { ...(scoped ? { ns: ns[0] } : {}), cursor, order }, { key });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const data = res.body.data!;
    const conn = scoped ? data.namespace[spec.field] : data[spec.field];
    total = conn.totalCount;
    const pageIds = conn.edges.map((e: { node: { id: string } }) => e.node.id);
    if (direction === 'forward') ids.push(...pageIds);
    else ids.unshift(...pageIds);
    const more = direction === 'forward' ? conn.pageInfo.hasNextPage : conn.pageInfo.hasPreviousPage;
    if (!more) return { ids, total };
    cursor = direction === 'forward' ? conn.pageInfo.endCursor : conn.pageInfo.startCursor;
  }
  throw new Error('more than 100 pages');
}

beforeAll(async () => {
  stack = await startTestStack({ worker: true });
  for (let i = 0; i < 4; i++) ns.push(await createReadyNamespace(stack, `order-${LETTERS[i]}`));
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const secrets: string[] = [];
  for (let i = 0; i < 5; i++) secrets.push((await createSecretOk(stack, ns[0]!, `s-${LETTERS[i]}`, `v-${i}`)).id);
  const configurations: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await stack.gql(`mutation($i: CreateConfigurationInput!) { createConfiguration(input: $i) { __typename ... on CreateConfigurationSuccess { configuration { id } } } }`, {
      i: { namespaceId: ns[0], name: `c-${LETTERS[i]}`, values: {}, secretBindings: i % 2 ? [{ envName: 'TOKEN', source: { id: secrets[i] } }] : [] },
    });
    configurations.push(res.body.data!.createConfiguration.configuration.id);
  }
  const agents: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await stack.gql(`mutation($i: CreateAgentInput!) { createAgent(input: $i) { ... on CreateAgentSuccess { agent { id } } } }`, {
      i: { namespaceId: ns[0], name: `a-${LETTERS[i]}`, ...(i % 2 ? { configurationId: configurations[i] } : {}) },
    });
    agents.push(res.body.data!.createAgent.agent.id);
  }
  const nsAdmin = await createHumanPrincipal(stack.runtime.db, 'order-ns-admin', boot);
  for (const n of [ns[0]!, ns[2]!]) await grantBuiltInRole(stack.runtime.db, nsAdmin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: n }, boot);
  const granted = await createHumanPrincipal(stack.runtime.db, 'order-granted', boot);
  const grants: Array<[string, string]> = [['namespace', ns[0]!], ['secret', secrets[1]!], ['secret', secrets[3]!], ['configuration', configurations[0]!], ['configuration', configurations[3]!], ['agent', agents[1]!], ['agent', agents[4]!]];
  for (const [resourceKind, resourceId] of grants) {
    await grantBuiltInRole(stack.runtime.db, granted.principalId, 'namespace-viewer', { kind: 'resource', resourceKind, resourceId, namespaceId: ns[0]! }, boot);
  }
  readers['an installation administrator'] = undefined;
  readers['a namespace administrator of two namespaces'] = nsAdmin.apiKey;
  readers['a reader of single resources'] = granted.apiKey;
}, 180_000);
afterAll(() => stack?.close());

describe('list order', () => {
  const cases = (Object.keys(LISTS) as ListName[]).flatMap((list) =>
    ['an installation administrator', 'a namespace administrator of two namespaces', 'a reader of single resources'].map((reader) => [list, reader] as const),
  );
  it.each(cases)('%s, read by %s: newest first is oldest first reversed, paged forward and backward, with the same count', async (list, reader) => {
    const key = readers[reader];
    const oldest = await walk(list, key, 'OLDEST_FIRST', 'forward');
    const newest = await walk(list, key, 'NEWEST_FIRST', 'forward');
    const newestBackward = await walk(list, key, 'NEWEST_FIRST', 'backward');
    expect(newest.ids).toEqual([...oldest.ids].reverse());
    expect(newestBackward.ids).toEqual(newest.ids);
    expect(newest.total).toBe(oldest.total);
    expect(newest.total).toBe(newest.ids.length);
    // Not vacuous: every reader sees rows of every list here (the grant reader its one namespace
    // and two of each kind in it).
    if (reader !== 'a reader of single resources') expect(oldest.ids.length).toBeGreaterThanOrEqual(2);
    else expect(oldest.ids).toHaveLength(list === 'namespaces' ? 1 : 2);
    // Creation order really is what oldest first follows (ids are random, so this is not id order).
    const created = await stack.runtime.db.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id FROM "public"."${LISTS[list].table}" WHERE id = ANY($1::text[]) ORDER BY "createdAt", id`,
      oldest.ids,
    );
    expect(oldest.ids).toEqual(created.map((r) => r.id));
  });

  it.each(cases)('%s, read by %s: by name A to Z is the database’s name order, Z to A its reverse, paged forward and backward, with the same count', async (list, reader) => {
    const key = readers[reader];
    const oldest = await walk(list, key, 'OLDEST_FIRST', 'forward');
    const az = await walk(list, key, 'NAME_A_TO_Z', 'forward');
    expect(await walk(list, key, 'NAME_A_TO_Z', 'backward')).toEqual(az);
    const za = await walk(list, key, 'NAME_Z_TO_A', 'forward');
    expect(await walk(list, key, 'NAME_Z_TO_A', 'backward')).toEqual(za);
    expect(za.ids).toEqual([...az.ids].reverse());
    expect(az.total).toBe(oldest.total);
    expect([...az.ids].sort()).toEqual([...oldest.ids].sort());
    const named = await stack.runtime.db.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id FROM "public"."${LISTS[list].table}" WHERE id = ANY($1::text[]) ORDER BY name, id`,
      oldest.ids,
    );
    expect(az.ids).toEqual(named.map((r) => r.id));
    // Not vacuous: where a reader sees more than one row, name order is not creation order here.
    if (az.ids.length > 2) expect(az.ids).not.toEqual(oldest.ids);
  });

  it('P4 a cursor is a place in one order: another order refuses it as BAD_USER_INPUT naming the argument, and the same order takes it', async () => {
    const page = (order: Order, after: string | null) =>
      stack.gql(`query($ns: ID!, $order: ListOrder, $after: String) { namespace(id: $ns) { secrets(first: 2, after: $after, order: $order) { edges { node { id } } pageInfo { endCursor } } } }`, { ns: ns[0], order, after });
    const orders: Order[] = ['OLDEST_FIRST', 'NEWEST_FIRST', 'NAME_A_TO_Z', 'NAME_Z_TO_A'];
    const byName = (o: Order) => o.startsWith('NAME_');
    for (const from of orders) {
      const cursor: string = (await page(from, null)).body.data!.namespace.secrets.pageInfo.endCursor;
      for (const to of orders) {
        const res = await page(to, cursor);
        if (byName(from) === byName(to)) expect(res.body.errors, `${from} → ${to}`).toBeUndefined();
        else expect(res.body.errors?.[0]?.extensions, `${from} → ${to}`).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
      }
    }
  });

  it('the default is oldest first, as before the argument existed', async () => {
    const res = await stack.gql(`{ namespaces(first: 100) { edges { node { id } } } }`);
    const ids = res.body.data!.namespaces.edges.map((e: { node: { id: string } }) => e.node.id);
    expect(ids).toEqual((await walk('namespaces', undefined, 'OLDEST_FIRST', 'forward')).ids);
  });

  it('an order that does not exist is refused by the schema', async () => {
    const res = await stack.gql(`{ namespaces(first: 2, order: SIDEWAYS) { edges { node { id } } } }`);
    expect(res.body.errors?.[0]?.message).toMatch(/order.*ListOrder/);
    expect(res.body.data ?? null).toBeNull();
  });
});
