import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';

// search(text:) finds by name across namespaces, secrets, configurations, agents and users, and
// only what the reader may read (P6: a name the reader may not read is never found, and whether
// it exists is not told). The oracle is the product's own read path: an object is readable by a
// reader exactly when node(id:) answers it to them, and a user when the users list shows it. Every
// reader × generated text × kinds filter × page size is compared with that oracle, order included.

let stack: TestStack;
type Kind = 'namespace' | 'secret' | 'configuration' | 'agent' | 'user';
interface Obj {
  kind: Kind;
  id: string;
  name: string;
  namespaceId: string | null;
}
const objects: Obj[] = [];
type Reader = 'admin' | 'viewerOfA' | 'grantedInB' | 'outsider';
const keys = {} as Record<Reader, string | undefined>;
const READERS: Reader[] = ['admin', 'viewerOfA', 'grantedInB', 'outsider'];
/** Per reader, the ids node(id:) answers them (users: those the users list shows them). */
const readable = {} as Record<Reader, Set<string>>;

beforeAll(async () => {
  stack = await startTestStack();
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  // Names that share parts, so a text matches several kinds, places and readers at once.
  for (const nsName of ['search-alpha', 'search-beta']) {
    const ns = await createReadyNamespace(stack, nsName);
    objects.push({ kind: 'namespace', id: ns, name: nsName, namespaceId: null });
    for (const name of ['telegram-token', 'token', 'openai-key', `${nsName}-key`]) {
      objects.push({ kind: 'secret', id: (await createSecretOk(stack, ns, name, 'canary-search-value')).id, name, namespaceId: ns });
    }
    for (const name of ['bot-config', 'token-config']) {
      const c = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: ns, name, values: {} } }), 'createConfiguration');
      objects.push({ kind: 'configuration', id: c.configuration.id, name, namespaceId: ns });
    }
    for (const name of ['telegram-bot', 'alpha']) {
      const a = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: ns, name } }), 'createAgent');
      objects.push({ kind: 'agent', id: a.agent.id, name, namespaceId: ns });
    }
  }
  const [a, b] = objects.filter((o) => o.kind === 'namespace').map((o) => o.id) as [string, string];
  const inB = (kind: Kind, name: string) => objects.find((o) => o.kind === kind && o.namespaceId === b && o.name === name)!;
  const person = async (name: string, grants: Array<[string, Parameters<typeof grantBuiltInRole>[3]]>) => {
    const p = await createHumanPrincipal(db, name, boot);
    for (const [role, scope] of grants) await grantBuiltInRole(db, p.principalId, role, scope, boot);
    objects.push({ kind: 'user', id: p.principalId, name, namespaceId: null });
    return p.apiKey;
  };
  keys.admin = undefined;
  keys.viewerOfA = await person('Search Viewer Alpha', [['namespace-viewer', { kind: 'namespace', namespaceId: a }]]);
  // Single objects of B, not B itself: hits whose namespace they may not read.
  keys.grantedInB = await person('search granted TOKEN', [
    ['namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: inB('secret', 'token').id, namespaceId: b }],
    ['namespace-viewer', { kind: 'resource', resourceKind: 'agent', resourceId: inB('agent', 'telegram-bot').id, namespaceId: b }],
  ]);
  keys.outsider = await person('Outsider', []);
  // The oracle, from the product's other read paths.
  for (const reader of READERS) {
    const seen = new Set<string>();
    for (const o of objects.filter((x) => x.kind !== 'user')) {
      const answer = await stack.gql('query($id: ID!) { node(id: $id) { id } }', { id: o.id }, { key: keys[reader] });
      if (answer.body.data?.node) seen.add(o.id);
    }
    const users = await stack.gql('{ users(first: 100) { edges { node { id } } } }', {}, { key: keys[reader] });
    for (const e of users.body.data?.users?.edges ?? []) seen.add(e.node.id);
    readable[reader] = seen;
  }
  // The oracle tells the readers apart (else the matrix below proves little).
  expect(new Set(READERS.map((r) => readable[r].size)).size).toBe(READERS.length);
}, 180_000);
afterAll(() => stack?.close());

const SEARCH = `query($text: String!, $kinds: [SearchKind!], $first: Int) {
  search(text: $text, kinds: $kinds, first: $first) { kind id name match namespaceId namespace { id name } } }`;

function expected(reader: Reader, text: string, kinds: Kind[] | null, first: number) {
  const needle = text.trim().toLowerCase();
  const rank = (name: string) => (name.toLowerCase() === needle ? 0 : name.toLowerCase().startsWith(needle) ? 1 : 2);
  const byCodePoint = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return objects
    .filter((o) => readable[reader].has(o.id) && (!kinds || kinds.includes(o.kind)) && o.name.toLowerCase().includes(needle))
    .map((o) => ({ ...o, rank: rank(o.name) }))
    .sort((x, y) => x.rank - y.rank || byCodePoint(x.name, y.name) || byCodePoint(x.kind, y.kind) || byCodePoint(x.id, y.id))
    .slice(0, first)
    .map((o) => ({
      kind: o.kind.toUpperCase(),
      id: o.id,
      name: o.name,
      match: ['EXACT', 'PREFIX', 'CONTAINS'][o.rank],
      namespaceId: o.namespaceId,
      // The holding namespace only where the reader may read it (P6).
      namespace: o.namespaceId && readable[reader].has(o.namespaceId) ? { id: o.namespaceId, name: objects.find((n) => n.id === o.namespaceId)!.name } : null,
    }));
}

/** Texts from the names themselves (every substring of a sample, in other cases), and ones that match nothing or would be LIKE patterns. */
function texts(): string[] {
  const out = new Set<string>(['%', '_', 'o_e', '%token', 'zzz', 'search-', ' token ', 'SEARCH', 'a']);
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (const o of objects) {
    for (let i = 0; i < 3; i++) {
      const from = random(o.name.length);
      const piece = o.name.slice(from, from + 1 + random(6));
      out.add(random(3) === 0 ? piece.toUpperCase() : piece);
    }
    out.add(o.name);
  }
  return [...out];
}

describe('search', () => {
  it('P6 every reader finds exactly the names they may read that hold the text (case ignored, no pattern characters), whole names first, then prefixes, then the rest, by name; for generated texts, kinds and page sizes', async () => {
    const kindsChoices: Array<Kind[] | null> = [null, ['secret'], ['agent', 'configuration'], ['user', 'namespace']];
    let compared = 0;
    let nonEmpty = 0;
    for (const reader of READERS) {
      for (const [i, text] of texts().entries()) {
        const kinds = kindsChoices[i % kindsChoices.length]!;
        const first = [20, 3, 1, 50][i % 4]!;
        const answer = await stack.gql(SEARCH, { text, kinds: kinds?.map((k) => k.toUpperCase()) ?? null, first }, { key: keys[reader] });
        expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
        expect(answer.body.data!.search, `${reader} "${text}" ${kinds?.join(',') ?? 'all'} first ${first}`).toEqual(expected(reader, text, kinds, first));
        compared++;
        if (answer.body.data!.search.length > 0) nonEmpty++;
      }
    }
    // The matrix found things for most texts, not an empty answer compared with an empty oracle.
    expect(compared).toBeGreaterThan(150);
    expect(nonEmpty).toBeGreaterThan(compared / 3);
  });

  it('P6 a name the reader may not read is not found, however exactly it is typed, and the answer is the same as for a name that does not exist', async () => {
    const hiddenFromViewer = objects.filter((o) => o.kind !== 'user' && !readable.viewerOfA.has(o.id));
    expect(hiddenFromViewer.length).toBeGreaterThan(5);
    for (const o of hiddenFromViewer) {
      const answer = await stack.gql(SEARCH, { text: o.name, kinds: [o.kind.toUpperCase()], first: 50 }, { key: keys.viewerOfA });
      expect(answer.body.data!.search.map((h: { id: string }) => h.id)).not.toContain(o.id);
    }
    const none = await stack.gql(SEARCH, { text: 'no-such-name-anywhere' }, { key: keys.outsider });
    const hidden = await stack.gql(SEARCH, { text: 'telegram-token' }, { key: keys.outsider });
    expect(hidden.body).toEqual(none.body);
  });

  it('P4 a blank or too long text, a NUL or a lone surrogate and a page size out of 1–50 are refused naming the argument; nobody signed in is refused', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ text: '' }, 'text'],
      [{ text: '   ' }, 'text'],
      [{ text: 'a'.repeat(254) }, 'text'],
      [{ text: 'tok\u0000en' }, 'text'],
      [{ text: 'tok\uD800en' }, 'text'],
      [{ text: 'token', first: 0 }, 'first'],
      [{ text: 'token', first: 51 }, 'first'],
      [{ text: 'token', first: -1 }, 'first'],
    ];
    for (const [variables, argument] of cases) {
      const answer = await stack.gql(SEARCH, variables);
      expect(answer.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ code: 'BAD_USER_INPUT', argument });
      expect(answer.body.data ?? null).toBeNull();
    }
    const anonymous = await stack.gql(SEARCH, { text: 'token' }, { key: null });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
