import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Actor, Deps } from '../services/deps.ts';
import { useAnonymousIntrospectionGuard } from './anonymous-introspection.ts';
import type { GraphQLContext } from './builder.ts';
import { maskError, useErrorPolicy, yogaLogger } from './error-policy.ts';
import { createLoaders } from './loaders.ts';
import { useSafeOperations } from './safe-operations.ts';
import { schema } from './schema/index.ts';

export interface YogaOptions {
  deps: Deps;
  production: boolean;
  /** Resolves the caller from the request (bearer key or session cookie). */
  authenticate(request: Request): Promise<Actor | null>;
}

export type Yoga = YogaServerInstance<Record<string, never>, GraphQLContext>;

/** The GraphQL app, separate from any listener: tests call `yoga.fetch` with no socket. */
export function createGraphQL(options: YogaOptions): Yoga {
  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: !options.production,
    landingPage: false,
    // P2: no CORS here; the HTTP layer (http/origin.ts) answers for the origins in OCC_ALLOWED_ORIGINS
    // and for no other (yoga's default reflects any Origin with credentials).
    cors: false,
    maskedErrors: { maskError },
    // P1: yoga's arguments are never stringified (a GraphQLError's toString prints the document).
    logging: yogaLogger(options.deps.logger),
    plugins: [
      useAnonymousIntrospectionGuard(options.production),
      // P1 and P3: parse, validation and variables within limits and without echoing input;
      // every error coded, every log line free of documents and values.
      useSafeOperations(),
      useErrorPolicy(options.deps.logger),
    ],
    context: async ({ request }) => {
      const actor = await options.authenticate(request);
      return { deps: options.deps, actor, loaders: createLoaders(options.deps, actor) };
    },
  });
}
