import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';

// Rules P1 and P4: every error a GraphQL answer carries has `extensions.code`, however broken
// the request; and an id of any shape answers null (as a missing object does, P6) or a coded
// error, never an error without a code.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
});
afterAll(() => stack?.close());

type Answer = { status: number; text: string };

async function send(init: { method?: string; path?: string; contentType?: string | null; body?: string; auth?: boolean; accept?: string }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.contentType !== null) headers['content-type'] = init.contentType ?? 'application/json';
  if (init.auth !== false) headers.authorization = `Bearer ${stack.bootstrapKey}`;
  if (init.accept) headers.accept = init.accept;
  const res = await stack.request(init.path ?? '/graphql', { method: init.method ?? 'POST', headers, body: init.body });
  return { status: res.status, text: await res.text() };
}

function codesOf(answer: Answer): unknown[] {
  const body = JSON.parse(answer.text) as { errors?: Array<{ extensions?: { code?: unknown } }> };
  expect(body.errors?.length, answer.text).toBeGreaterThan(0);
  return body.errors!.map((e) => e.extensions?.code);
}

const json = (value: unknown) => JSON.stringify(value);

const BROKEN: Array<[string, Parameters<typeof send>[0]]> = [
  ['bad JSON body', { body: '{"query": ' }],
  ['JSON null body', { body: 'null' }],
  ['JSON string body', { body: '"{ viewer { id } }"' }],
  ['JSON array body', { body: '[]' }],
  ['empty body', { body: '' }],
  ['wrong content-type', { contentType: 'text/plain', body: json({ query: '{ viewer { id } }' }) }],
  ['form body without a query', { contentType: 'application/x-www-form-urlencoded', body: 'x=1' }],
  ['no content-type', { contentType: null, body: json({ query: '{ viewer { id } }' }) }],
  ['missing query', { body: json({ variables: {} }) }],
  ['query not a string', { body: json({ query: 42 }) }],
  ['variables not an object', { body: json({ query: '{ viewer { id } }', variables: 'x' }) }],
  ['extensions not an object', { body: json({ query: '{ viewer { id } }', extensions: 3 }) }],
  ['unexpected parameter', { body: json({ query: '{ viewer { id } }', somethingElse: 1 }) }],
  ['unknown operationName', { body: json({ query: 'query A { viewer { id } }', operationName: 'B' }) }],
  ['several operations, none named', { body: json({ query: 'query A { viewer { id } } query B { viewer { id } }' }) }],
  ['GET mutation', { method: 'GET', path: `/graphql?query=${encodeURIComponent('mutation { createNamespace(input: { name: "x" }) { __typename } }')}`, body: undefined }],
  ['GET without query', { method: 'GET', path: '/graphql', body: undefined, accept: 'application/json' }],
  ['PUT', { method: 'PUT', body: json({ query: '{ viewer { id } }' }) }],
  ['batched request', { body: json([{ query: '{ viewer { id } }' }, { query: '{ viewer { id } }' }]) }],
  ['syntax error', { body: json({ query: '{ viewer { id }' }) }],
  ['unknown field', { body: json({ query: '{ nothingHere }' }) }],
  ['unknown argument', { body: json({ query: '{ viewer(x: 1) { id } }' }) }],
  ['missing variable', { body: json({ query: 'query($id: ID!) { secret(id: $id) { id } }' }) }],
  ['undeclared variable', { body: json({ query: '{ secret(id: $id) { id } }' }) }],
  ['variable of the wrong type', { body: json({ query: 'query($id: ID!) { secret(id: $id) { id } }', variables: { id: { a: 1 } } }) }],
  ['anonymous mutation', { auth: false, body: json({ query: 'mutation { createNamespace(input: { name: "x" }) { __typename } }' }) }],
  ['anonymous query', { auth: false, body: json({ query: '{ namespaces { edges { node { id } } } }' }) }],
  ['subscription', { body: json({ query: 'subscription { x }' }) }],
  ['cursor that is not one', { body: json({ query: 'query($a: String) { namespaces(after: $a) { edges { node { id } } } }', variables: { a: 'not a cursor\u0000' } }) }],
  ['negative page size', { body: json({ query: '{ namespaces(first: -1) { edges { node { id } } } }' }) }],
  ['fragment cycle', { body: json({ query: '{ viewer { ...A } } fragment A on Principal { ...B } fragment B on Principal { ...A }' }) }],
];

describe('P1 P4 every GraphQL error has a code', () => {
  for (const [label, request] of BROKEN) {
    it(`P4 ${label}: every error carries extensions.code, never a 500`, async () => {
      const answer = await send(request);
      expect(answer.status, answer.text).toBeLessThan(500);
      for (const code of codesOf(answer)) {
        expect(typeof code, answer.text).toBe('string');
        expect(code, answer.text).not.toBe('INTERNAL_SERVER_ERROR'); // each is the client's mistake, and says so
      }
    });
  }
});

const ODD_IDS: Array<[string, string]> = [
  ['empty', ''],
  ['no prefix', 'x'],
  ['no prefix, a UUID', '3f0c1a52-8f9e-4c55-a1f7-5d2b0c7e9a10'],
  ['unknown prefix', 'zz_3f0c1a52-8f9e-4c55-a1f7-5d2b0c7e9a10'],
  ['prototype key as prefix', 'constructor_x'],
  ['prototype key, proto', '__proto___x'],
  ['underscore only', '_'],
  ['valid prefix, garbage', 'sec_garbage'],
  ['valid prefix, upper-case UUID', 'ns_3F0C1A52-8F9E-4C55-A1F7-5D2B0C7E9A10'],
  ['valid prefix, missing id', 'agt_3f0c1a52-8f9e-4c55-a1f7-5d2b0c7e9a10'],
  ['another kind\'s prefix', 'prn_3f0c1a52-8f9e-4c55-a1f7-5d2b0c7e9a10'],
  ['NUL', 'ns_\u0000'],
  ['NUL inside a UUID', 'cfg_3f0c1a52-8f9e-4c55-a1f7-5d2b0c7e\u00009a10'],
  ['lone surrogate', 'sec_\ud800'],
  ['very long', `ns_${'a'.repeat(100_000)}`],
  ['SQL', "ns_' OR 1=1 --"],
];

const FIELDS = ['node', 'namespace', 'secret', 'configuration', 'agent'];

describe('P4 odd ids', () => {
  for (const field of FIELDS) {
    it(`P4 P6 ${field}(id) answers null or a coded error for every odd id`, async () => {
      for (const [label, id] of ODD_IDS) {
        const answer = await send({ body: json({ query: `query($id: ID!) { ${field}(id: $id) { id } }`, variables: { id } }) });
        expect(answer.status, `${label}: ${answer.text}`).toBeLessThan(500);
        const body = JSON.parse(answer.text) as { data?: Record<string, unknown> | null; errors?: Array<{ extensions?: { code?: unknown } }> };
        for (const error of body.errors ?? []) expect(typeof error.extensions?.code, `${label}: ${answer.text}`).toBe('string');
        if (!body.errors) expect(body.data?.[field], label).toBeNull();
        expect(body.errors?.map((e) => e.extensions?.code).filter((c) => c === 'INTERNAL_SERVER_ERROR') ?? [], `${label}: ${answer.text}`).toEqual([]);
      }
    });
  }
});
