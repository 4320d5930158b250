import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { currentRequest } from '../observability/request-context.ts';
import type { Metrics } from '../observability/metrics.ts';
import { operationLabel } from '../observability/operation-names.ts';
import { nameOperation } from '../observability/tracing.ts';

// R6 for GraphQL: the operation's name goes into the request context (so every log line of the
// request, and its access line, carry it), each request's latency is observed by operation, and
// every error answered is counted by code. Placed after the error policy, so codes are final.

interface Operation {
  type: string;
  name?: string;
  started: number;
}

function errorsOf(result: unknown): ReadonlyArray<GraphQLFormattedError> {
  const results: unknown[] = Array.isArray(result) ? result : [result];
  return results.flatMap((r) => (r && typeof r === 'object' && 'errors' in r ? ((r as ExecutionResult).errors ?? []) : []));
}

export function useObservability(metrics: Metrics | undefined): Plugin {
  const operations = new WeakMap<Request, Operation>();
  return {
    onRequest({ request }) {
      operations.set(request, { type: '_unparsed', started: performance.now() });
    },
    onParse({ context }) {
      const { request, params } = context as { request?: Request; params?: { operationName?: string } };
      return ({ result }) => {
        const operation = request ? operations.get(request) : undefined;
        if (!operation || !result || result instanceof Error) return;
        const ast = getOperationAST(result as DocumentNode, params?.operationName);
        if (!ast) return;
        operation.type = ast.operation;
        operation.name = ast.name ? operationLabel(ast.name.value) : undefined;
        const context = currentRequest();
        if (context && operation.name) context.operationName = operation.name;
        nameOperation(operation.type, operation.name);
      };
    },
    onResultProcess({ result }) {
      for (const error of errorsOf(result)) {
        const code = error.extensions?.code;
        metrics?.graphqlErrors.inc({ code: typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR' });
      }
    },
    onResponse({ request }) {
      const operation = operations.get(request);
      if (!operation || !metrics) return;
      metrics.graphqlDuration.observe(
        { operation_type: operation.type, operation_name: operation.type === '_unparsed' ? '_unparsed' : metrics.operationLabel(operation.name) },
        (performance.now() - operation.started) / 1000,
      );
    },
  };
}
