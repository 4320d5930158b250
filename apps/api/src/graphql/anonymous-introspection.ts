import { BREAK, GraphQLError, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';

// P2: in production the schema is no map for anonymous callers. Signed-in callers (the console,
// scripts with a key) and development keep introspection, so tools such as GraphiQL still work.

function asksForIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

export function useAnonymousIntrospectionGuard(production: boolean): Plugin<GraphQLContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!production || (args.contextValue as GraphQLContext).actor || !asksForIntrospection(args.document)) return;
      setResultAndStopExecution({
        errors: [new GraphQLError('Introspection needs authentication.', { extensions: { code: 'UNAUTHENTICATED' } })],
      });
    },
  };
}
