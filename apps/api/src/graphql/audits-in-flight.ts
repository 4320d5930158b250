import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';

/**
 * Holds an operation's result until the audit writes its execution started have finished
 * (`auditsInFlight`, builder.ts): a caller that has its answer finds the denial in the audit (A3),
 * and a write that fails is logged before the request ends rather than after.
 */
export function useAuditsInFlight(): Plugin<GraphQLContext> {
  return {
    onExecute: () => ({
      onExecuteDone: async ({ args }) => {
        await Promise.all(args.contextValue.auditsInFlight);
      },
    }),
  };
}
