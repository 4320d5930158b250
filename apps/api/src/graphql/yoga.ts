import { useGraphQlJit } from '@envelop/graphql-jit';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Actor, Deps } from '../services/deps.ts';
import { useAnonymousIntrospectionGuard } from './anonymous-introspection.ts';
import { useAuditsInFlight } from './audits-in-flight.ts';
import type { GraphQLContext } from './builder.ts';
import { maskError, useErrorPolicy, yogaLogger } from './error-policy.ts';
import { useDistinctEvents, type LiveStreams } from './live.ts';
import { createLoaders } from './loaders.ts';
import { useObservability } from './observability.ts';
import type { PrincipalBudget } from './principal-budget.ts';
import { useRateLimits } from './rate-limits.ts';
import { useSafeOperations } from './safe-operations.ts';
import { schema } from './schema/index.ts';

export interface YogaOptions {
  deps: Deps;
  production: boolean;
  /**
   * Resolves the caller from the request's credentials (http/server.ts), or throws a GraphQLError
   * carrying the HTTP status to answer with (401, 429).
   */
  authenticate(request: Request, clientAddress: string): Promise<RequestCaller>;
  /** P7: each principal's cost budget and execution slots; null for none (tests and benches not about P7). */
  budget: PrincipalBudget | null;
  /** Subscription streams: bounds, and ended all at once when the server drains (live.ts). */
  streams: LiveStreams;
}

/** Who is calling, as the HTTP layer resolves it from the request (http/server.ts). */
export interface RequestCaller {
  actor: Actor | null;
  clientAddress: string;
  /** Credentials were presented and refused; that refusal is already audited (P5). */
  authenticationFailed: boolean;
}

export type Yoga = YogaServerInstance<{ clientAddress?: string }, GraphQLContext>;

/** The GraphQL app, separate from any listener: tests call `yoga.fetch` with no socket. */
export function createGraphQL(options: YogaOptions): Yoga {
  return createYoga<{ clientAddress?: string }, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: !options.production,
    landingPage: false,
    // P2: no CORS here; the HTTP layer (http/origin.ts) answers for the origins in OCC_ALLOWED_ORIGINS
    // and for no other (yoga's default reflects any Origin with credentials).
    cors: false,
    maskedErrors: { maskError },
    // P7: the cost limit depends on the request's variables, which yoga's validation cache (keyed by
    // document) does not see; validation.ts keeps what does not depend on them.
    parserAndValidationCache: { validationCache: false },
    // P1: yoga's arguments are never stringified (a GraphQLError's toString prints the document).
    logging: yogaLogger(options.deps.logger),
    plugins: [
      useAnonymousIntrospectionGuard(options.production),
      // P1 and P3: parse, validation and variables within limits and without echoing input;
      // every error coded, every log line free of documents and values.
      useSafeOperations(),
      // P7: after the variables were checked (a refused request spends nothing), before execution.
      ...(options.budget ? [useRateLimits(options.budget)] : []),
      useErrorPolicy(options.deps.logger),
      // R6: after the error policy, so the codes it counts are the answered ones.
      useObservability(options.deps.metrics),
      useAuditsInFlight(),
      useDistinctEvents(),
      // Documents compiled to JavaScript once (graphql-jit, cached per parsed document,
      // which yoga's parser cache bounds) and run with a serializer built from the schema: a page
      // of 100 secrets or agents took about 17% less time per request than with the interpreter
      // (bench/api/read-path.bench.ts). Variables were coerced and checked before (P1, above).
      useGraphQlJit({}, { onError: () => options.deps.logger.error('a document passed validation but could not be compiled; it is answered with the errors') }),
    ],
    // Built after the document passed parsing, validation and the limits (safe-operations.ts).
    context: async ({ request, clientAddress }) => {
      const caller = await options.authenticate(request, clientAddress ?? 'unknown');
      return { deps: options.deps, ...caller, loaders: createLoaders(options.deps, caller.actor), auditsInFlight: [], streams: options.streams };
    },
  });
}
