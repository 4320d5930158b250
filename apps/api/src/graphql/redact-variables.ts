import type { Plugin } from 'graphql-yoga';
import { GraphQLError, type ExecutionResult } from 'graphql';

// graphql-js reports a bad variable as `Variable "$input" got invalid value { …the whole input… }`,
// which would echo a secret value back in the response and into logs. This rewrites those
// messages to name the variable and the reason only.
const INVALID_VALUE = /^(Variable "\$[^"]+") got invalid value [\s\S]*?(; |$)/;

export function redactVariableValue(message: string): string {
  return message.replace(INVALID_VALUE, (_m, variable: string, sep: string) => `${variable} got an invalid value${sep}`);
}

function redact(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  return {
    ...result,
    errors: result.errors.map((e) =>
      INVALID_VALUE.test(e.message)
        ? new GraphQLError(redactVariableValue(e.message), { nodes: e.nodes, path: e.path, extensions: e.extensions })
        : e,
    ),
  };
}

export function useRedactVariableValues(): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }: { result: unknown; setResult: (r: ExecutionResult) => void }) {
          if (result && typeof result === 'object' && 'errors' in result) setResult(redact(result as ExecutionResult));
        },
      };
    },
  };
}
