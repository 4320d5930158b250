import { GraphQLError, getOperationAST, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { parseWithinLimits } from './parse.ts';
import { validateWithinLimits } from './validation.ts';
import { variableErrors } from './variables.ts';

/**
 * Each step of an operation answers errors built from positions, paths and types, never from
 * the input (P1), and within limits (P3): the parser counts tokens, validation checks the limits
 * before anything else, and variables are checked before execution.
 */
export function useSafeOperations(): Plugin {
  return {
    onParse({ setParseFn }) {
      setParseFn(parseWithinLimits);
    },
    onValidate({ context, setValidationFn }) {
      // P7: the cost is counted with this request's variables (page sizes given as `$n`).
      const given = (context as { params?: { variables?: unknown } }).params?.variables;
      const variables = given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
      setValidationFn((schema, document, rules) => validateWithinLimits(schema, document, rules, variables));
    },
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return; // yoga answers that itself, with OPERATION_RESOLUTION_FAILURE
      if (!args.schema.getRootType(operation.operation)) return setResultAndStopExecution({ errors: [unserved(operation)] });
      const errors = variableErrors(args.schema, operation, (args.variableValues ?? {}) as Record<string, unknown>);
      if (errors.length) setResultAndStopExecution({ errors });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation && !args.schema.getRootType(operation.operation)) setResultAndStopExecution({ errors: [unserved(operation)] });
    },
  };
}

// graphql-js answers this uncoded, as if the server had failed; it is the client's request.
function unserved(operation: OperationDefinitionNode): GraphQLError {
  return new GraphQLError(`This schema has no ${operation.operation} operations.`, { nodes: operation, extensions: { code: 'BAD_REQUEST' } });
}
