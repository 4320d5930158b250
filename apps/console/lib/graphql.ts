// The console's only way to reach GraphQL: a same-origin POST that carries the session cookie.
// Documents are plain strings branded with the result and variable types written beside them,
// so a call site cannot pass the wrong variables or misread the answer.

declare const resultType: unique symbol;
declare const variablesType: unique symbol;

export type TypedDocument<TResult, TVariables> = string & {
  readonly [resultType]?: TResult;
  readonly [variablesType]?: TVariables;
};

export function gql<TResult, TVariables = Record<string, never>>(
  source: string,
): TypedDocument<TResult, TVariables> {
  return source as TypedDocument<TResult, TVariables>;
}

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
  constructor(message: string, status: number, code?: string) {
    super(message);
    this.name = 'GraphQLRequestError';
    this.status = status;
    this.code = code;
  }
}

type GraphQLResponse<TResult> = {
  data?: TResult | null;
  errors?: { message: string; extensions?: { code?: unknown } }[];
};

export async function graphql<TResult, TVariables>(
  document: TypedDocument<TResult, TVariables>,
  variables: TVariables,
  signal?: AbortSignal,
): Promise<TResult> {
  const response = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query: document, variables }),
    signal,
  });

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
    throw new GraphQLRequestError(first.message, response.status, code);
  }
  if (!body?.data) {
    throw new GraphQLRequestError(`GraphQL answered HTTP ${response.status} without data.`, response.status);
  }
  return body.data;
}
