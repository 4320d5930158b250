// The console's only way to reach GraphQL: a same-origin POST that carries the session cookie.
// Documents stay plain strings on the wire and in the bundle (no parser shipped to the browser);
// their result and variable types are inferred by gql.tada from the document text and the
// introspection of the committed SDL (lib/graphql-env.d.ts, `npm run gql:generate`), so a field
// the schema no longer has fails the console's typecheck.
import type { $tada, DocumentDecoration, initGraphQLTada, ResultOf, VariablesOf } from 'gql.tada';
import type { FirstRequestsScope } from './first-requests';
import type { introspection } from './graphql-env';

export type { ResultOf, VariablesOf };

type Tada = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown };
  // Fragments only share selections here: a spread's fields land in the result as if written inline.
  disableMasking: true;
}>;
/** Type-level only (nothing is emitted): gql.tada's document function, whose return type types ours. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- read by `typeof tada<…>` below, which the rule does not count
declare const tada: Tada;

/** A document as sent: its text, typed with its result and variables. */
export type TypedDocument<TResult, TVariables> = string & DocumentDecoration<TResult, TVariables>;

/** gql.tada's document type minus the parsed AST, which this runtime never builds. */
type AsString<Document> = string & Omit<Document, 'kind' | 'definitions' | 'loc'>;
/** What gql.tada takes as a fragment: a document decorated with its fragment definition (any variables). */
type Fragment = string & DocumentDecoration<unknown> & { [K in $tada.definition]?: { fragment: string; on: string; masked: false } };

/** The texts each document is made of (its own, then its fragments'), so nested fragments are sent once. */
const parts = new Map<string, readonly string[]>();

/**
 * A GraphQL document, typed from its text: pass the fragments it spreads, as gql.tada's `graphql()`
 * takes them. The text must be a literal (no interpolation): `gql-tada check` refuses anything else.
 */
export function gql<const In extends string, const Fragments extends readonly Fragment[] = []>(
  source: In,
  fragments?: Fragments,
  // gql.tada's first overload serves its optional turbo cache, whose key constraint a generic `In`
  // cannot meet (TS2344); the second one, which infers the document from its text, is the type.
  // @ts-expect-error TS2344 on the cache overload only
): AsString<ReturnType<typeof tada<In, Fragments>>> {
  const all = [...new Set<string>([source, ...(fragments ?? []).flatMap((fragment) => parts.get(fragment) ?? [fragment])])];
  const text = all.join('\n');
  parts.set(text, all);
  return text as never;
}

// Were the suppression above to hide more than that overload (gql.tada's signature changed), every
// document would type as `never` and most checks would pass vacuously: this probe fails instead.
type Assert<T extends true> = T;
type Probe = ResultOf<ReturnType<typeof gql<'query Probe { __typename }'>>>;
type _ProbeIsTyped = Assert<[Probe] extends [{ __typename: 'Query' }] ? ([{ __typename: 'Query' }] extends [Probe] ? true : false) : false>;

/** The session is missing or expired: the caller should send the user to /sign-in. */
export class UnauthenticatedError extends Error {
  readonly code = 'UNAUTHENTICATED';
  constructor(message = 'You are not signed in.') {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

/** Anything else that kept GraphQL from answering with data (network, HTTP, resolver error). */
export class GraphQLRequestError extends Error {
  readonly code: string | undefined;
  readonly status: number;
  /** Seconds to wait before asking again, when the server said (429 with Retry-After, P7). */
  readonly retryAfter: number | undefined;
  constructor(message: string, status: number, code?: string, retryAfter?: number) {
    super(message);
    this.name = 'GraphQLRequestError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

function retryAfterOf(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after') ?? NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

type GraphQLResponse<TResult> = {
  data?: TResult | null;
  errors?: { message: string; extensions?: { code?: unknown } }[];
};

/** What every request of the console sends, the page's first requests included (lib/first-requests.ts). */
export const GRAPHQL_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/graphql-response+json, application/json',
};

export async function graphql<TResult, TVariables>(
  document: TypedDocument<TResult, TVariables>,
  variables: TVariables,
  signal?: AbortSignal,
): Promise<TResult> {
  const send = () =>
    fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: GRAPHQL_HEADERS,
      body: JSON.stringify({ query: document, variables }),
      signal,
    });
  // The same request if the page's HTML started it (lib/first-requests.ts), once; sent again if
  // that one failed on the network, as if it had never been started.
  const started = typeof window === 'undefined' ? undefined : (window as FirstRequestsScope).__occFirstRequests?.take(document, variables);
  const response = await (started?.catch(send) ?? send());

  let body: GraphQLResponse<TResult> | undefined;
  try {
    body = (await response.json()) as GraphQLResponse<TResult>;
  } catch {
    body = undefined;
  }

  const first = body?.errors?.[0];
  if (first?.extensions?.code === 'UNAUTHENTICATED' || (!body && response.status === 401)) {
    throw new UnauthenticatedError(first?.message);
  }
  if (first) {
    const code = typeof first.extensions?.code === 'string' ? first.extensions.code : undefined;
    throw new GraphQLRequestError(first.message, response.status, code, response.status === 429 ? retryAfterOf(response) : undefined);
  }
  if (!body?.data) {
    throw new GraphQLRequestError(`GraphQL answered HTTP ${response.status} without data.`, response.status);
  }
  return body.data;
}
