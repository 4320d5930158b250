import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { CREATE_CONFIGURATION, UPDATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// A configuration's generation history. C5 (updates carry the expected generation; a
// stale one is a CONFLICT) decides which updates are accepted; the history holds exactly those,
// newest first, each with the values and binding references it was accepted with. DESIGN.md has
// no rule of its own for the history: C5 is the closest, D4's "freezes the normalized references"
// is the closest for what a snapshot holds, S3/P1 for the canary and P6 for who may read it.

let stack: TestStack;
let nsId: string;
let s1: string;
let s2: string;
let editorKey: string;
let editorId: string;
let bootId: string;
const canary = `CANARY-${randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  stack = await startTestStack();
  bootId = stack.runtime.installation.bootstrapPrincipalId;
  nsId = await createReadyNamespace(stack, 'gen-team');
  s1 = (await createSecretOk(stack, nsId, 'gen-token-1', canary)).id;
  s2 = (await createSecretOk(stack, nsId, 'gen-token-2', 'v2')).id;
  // An editor who may operate s1 only: binding s2 is refused (C4).
  const editor = await createHumanPrincipal(stack.runtime.db, 'gen-editor', bootId);
  editorKey = editor.apiKey;
  editorId = editor.principalId;
  await grantBuiltInRole(stack.runtime.db, editorId, 'namespace-editor', { kind: 'namespace', namespaceId: nsId }, bootId);
  await grantBuiltInRole(stack.runtime.db, editorId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: s1, namespaceId: nsId }, bootId);
}, 60_000);
afterAll(() => stack?.close());

const HISTORY = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) { configuration(id: $id) { id generation generations(first: $first, after: $after, last: $last, before: $before) {
  totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { generation values createdAt createdBy { id name } secretBindings { envName source { id } delivery { type } secret { id name version } } } }
} } }`;

type Binding = { envName: string; secretId: string };
interface Accepted {
  generation: number;
  values: Record<string, unknown>;
  bindings: Binding[];
  by: string;
}

/** Every generation of a configuration, newest first, read a page of `size` at a time. */
async function readHistory(id: string, size: number, key?: string): Promise<Array<Record<string, any>>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const nodes = [];
  let after: string | null = null;
  for (;;) {
    const result = await stack.gql(HISTORY, { id, first: size, after }, { key });
    expect(result.body.errors).toBeUndefined();
    const connection = result.body.data!.configuration.generations;
    nodes.push(...connection.edges.map((e: { node: unknown }) => e.node));
    if (!connection.pageInfo.hasNextPage) return nodes;
    after = connection.pageInfo.endCursor;
  }
}

function expectHistory(nodes: Array<Record<string, any>>, accepted: Accepted[]) { // eslint-disable-line @typescript-eslint/no-explicit-any
  const newestFirst = [...accepted].reverse();
  expect(
    nodes.map((n) => ({ generation: n.generation, values: n.values, bindings: n.secretBindings.map((b: { envName: string; source: { id: string } }) => ({ envName: b.envName, secretId: b.source.id })), by: n.createdBy.id })),
  ).toEqual(newestFirst.map((a) => ({ ...a, bindings: [...a.bindings].sort((x, y) => (x.envName < y.envName ? -1 : 1)) })));
}

type Step =
  | { kind: 'update'; by: 'boot' | 'editor'; values: Record<string, unknown> | null; bindings: Binding[] | null }
  | { kind: 'stale'; values: Record<string, unknown> }
  | { kind: 'invalid' }
  | { kind: 'concurrent'; count: number; values: Record<string, unknown> };

const valuesArb = fc.record({ agents: fc.record({ model: fc.constantFrom('a', 'b', 'c'), turns: fc.integer({ min: 0, max: 9 }) }) });
const bindingsArb = fc.uniqueArray(
  fc.record({ envName: fc.constantFrom('TELEGRAM_BOT_TOKEN', 'SLACK_BOT_TOKEN', 'MY_TOKEN'), secretId: fc.constantFrom('s1', 's2') }),
  { selector: (b) => b.envName, maxLength: 3 },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('update' as const), by: fc.constantFrom('boot' as const, 'editor' as const), values: fc.option(valuesArb, { nil: null }), bindings: fc.option(bindingsArb, { nil: null }) }),
  fc.record({ kind: fc.constant('stale' as const), values: valuesArb }),
  fc.record({ kind: fc.constant('invalid' as const) }),
  fc.record({ kind: fc.constant('concurrent' as const), count: fc.integer({ min: 2, max: 4 }), values: valuesArb }),
);

let run = 0;

describe('C5 the generation history holds exactly the accepted generations', () => {
  it('C5 after generated sequences of updates (refused, invalid, stale and concurrent stale ones included), the history equals the accepted generations, newest first, with their values and binding references, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 3 }), async (steps, pageSize) => {
        const secretId = (b: Binding) => (b.secretId === 's1' ? s1 : b.secretId === 's2' ? s2 : b.secretId);
        const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: `gen-${run++}`, values: { start: true }, secretBindings: [binding('MY_TOKEN', s1)] } }), 'createConfiguration');
        expect(created.__typename).toBe('CreateConfigurationSuccess');
        const id: string = created.configuration.id;
        const accepted: Accepted[] = [{ generation: 1, values: { start: true }, bindings: [{ envName: 'MY_TOKEN', secretId: s1 }], by: bootId }];
        const current = () => accepted.at(-1)!;
        for (const step of steps) {
          if (step.kind === 'update') {
            const bindings = step.bindings?.map((b) => ({ envName: b.envName, secretId: secretId(b) })) ?? null;
            const input = { id, expectedGeneration: current().generation, ...(step.values ? { values: step.values } : {}), ...(bindings ? { secretBindings: bindings.map((b) => binding(b.envName, b.secretId)) } : {}) };
            const result = payload(await stack.gql(UPDATE_CONFIGURATION, { input }, { key: step.by === 'editor' ? editorKey : undefined }), 'updateConfiguration');
            const resulting = bindings ?? current().bindings;
            // C4: the editor may operate s1 only, retained bindings included.
            const allowed = step.by === 'boot' || resulting.every((b) => b.secretId === s1);
            expect(result.__typename, JSON.stringify(result)).toBe(allowed ? 'UpdateConfigurationSuccess' : 'ForbiddenError');
            if (allowed) accepted.push({ generation: current().generation + 1, values: step.values ?? current().values, bindings: resulting, by: step.by === 'editor' ? editorId : bootId });
          } else if (step.kind === 'stale') {
            const result = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: current().generation - 1, values: step.values } }), 'updateConfiguration');
            expect(result).toMatchObject({ __typename: 'ConflictError', code: 'STALE_GENERATION' });
          } else if (step.kind === 'invalid') {
            const result = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: current().generation, values: { channels: { telegram: { botToken: canary } } } } }), 'updateConfiguration');
            expect(result).toMatchObject({ __typename: 'ValidationError', code: 'LITERAL_CREDENTIAL' });
          } else {
            // Several callers who all read the same generation: one wins, the rest are stale.
            const results = await Promise.all(
              Array.from({ length: step.count }, (_, i) =>
                stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: current().generation, values: { ...step.values, writer: i } } }).then((r) => payload(r, 'updateConfiguration')),
              ),
            );
            const winners = results.flatMap((r, i) => (r.__typename === 'UpdateConfigurationSuccess' ? [i] : []));
            expect(winners).toHaveLength(1);
            for (const r of results) if (r.__typename !== 'UpdateConfigurationSuccess') expect(r).toMatchObject({ __typename: 'ConflictError', code: 'STALE_GENERATION' });
            accepted.push({ generation: current().generation + 1, values: { ...step.values, writer: winners[0] }, bindings: current().bindings, by: bootId });
          }
        }
        const nodes = await readHistory(id, pageSize);
        expectHistory(nodes, accepted);
        expect(await stack.runtime.db.configurationGeneration.count({ where: { configurationId: id } })).toBe(accepted.length);
        const cfg = (await stack.gql(HISTORY, { id, first: 1 })).body.data!.configuration;
        expect(cfg.generation).toBe(current().generation);
        expect(cfg.generations.totalCount).toBe(accepted.length);
      }),
      { numRuns: 12 },
    );
  }, 240_000);

  it('C5 paging backward (last, before) gives the same generations as forward, and a cursor from elsewhere is refused naming the argument', async () => {
    const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gen-paging', values: { n: 1 } } }), 'createConfiguration');
    const id: string = created.configuration.id;
    for (let g = 1; g < 5; g++) expect(payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: g, values: { n: g + 1 } } }), 'updateConfiguration').__typename).toBe('UpdateConfigurationSuccess');
    const forward = (await readHistory(id, 2)).map((n) => n.generation);
    expect(forward).toEqual([5, 4, 3, 2, 1]);
    const lastTwo = (await stack.gql(HISTORY, { id, last: 2 })).body.data!.configuration.generations;
    expect(lastTwo.edges.map((e: { node: { generation: number } }) => e.node.generation)).toEqual([2, 1]);
    expect(lastTwo.pageInfo.hasPreviousPage).toBe(true);
    const earlier = (await stack.gql(HISTORY, { id, last: 2, before: lastTwo.pageInfo.startCursor })).body.data!.configuration.generations;
    expect(earlier.edges.map((e: { node: { generation: number } }) => e.node.generation)).toEqual([4, 3]);
    const foreign = (await stack.gql(`{ namespaces(first: 1) { edges { cursor } } }`)).body.data!.namespaces.edges[0].cursor;
    const refused = await stack.gql(HISTORY, { id, first: 2, after: foreign });
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
  });

  it('C5 a refused create writes no generation; deleting a configuration deletes its history', async () => {
    const before = await stack.runtime.db.configurationGeneration.count();
    const refused = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gen-refused', values: {}, secretBindings: [binding('MY_TOKEN', s2)] } }, { key: editorKey }), 'createConfiguration');
    expect(refused.__typename).toBe('ForbiddenError');
    expect(await stack.runtime.db.configurationGeneration.count()).toBe(before);
    const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gen-deleted', values: {} } }), 'createConfiguration');
    const id: string = created.configuration.id;
    await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: 1, values: { a: 1 } } });
    expect(await stack.runtime.db.configurationGeneration.count({ where: { configurationId: id } })).toBe(2);
    const deleted = await stack.gql(`mutation($i: DeleteConfigurationInput!) { deleteConfiguration(input: $i) { __typename } }`, { i: { id } });
    expect(deleted.body.data!.deleteConfiguration.__typename).toBe('DeleteConfigurationSuccess');
    expect(await stack.runtime.db.configurationGeneration.count({ where: { configurationId: id } })).toBe(0);
  });
});

describe('P6 who may read the history', () => {
  it('P6 a caller who cannot read the configuration gets nothing: the configuration is null, as an unknown one', async () => {
    const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gen-private', values: {} } }), 'createConfiguration');
    const stranger = await createHumanPrincipal(stack.runtime.db, 'gen-stranger', bootId);
    const other = await createReadyNamespace(stack, 'gen-elsewhere');
    await grantBuiltInRole(stack.runtime.db, stranger.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: other }, bootId);
    const result = await stack.gql(HISTORY, { id: created.configuration.id, first: 5 }, { key: stranger.apiKey });
    expect(result.body).toEqual({ data: { configuration: null } });
    const viaNode = await stack.gql(`query($id: ID!) { node(id: $id) { ... on Configuration { generations { totalCount } } } }`, { id: created.configuration.id }, { key: stranger.apiKey });
    expect(viaNode.body).toEqual({ data: { node: null } });
  });

  it('P6 D4 a caller who may read the configuration but not a bound secret sees the binding as a reference, its secret null, as on Configuration.secretBindings', async () => {
    const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gen-shared', values: {}, secretBindings: [binding('MY_TOKEN', s1)] } }), 'createConfiguration');
    const id: string = created.configuration.id;
    await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: 1, secretBindings: [binding('MY_TOKEN', s1), binding('SLACK_BOT_TOKEN', s2)] } });
    const reader = await createHumanPrincipal(stack.runtime.db, 'gen-reader', bootId);
    await grantBuiltInRole(stack.runtime.db, reader.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'configuration', resourceId: id, namespaceId: nsId }, bootId);
    await grantBuiltInRole(stack.runtime.db, reader.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: s2, namespaceId: nsId }, bootId);
    const nodes = await readHistory(id, 5, reader.apiKey);
    expect(nodes.map((n) => n.generation)).toEqual([2, 1]);
    expect(nodes[0]!.secretBindings).toEqual([
      { envName: 'MY_TOKEN', source: { id: s1 }, delivery: { type: 'env' }, secret: null },
      { envName: 'SLACK_BOT_TOKEN', source: { id: s2 }, delivery: { type: 'env' }, secret: { id: s2, name: 'gen-token-2', version: 1 } },
    ]);
    expect(nodes[1]!.secretBindings).toEqual([{ envName: 'MY_TOKEN', source: { id: s1 }, delivery: { type: 'env' }, secret: null }]);
    // The same reader sees the same on the configuration itself.
    const live = (await stack.gql(`query($id: ID!) { configuration(id: $id) { secretBindings { envName secret { id } } } }`, { id }, { key: reader.apiKey })).body.data!.configuration;
    expect(live.secretBindings).toEqual([{ envName: 'MY_TOKEN', secret: null }, { envName: 'SLACK_BOT_TOKEN', secret: { id: s2 } }]);
  });
});

describe('S3 P1 no secret value in the history', () => {
  it('S3 P1 a canary secret value bound across generations (and offered as a literal, refused) reaches no history row, no other row and no response', async () => {
    const created = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'gen-canary', values: { a: 1 }, secretBindings: [binding('MY_TOKEN', s1)] } }), 'createConfiguration');
    const id: string = created.configuration.id;
    await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: 1, values: { a: 2 }, secretBindings: [binding('TELEGRAM_BOT_TOKEN', s1)] } });
    const literal = payload(await stack.gql(UPDATE_CONFIGURATION, { input: { id, expectedGeneration: 2, values: { channels: { telegram: { botToken: canary } } } } }), 'updateConfiguration');
    expect(literal.__typename).toBe('ValidationError');
    const nodes = await readHistory(id, 5);
    expect(nodes.map((n) => n.generation)).toEqual([2, 1]);
    const rows = await stack.runtime.db.configurationGeneration.findMany({ where: { configurationId: id } });
    expect(rows).toHaveLength(2);
    expect(findCanary(rows.map((r) => JSON.stringify(r)), canary)).toEqual([]);
    expect(findCanary(await dumpDatabase(stack.databaseUrl), canary)).toEqual([]);
    expect(findCanary(stack.responses, canary)).toEqual([]);
    expect(findCanary(stack.logs, canary)).toEqual([]);
  });
});
