import fc from 'fast-check';
import { buildSchema, execute, parse, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { fieldsAt, selects } from './lookahead.ts';

// selects() against what graphql-js actually resolves: for generated documents (fields, aliases,
// inline and named fragments, nested in any order), `selects(info, path)` must be true whenever
// execution asks the field at that path for a value. Reading too little is the fault that matters:
// a row built without a column it is then asked for.

const schema = buildSchema(`
  type Query { list: Conn }
  type Conn { edges: [Edge] totalCount: Int }
  type Edge { cursor: String node: Item }
  type Item { id: ID name: String values: String bindings: [Binding] }
  type Binding { envName: String }
`);

type Sel = { kind: 'field'; name: string; alias: boolean; children: Sel[] } | { kind: 'inline' | 'named'; children: Sel[] };
const CHILDREN: Record<string, string[]> = {
  list: ['edges', 'totalCount'],
  edges: ['cursor', 'node'],
  node: ['id', 'name', 'values', 'bindings'],
  bindings: ['envName'],
};
const TYPE: Record<string, string> = { list: 'Conn', edges: 'Edge', node: 'Item', bindings: 'Binding' };

function selection(parent: string, depth: number): fc.Arbitrary<Sel> {
  const names = CHILDREN[parent]!;
  const field = fc.tuple(fc.constantFrom(...names), fc.boolean()).chain(([name, alias]) =>
    (CHILDREN[name] && depth < 4 ? fc.array(selection(name, depth + 1), { minLength: 1, maxLength: 3 }) : fc.constant([] as Sel[])).map(
      (children): Sel => ({ kind: 'field', name, alias, children }),
    ),
  );
  if (depth >= 4) return field;
  const fragment = fc.tuple(fc.constantFrom('inline' as const, 'named' as const), fc.array(selection(parent, depth + 1), { minLength: 1, maxLength: 2 })).map(([kind, children]): Sel => ({ kind, children }));
  return fc.oneof({ weight: 3, arbitrary: field }, { weight: 1, arbitrary: fragment });
}

function render(parent: string, sels: Sel[], fragments: string[]): string {
  return sels
    .map((s) => {
      if (s.kind === 'field') {
        const head = s.alias ? `a${fragments.length}_${s.name}: ${s.name}` : s.name;
        return s.children.length ? `${head} { ${render(s.name, s.children, fragments)} }` : CHILDREN[s.name] ? `${head} { __typename }` : head;
      }
      const body = render(parent, s.children, fragments);
      if (s.kind === 'inline') return `... on ${TYPE[parent]} { ${body} }`;
      const name = `F${fragments.length}`;
      fragments.push(`fragment ${name} on ${TYPE[parent]} { ${body} }`);
      return `...${name}`;
    })
    .join(' ');
}

describe('selects and fieldsAt', () => {
  it('selects is true for every path execution reaches, and fieldsAt names exactly the fields it asks a node for, through aliases and fragments, for generated documents', async () => {
    const paths = [['edges', 'node', 'values'], ['edges', 'node', 'bindings'], ['edges', 'node', 'bindings', 'envName'], ['edges', 'cursor'], ['totalCount']];
    await fc.assert(
      fc.asyncProperty(fc.array(selection('list', 1), { minLength: 1, maxLength: 3 }), async (sels) => {
        const fragments: string[] = [];
        const document = `{ list { ${render('list', sels, fragments)} } } ${fragments.join(' ')}`;
        let info: GraphQLResolveInfo | null = null;
        const asked = new Set<string>();
        const at = (path: string) => (value: unknown) => (asked.add(path), value);
        const item = { get id() { asked.add('edges.node.id'); return '1'; }, get name() { asked.add('edges.node.name'); return 'n'; }, get values() { asked.add('edges.node.values'); return 'v'; }, get bindings() { asked.add('edges.node.bindings'); return [{ get envName() { asked.add('edges.node.bindings.envName'); return 'E'; } }]; } };
        const result = await execute({
          schema,
          document: parse(document),
          rootValue: {
            list: (_args: unknown, _ctx: unknown, i: GraphQLResolveInfo) => {
              info = i;
              return { edges: [{ get cursor() { return at('edges.cursor')('c'); }, node: item }], get totalCount() { return at('totalCount')(1); } };
            },
          },
        });
        expect(result.errors).toBeUndefined();
        for (const path of paths) {
          if (asked.has(path.join('.'))) expect(selects(info!, path), `${path.join('.')} in ${document}`).toBe(true);
          else expect(selects(info!, path), `${path.join('.')} not in ${document}`).toBe(false);
        }
        // fieldsAt: exactly the fields of a node that execution asked for (__typename aside).
        const nodeFields = [...asked].filter((p) => /^edges\.node\.\w+$/.test(p)).map((p) => p.split('.')[2]).sort();
        expect([...fieldsAt(info!, ['edges', 'node'])].filter((f) => f !== '__typename').sort(), document).toEqual(nodeFields);
      }),
      { numRuns: 500 },
    );
  });
});
