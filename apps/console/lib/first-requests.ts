// A page's first GraphQL requests, started from its HTML by a small inline script while the page's
// JavaScript is still loading, then handed to the screens' own requests (lib/graphql.ts) when they
// ask the same thing. Without it the requests wait for every script: 4–5 s on a slow link.
//
// A page lists what it asks on load (app/*/page.tsx); the variables that depend on the address are
// described, not computed, so the inline script needs no code of the screens. A description that
// drifts from what a screen sends costs one unused request and nothing else: the screen asks again.
// e2e/tests/first-requests.spec.ts loads every page and fails on any prefetched request unused.

/** A variable taken from the page's address, trimmed; an empty parameter counts as absent. */
export type AddressValue =
  /** The parameter's value; when absent, null, or left out with `absent: 'omit'`. */
  | { readonly $param: string; readonly absent?: 'null' | 'omit' }
  /** `true` when the parameter is `1`, `false` when it is `0`, otherwise the variable is left out. */
  | { readonly $flag: string }
  /** An object of those parameters that are present. */
  | { readonly $params: readonly string[] };

export type VariableSpec = string | number | boolean | null | AddressValue;

export interface FirstRequest {
  readonly query: string;
  readonly variables?: Readonly<Record<string, VariableSpec>>;
  /** Sent only when each of these parameters is present … */
  readonly requires?: readonly string[];
  /** … and none of these (they open another screen on the same page). */
  readonly unless?: readonly string[];
}

/** What the inline script leaves on `window` for lib/graphql.ts. */
export interface FirstRequests {
  /** The response to exactly this request if the page started it and nobody took it yet; once. */
  take(query: string, variables: unknown): Promise<Response> | undefined;
  /** The requests the page started, as their canonical JSON. */
  readonly started: readonly string[];
  /** Those not taken yet: once the page has settled, each is one request wasted. */
  untaken(): string[];
}

export interface FirstRequestsScope {
  location: { href: string; search: string };
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  __occFirstRequests?: FirstRequests;
}

/**
 * The inline script's body. It is serialised with Function.prototype.toString, so it must not refer
 * to anything outside itself (test/first-requests.test.ts runs it in an empty context).
 */
export function startFirstRequests(requests: readonly FirstRequest[], headers: Record<string, string>, scope: FirstRequestsScope): void {
  // Requests that ask the same thing are the same request, whatever the order of their keys;
  // an undefined variable is no variable (as JSON.stringify sends it).
  const canonical = (value: unknown): string =>
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
        : v,
    );
  const params = new URLSearchParams(scope.location.search);
  const read = (name: string): string | undefined => params.get(name)?.trim() || undefined;
  const value = (spec: VariableSpec): unknown => {
    if (spec === null || typeof spec !== 'object') return spec;
    if ('$param' in spec) return read(spec.$param) ?? (spec.absent === 'omit' ? undefined : null);
    if ('$flag' in spec) return read(spec.$flag) === '1' ? true : read(spec.$flag) === '0' ? false : undefined;
    return Object.fromEntries(spec.$params.flatMap((name) => (read(name) === undefined ? [] : [[name, read(name)]])));
  };
  const pending = new Map<string, Promise<Response>>();
  for (const request of requests) {
    if (request.requires?.some((name) => read(name) === undefined)) continue;
    if (request.unless?.some((name) => read(name) !== undefined)) continue;
    const variables = Object.fromEntries(Object.entries(request.variables ?? {}).map(([name, spec]) => [name, value(spec)]));
    const response = scope.fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers,
      body: JSON.stringify({ query: request.query, variables }),
    });
    // Nobody may ever take it (the screen asked something else): its failure is nobody's error.
    response.catch(() => undefined);
    pending.set(canonical({ query: request.query, variables }), response);
  }
  const href = scope.location.href;
  const started = Date.now();
  scope.__occFirstRequests = {
    take(query, variables) {
      // Only for the page it was started for, and while its answer is still fresh: after a
      // navigation, or late, the screen asks for itself.
      if (scope.location.href !== href || Date.now() - started > 30_000) {
        pending.clear();
        return undefined;
      }
      const key = canonical({ query, variables });
      const response = pending.get(key);
      pending.delete(key);
      return response;
    },
    started: [...pending.keys()],
    untaken: () => [...pending.keys()],
  };
}

/** `<script>` text: JSON inside a script element must not close it or open a comment. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The inline script that starts `requests`, sending the headers `graphql()` sends. */
export function firstRequestsScript(requests: readonly FirstRequest[], headers: Record<string, string>): string {
  return `(${startFirstRequests.toString()})(${scriptJson(requests)},${scriptJson(headers)},window);`;
}
