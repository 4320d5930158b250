import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { LIMIT_CODES, LIMITS } from './limits.ts';
import { schema } from './schema/index.ts';
import { validateWithinLimits } from './validation.ts';

// Rule P3: each GraphQL limit is refused before execution with its own code; the documents the
// console sends pass them all; deep documents are typed errors, never a 500.

let stack: TestStack;
// Every statement the stack runs while a refused document is answered (named, so a failure says which).
let statements: string[] = [];
beforeAll(async () => {
  // No periodic resync runs while statements are counted: the instance reconciler's 30 s look at
  // every namespace landed inside a refused request on a loaded machine (a fresh-clone CI run).
  stack = await startTestStack({ worker: false, instanceResyncMs: 3_600_000, selfConfigResyncMs: 3_600_000, onQuery: (sql) => statements.push(sql.slice(0, 200)) });
  await post('{ viewer { id } }'); // the first request opens pool connections and settles startup
});
afterAll(() => stack?.close());

async function post(query: string) {
  const res = await stack.request('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}` },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
}

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');
const nested = (depth: number) => `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`;

const overLimit: Record<keyof typeof LIMITS, string> = {
  tokens: `{ ${repeat(LIMITS.tokens, () => '__typename')} }`,
  depth: `query { namespaces { edges { node { secrets { edges { node { namespace { secrets { edges { node { namespace { secrets { edges { node { id } } } } } } } } } } } } } } }`,
  cost: `query { namespaces(first: 100) { edges { node { id name secrets(first: 100) { edges { node { id name } } } } } } }`,
  aliases: `{ ${repeat(LIMITS.aliases + 1, (i) => `a${i}: viewer { id }`)} }`,
  directives: `{ viewer { ${repeat(LIMITS.directives + 1, () => 'id @include(if: true)')} } }`,
};

describe('P3 GraphQL limits', () => {
  for (const [limit, document] of Object.entries(overLimit)) {
    it(`P3 a document over the ${limit} limit is refused with ${LIMIT_CODES[limit as keyof typeof LIMITS]}, before execution`, async () => {
      statements = [];
      const { status, body } = await post(document);
      expect(status).toBeLessThan(500);
      expect(body.data ?? null).toBeNull();
      expect(body.errors?.map((e) => e.extensions?.code)).toEqual([LIMIT_CODES[limit as keyof typeof LIMITS]]);
      expect(statements).toEqual([]); // refused before the context (and its authentication) was built
    });
  }

  it('P3 5,000 aliases of namespace → secrets → consumers are refused at once, without one SQL statement', async () => {
    const aliases = repeat(5000, (i) => `a${i}: namespace(id: "ns_x") { secrets { edges { node { id consumers { total } } } } }`);
    statements = [];
    const { status, body } = await post(`{ ${aliases} }`);
    expect(status).toBeLessThan(500);
    expect(body.errors?.[0]?.extensions?.code).toBe(LIMIT_CODES.tokens);
    expect(statements).toEqual([]);
    // Within the token limit, the alias limit holds on its own.
    statements = [];
    const fewer = await post(`{ ${repeat(LIMITS.aliases + 1, (i) => `a${i}: namespace(id: "ns_x") { id }`)} }`);
    expect(fewer.body.errors?.map((e) => e.extensions?.code)).toEqual([LIMIT_CODES.aliases]);
    expect(statements).toEqual([]);
  });

  for (const depth of [2_000, 3_000, 5_000, 100_000]) {
    it(`P3 a selection nested ${depth} deep and a list literal nested ${depth} deep are typed errors, never a 500`, async () => {
      for (const document of [nested(depth), `{ node(id: ${'['.repeat(depth)}"x"${']'.repeat(depth)}) { id } }`]) {
        const { status, body } = await post(document);
        expect(status).toBeLessThan(500);
        expect(body.errors?.[0]?.extensions?.code).toBe(LIMIT_CODES.tokens);
      }
    });
  }

  it('P3 P7 every document the console sends passes every limit, with every page at its largest (100)', async () => {
    const dir = fileURLToPath(new URL('../../../console/lib/', import.meta.url));
    const documents: Array<[string, string]> = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const mod = (await import(/* @vite-ignore */ pathToFileURL(dir + file).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) if (typeof value === 'string' && /^\s*(query|mutation)\b/.test(value)) documents.push([name, value]);
    }
    expect(documents.length).toBeGreaterThan(20);
    for (const [name, document] of documents) {
      expect(validateWithinLimits(schema, parse(document), undefined, { first: 100 }).map((e) => e.message), name).toEqual([]);
    }
  });
});
