import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstRequestsScript, type FirstRequest, type FirstRequests, type VariableSpec } from '../lib/first-requests';
import { graphql, GRAPHQL_HEADERS } from '../lib/graphql';
import { PAGE_REQUESTS } from '../lib/page-requests';

// The inline script as the browser runs it: its text, in a context that has nothing of this module
// (so a reference to anything outside startFirstRequests fails here), with a recording fetch.

type Sent = { url: string; init: RequestInit };

function runScript(requests: readonly FirstRequest[], href: string, clock = { now: 1_000 }) {
  const sent: Sent[] = [];
  const location = { href, search: new URL(href).search };
  const window: Record<string, unknown> = {
    location,
    fetch: (url: string, init: RequestInit) => {
      sent.push({ url, init });
      return Promise.resolve(new Response(JSON.stringify({ data: { n: sent.length } })));
    },
  };
  const context = vm.createContext({ window, URLSearchParams, Date: { now: () => clock.now } });
  vm.runInContext(firstRequestsScript(requests, { ...GRAPHQL_HEADERS }), context);
  return { sent, location, clock, first: window.__occFirstRequests as FirstRequests };
}

/** What the spec says, computed the obvious way (the oracle for the script's own reading). */
function expected(requests: readonly FirstRequest[], params: URLSearchParams) {
  const read = (name: string) => params.get(name)?.trim() || undefined;
  const value = (spec: VariableSpec): unknown => {
    if (spec === null || typeof spec !== 'object') return spec;
    if ('$param' in spec) {
      const v = read(spec.$param);
      return v !== undefined ? v : spec.absent === 'omit' ? undefined : null;
    }
    if ('$flag' in spec) {
      const v = read(spec.$flag);
      return v === '1' ? true : v === '0' ? false : undefined;
    }
    const object: Record<string, string> = {};
    for (const name of spec.$params) if (read(name) !== undefined) object[name] = read(name)!;
    return object;
  };
  return requests
    .filter((r) => (r.requires ?? []).every((n) => read(n) !== undefined) && !(r.unless ?? []).some((n) => read(n) !== undefined))
    .map((r) => ({ query: r.query, variables: Object.fromEntries(Object.entries(r.variables ?? {}).map(([k, s]) => [k, value(s)])) }));
}

/** The same object with its keys in reverse order, all the way down: the same request to GraphQL. */
function reversed(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.keys(value).reverse().map((k) => [k, reversed((value as Record<string, unknown>)[k])]));
}

// Every parameter a page reads, each absent, empty, blank, or set (to a value that needs trimming
// or encoding), in generated combinations.
const PARAMS = ['namespace', 'id', 'stale', 'status', 'agent', 'phase', 'outcome', 'namespaceId', 'actorId', 'from'];
const VALUES = [undefined, '', '  ', '1', '0', ' 0 ', ' ns_a b ', 'FAILURE', 'x&y=<z>'];

function* addresses(count: number): Generator<string> {
  let seed = 7;
  const next = () => (seed = (seed * 48_271) % 2_147_483_647);
  for (let i = 0; i < count; i++) {
    const params = new URLSearchParams();
    for (const name of PARAMS) {
      const v = VALUES[next() % VALUES.length];
      if (v !== undefined) params.set(name, v);
    }
    yield `https://console.test/page?${params}`;
  }
}

describe('a page’s first requests, started by its inline script', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('starts, for every page and generated address, exactly the requests its list describes, with the headers and body graphql() sends', () => {
    for (const [page, requests] of Object.entries(PAGE_REQUESTS)) {
      for (const href of addresses(60)) {
        const { sent, first } = runScript(requests, href);
        const want = expected(requests, new URL(href).searchParams);
        expect(sent.map((s) => JSON.parse(String(s.init.body))), `${page} ${href}`).toEqual(want);
        for (const s of sent) {
          expect(s.url).toBe('/graphql');
          expect(s.init).toMatchObject({ method: 'POST', credentials: 'same-origin', headers: GRAPHQL_HEADERS });
        }
        expect(first.started).toHaveLength(want.length);
      }
    }
  });

  it('hands each started request to the first identical ask, whatever the order of its variables, and only once', async () => {
    for (const href of addresses(40)) {
      const { first } = runScript(PAGE_REQUESTS.access, href);
      const want = expected(PAGE_REQUESTS.access, new URL(href).searchParams);
      for (const request of want) {
        const taken = first.take(request.query, reversed(request.variables));
        expect(taken, request.query.slice(0, 40)).toBeDefined();
        expect(first.take(request.query, request.variables)).toBeUndefined();
      }
      expect(first.untaken()).toEqual([]);
    }
  });

  it('hands nothing for a different ask: another variable, null where the request left one out, another document', () => {
    const request: FirstRequest = { query: 'query A { a }', variables: { id: { $param: 'namespace' }, stale: { $flag: 'stale' }, n: 20 } };
    const { first } = runScript([request], 'https://console.test/secrets?namespace=ns_1');
    expect(first.take('query A { a }', { id: 'ns_2', n: 20 })).toBeUndefined();
    expect(first.take('query A { a }', { id: 'ns_1', n: 20, stale: null })).toBeUndefined();
    expect(first.take('query B { a }', { id: 'ns_1', n: 20 })).toBeUndefined();
    expect(first.take('query A { a }', { id: 'ns_1', n: 20, stale: undefined })).toBeDefined();
  });

  it('hands nothing once the address has changed or the answer is 30 s old, and forgets what it held', () => {
    const request: FirstRequest = { query: 'query A { a }' };
    const moved = runScript([request], 'https://console.test/namespaces');
    moved.location.href = 'https://console.test/users';
    expect(moved.first.take('query A { a }', {})).toBeUndefined();
    moved.location.href = 'https://console.test/namespaces';
    expect(moved.first.take('query A { a }', {})).toBeUndefined();

    const late = runScript([request], 'https://console.test/namespaces');
    late.clock.now += 30_001;
    expect(late.first.take('query A { a }', {})).toBeUndefined();
    expect(late.first.untaken()).toEqual([]);
    const onTime = runScript([request], 'https://console.test/namespaces');
    onTime.clock.now += 29_000;
    expect(onTime.first.take('query A { a }', {})).toBeDefined();
  });

  it('cannot close its own <script> element, whatever a document or a header holds', () => {
    const script = firstRequestsScript([{ query: 'query A { a } # </script><script>alert(1)</script> <!--' }], { x: '</script>' });
    expect(script).not.toMatch(/<\/script|<!--/i);
    const { first } = runScript([{ query: 'query A { a } # </script>' }], 'https://console.test/');
    expect(first.take('query A { a } # </script>', {})).toBeDefined();
  });

  it('graphql() answers from the started request, and sends its own when that one failed on the network', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ data: { own: true } })));
    vi.stubGlobal('fetch', fetch);
    const started = Promise.resolve(new Response(JSON.stringify({ data: { started: true } })));
    const take = vi.fn(() => started);
    vi.stubGlobal('window', { __occFirstRequests: { take, started: [], untaken: () => [] } });
    await expect(graphql('query A { a }' as never, { id: 'x' })).resolves.toEqual({ started: true });
    expect(take).toHaveBeenCalledWith('query A { a }', { id: 'x' });
    expect(fetch).not.toHaveBeenCalled();

    take.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(graphql('query A { a }' as never, { id: 'x' })).resolves.toEqual({ own: true });
    expect(fetch).toHaveBeenCalledTimes(1);

    take.mockImplementation(() => undefined as never);
    await expect(graphql('query A { a }' as never, { id: 'x' })).resolves.toEqual({ own: true });
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
