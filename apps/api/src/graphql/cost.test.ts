import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { Lexer, Source, TokenKind, buildSchema, getOperationAST, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { operationCost, resultCost } from './cost.ts';
import { LIMITS } from './limits.ts';

// Rule P7: cost counts what will run. The same query, its page sizes written as literals, given as
// variables, or left to the variables' defaults, gets the same decision; a refused one is answered
// COST_LIMIT_EXCEEDED before any SQL (the context, and with it authentication, is not built).
// The expected decisions come from the literal form, never from the limit's constants.
// FC_SEED replays a generated run; FC_NUM_RUNS widens it.

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 40;

let stack: TestStack;
let statements = 0;
beforeAll(async () => {
  stack = await startTestStack({ worker: false, onQuery: (sql) => {
    // The request's own SQL only: authentication (its key) and the namespaces page (ordered). The
    // leader's sweeps read Namespace too, unordered, on their own clock (seen on PGlite's run).
    if (/"ApiKey"|"Session"/.test(sql) || (/"Namespace"/.test(sql) && /ORDER BY/i.test(sql))) statements++;
  } });
  await stack.gql('{ viewer { id } }');
});
afterAll(() => stack?.close());

/** A page of a connection, its nodes selecting `id` and the pages below. */
interface Page {
  field: string;
  size: number;
  children: Page[];
}

const CHILDREN: Record<string, string[]> = {
  namespaces: ['secrets', 'configurations', 'agents'],
  configurations: ['generations'],
  agents: ['revisions'],
  secrets: [],
  generations: [],
  revisions: [],
};
const nodeId = (field: string) => (field === 'generations' ? 'generation' : 'id');

const sizeArb = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(1, 20, 50, 100));
function pageArb(field: string): fc.Arbitrary<Page> {
  const below = CHILDREN[field]!;
  const children = below.length ? fc.uniqueArray(fc.constantFrom(...below), { maxLength: below.length }).chain((names) => fc.tuple(...names.map(pageArb))) : fc.constant([]);
  return fc.record({ field: fc.constant(field), size: sizeArb, children: children as fc.Arbitrary<Page[]> });
}
type Form = 'literal' | 'variable' | 'default';

/** The number of tokens the parser counts against P3's limit. */
function tokens(query: string): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}

// Every form must stay inside P3's token limit, or it is refused for its length (TOKEN_LIMIT_EXCEEDED)
// before its cost is looked at; the default form, with a definition per page, is the longest.
const queryArb = fc
  .array(pageArb('namespaces'), { minLength: 1, maxLength: 20 })
  .filter((pages) => tokens(write(pages, 'default').query) <= LIMITS.tokens);

/** The query with every page size written one way; variables for the `variable` form. */
function write(pages: Page[], form: Form): { query: string; variables: Record<string, number> } {
  const definitions: string[] = [];
  const variables: Record<string, number> = {};
  const size = (n: number) => {
    if (form === 'literal') return String(n);
    const name = `p${definitions.length}`;
    definitions.push(form === 'default' ? `$${name}: Int = ${n}` : `$${name}: Int`);
    if (form === 'variable') variables[name] = n;
    return `$${name}`;
  };
  const render = (page: Page): string =>
    `${page.field}(first: ${size(page.size)}) { edges { node { ${nodeId(page.field)} ${page.children.map(render).join(' ')} } } }`;
  const body = pages.map((page, i) => `a${i}: ${render(page)}`).join(' ');
  return { query: `query${definitions.length ? `(${definitions.join(', ')})` : ''} { ${body} }`, variables };
}

/** Until the statements of the request before (reported as they finish) have all been counted. */
async function settle() {
  for (let before = -1; before !== statements; ) {
    before = statements;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function decide(query: string, variables: Record<string, unknown>): Promise<'refused' | 'accepted'> {
  await settle();
  statements = 0;
  const { status, body } = await stack.gql(query, variables);
  const codes = (body.errors ?? []).map((e) => e.extensions?.code);
  if (codes.includes('COST_LIMIT_EXCEEDED')) {
    expect(status).toBeLessThan(500);
    expect(codes).toEqual(['COST_LIMIT_EXCEEDED']);
    expect(body.data ?? null).toBeNull();
    expect(statements).toBe(0); // refused before the context, so before authentication's SQL
    return 'refused';
  }
  expect(codes).toEqual([]);
  return 'accepted';
}

describe('P7 cost counts what will run', () => {
  it('P7 twenty aliases of a page of 100: refused whether 100 is a literal, a variable or a default', async () => {
    const aliases = (first: string) => Array.from({ length: 20 }, (_, i) => `a${i}: namespaces(first: ${first}) { edges { node { id name } } }`).join(' ');
    expect(await decide(`{ ${aliases('100')} }`, {})).toBe('refused');
    expect(await decide(`query($n: Int) { ${aliases('$n')} }`, { n: 100 })).toBe('refused');
    expect(await decide(`query($n: Int = 100) { ${aliases('$n')} }`, {})).toBe('refused');
    // The same documents with a small page pass: the variable's value is what is counted.
    expect(await decide(`query($n: Int) { ${aliases('$n')} }`, { n: 1 })).toBe('accepted');
    expect(await decide(`query($n: Int = 100) { ${aliases('$n')} }`, { n: 1 })).toBe('accepted');
  });

  it('P7 nested pages multiply: each page small enough alone, their product refused in every form', async () => {
    const nested = (a: string, b: string, c: string) =>
      `namespaces(first: ${a}) { edges { node { id agents(first: ${b}) { edges { node { id revisions(first: ${c}) { edges { node { id } } } } } } } } }`;
    expect(await decide(`{ ${nested('1', '1', '100')} }`, {})).toBe('accepted');
    expect(await decide(`{ ${nested('100', '1', '1')} }`, {})).toBe('accepted');
    expect(await decide(`{ ${nested('100', '100', '100')} }`, {})).toBe('refused');
    expect(await decide(`query($a: Int, $b: Int, $c: Int) { ${nested('$a', '$b', '$c')} }`, { a: 100, b: 100, c: 100 })).toBe('refused');
    expect(await decide(`query($a: Int = 100, $b: Int = 100, $c: Int = 100) { ${nested('$a', '$b', '$c')} }`, {})).toBe('refused');
  });

  it('P7 a page left to the connection default costs what `first: 20` costs, and fragments cost what they inline', async () => {
    const inner = (first: string) => `agents${first} { edges { node { id revisions${first} { edges { node { id } } } } } }`;
    const literal = `{ ${Array.from({ length: 8 }, (_, i) => `a${i}: namespaces(first: 20) { edges { node { id ${inner('(first: 20)')} } } }`).join(' ')} }`;
    const omitted = `{ ${Array.from({ length: 8 }, (_, i) => `a${i}: namespaces { edges { node { id ${inner('')} } } }`).join(' ')} }`;
    const fragment = `{ ${Array.from({ length: 8 }, (_, i) => `a${i}: namespaces { edges { node { ...N } } }`).join(' ')} } fragment N on Namespace { id ${inner('')} }`;
    const decision = await decide(literal, {});
    expect(decision).toBe('refused'); // 8 × 20 × 20 × 20 revisions
    expect(await decide(omitted, {})).toBe(decision);
    expect(await decide(fragment, {})).toBe(decision);
  });

  it('P7 generated nestings and aliases: literals, variables and defaults get the same decision', async () => {
    const seen = { refused: 0, accepted: 0 };
    await fc.assert(
      fc.asyncProperty(queryArb, async (pages) => {
        const literal = write(pages, 'literal');
        const expected = await decide(literal.query, literal.variables);
        seen[expected]++;
        const variable = write(pages, 'variable');
        expect(await decide(variable.query, variable.variables)).toBe(expected);
        const byDefault = write(pages, 'default');
        expect(await decide(byDefault.query, byDefault.variables)).toBe(expected);
      }),
      // Unseeded runs of 40 could draw no accepted case at all (a fresh-clone CI run did), and the
      // check below then failed: one small and one large case always come first.
      {
        numRuns: RUNS,
        seed: SEED,
        examples: [
          [[{ field: 'namespaces', size: 1, children: [{ field: 'agents', size: 1, children: [] }] }]],
          [[{ field: 'namespaces', size: 100, children: [{ field: 'agents', size: 100, children: [{ field: 'revisions', size: 100, children: [] }] }] }]],
        ],
      },
    );
    // Both decisions were exercised, so agreement means something.
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.accepted).toBeGreaterThan(0);
  }, 120_000);

  // What a request keeps of its budget (principal-budget.ts) is its answer's cost: never more than
  // it was admitted for, and exactly that when every page came back full (only short pages give back).
  it('P7 generated pages and answers: an answer costs what was asked when its pages are full, less when short, never more', () => {
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    /** An answer to `page` in which every instance of each page holds `held(page)` of its `size` items. */
    const answer = (page: Page, held: Map<Page, number>): unknown => ({
      edges: Array.from({ length: held.get(page)! }, () => ({
        node: Object.fromEntries([[nodeId(page.field), 'x'], ...page.children.map((child) => [child.field, answer(child, held)])]),
      })),
    });
    const pagesOf = (pages: Page[]): Page[] => pages.flatMap((page) => [page, ...pagesOf(page.children)]);
    const cases = queryArb.chain((pages) => {
      const all = pagesOf(pages);
      const full = fc.constant(all.map((page) => page.size));
      const short = fc.tuple(...all.map((page) => fc.oneof(fc.constant(page.size), fc.integer({ min: 0, max: page.size }))));
      return fc.tuple(fc.constant(pages), fc.oneof(full, short));
    });
    let full = 0;
    fc.assert(
      fc.property(cases, ([pages, counts]) => {
        const held = new Map(pagesOf(pages).map((page, i) => [page, counts[i]!]));
        const { query } = write(pages, 'literal');
        const document = parse(query);
        const operation = getOperationAST(document)!;
        const asked = operationCost(schema, document, operation);
        const data = Object.fromEntries(pages.map((page, i) => [`a${i}`, answer(page, held)]));
        const got = resultCost(schema, document, operation, {}, data);
        expect(got).toBeLessThanOrEqual(asked);
        expect(got).toBeGreaterThanOrEqual(2 * pages.length); // each top page's own object, at least
        // Pages that held what they asked for cost what was asked (`first: 0` is priced as a page of 1,
        // and so is a page that held nothing).
        // A top page that held some but fewer than asked gives back at least one item's price.
        if (pages.some((page) => held.get(page)! >= 1 && held.get(page)! < page.size)) expect(got).toBeLessThan(asked);
        if (pagesOf(pages).every((page) => held.get(page) === page.size)) {
          full++;
          expect(got).toBe(asked);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(full).toBeGreaterThan(0); // full answers were among those drawn, not only short ones
  });
});
