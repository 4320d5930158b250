import {
  coerceInputValue,
  getNullableType,
  isInputObjectType,
  isInputType,
  isNonNullType,
  typeFromAST,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { codedCause, invalidInput, objectProblem, walkType } from './input-errors.ts';

// Rule P1 for variables: graphql-js' own coercion errors quote the value (`String cannot represent
// a non string value: ["sk-…"]`). The variables are coerced here first, with graphql-js' own
// coerceInputValue so that what is valid does not change; of its errors only the path is used.
// Execution then coerces the same values again and cannot fail on them.

function valueAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      if (typeof key !== 'number') continue; // a lone value coerced as a one-item list
      current = current[key];
    } else {
      current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
    }
  }
  return current;
}

export function variableErrors(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Record<string, unknown>): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const [index, definition] of (operation.variableDefinitions ?? []).entries()) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) continue; // validation has refused the document already
    const subject = { kind: 'Variable' as const, position: index + 1 }; // its name is the client's (P1)
    if (!Object.hasOwn(inputs, name) || inputs[name] === undefined) {
      if (isNonNullType(type) && !definition.defaultValue) errors.push(invalidInput(subject, [], `expected ${String(type)}, and none was given`, definition));
      continue;
    }
    const input = inputs[name];
    if (input === null) {
      if (isNonNullType(type)) errors.push(invalidInput(subject, [], `expected ${String(type)}, found null`, definition));
      continue;
    }
    const seen = new Set<string>();
    coerceInputValue(input, type, (rawPath, _invalid, error) => {
      const { type: expected, path } = walkType(type, rawPath);
      const key = JSON.stringify(path);
      if (seen.has(key)) return;
      seen.add(key);
      const value = valueAt(input, rawPath);
      const objectLike = value !== null && typeof value === 'object' && !Array.isArray(value);
      const problem =
        isInputObjectType(getNullableType(expected)) && objectLike ? objectProblem(expected, Object.keys(value)) : `expected ${String(expected)}`;
      errors.push(invalidInput(subject, path, problem, definition, codedCause(error)));
    });
  }
  return errors;
}
