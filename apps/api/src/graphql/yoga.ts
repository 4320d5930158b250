import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Actor, Deps } from '../services/deps.ts';
import type { GraphQLContext } from './builder.ts';
import { depthLimit } from './depth-limit.ts';
import { createLoaders } from './loaders.ts';
import { useRedactVariableValues } from './redact-variables.ts';
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
  const log = options.deps.logger.child({ component: 'graphql' });
  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: !options.production,
    landingPage: false,
    maskedErrors: true,
    logging: {
      debug: (...args: unknown[]) => log.debug(String(args[0])),
      info: (...args: unknown[]) => log.info(String(args[0])),
      warn: (...args: unknown[]) => log.warn(String(args[0])),
      error: (...args: unknown[]) => log.error(String(args[0]), { error: args[1] instanceof Error ? args[1] : undefined }),
    },
    plugins: [
      useRedactVariableValues(),
      {
        onValidate({ addValidationRule }: { addValidationRule: (rule: ReturnType<typeof depthLimit>) => void }) {
          addValidationRule(depthLimit(12));
        },
      },
    ],
    context: async ({ request }) => {
      const actor = await options.authenticate(request);
      return { deps: options.deps, actor, loaders: createLoaders(options.deps, actor) };
    },
  });
}
