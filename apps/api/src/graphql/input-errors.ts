import {
  GraphQLError,
  getNullableType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type ASTNode,
  type GraphQLInputType,
} from 'graphql';

// Rule P1: an invalid input is described by where it is (a path through the schema's own field
// names and list indexes) and what was expected (a type). Never by the value, and never by a key
// the client sent that the schema does not define: either could be the secret. An argument is
// named (the schema defines it); a variable by its position among the operation's variables,
// since its name is the client's.

export type InputPath = ReadonlyArray<string | number>;

/** Whose value is invalid: an argument the schema defines, or the operation's variable at `position` (from 1). */
export type InputSubject = { kind: 'Argument'; name: string } | { kind: 'Variable'; position: number };

/** Follows `path` through `type`; stops before a key the type does not define. */
export function walkType(type: GraphQLInputType, path: InputPath): { type: GraphQLInputType; path: Array<string | number> } {
  let current = type;
  const walked: Array<string | number> = [];
  for (let i = 0; i < path.length; ) {
    const key = path[i]!;
    const nullable = getNullableType(current);
    if (isListType(nullable)) {
      current = nullable.ofType;
      // graphql-js coerces a lone value given for a list as a one-item list, on the same path:
      // a name after a list applies to its item type.
      if (typeof key !== 'number') continue;
    } else if (isInputObjectType(nullable) && typeof key === 'string' && Object.hasOwn(nullable.getFields(), key)) {
      current = nullable.getFields()[key]!.type;
    } else {
      break;
    }
    walked.push(key);
    i++;
  }
  return { type: current, path: walked };
}

export function formatPath(root: string, path: InputPath): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${key}`), root);
}

/** What an input object is missing, or that it has keys it does not define; named from the schema only. */
export function objectProblem(type: GraphQLInputType, keys: Iterable<string> | null): string {
  const named = getNullableType(type);
  if (!isInputObjectType(named)) return `expected ${String(type)}`;
  const fields = Object.values(named.getFields());
  if (keys === null) return `expected ${String(type)}`;
  const given = new Set(keys);
  const missing = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined && !given.has(f.name)).map((f) => f.name);
  if (missing.length) return `${named.name} requires ${missing.join(', ')}`;
  const defined = new Set(fields.map((f) => f.name));
  if ([...given].some((k) => !defined.has(k))) return unknownFieldProblem(type);
  return `expected ${String(type)}`;
}

/** That an input object was given a key it does not define; the key itself is not named. */
export function unknownFieldProblem(type: GraphQLInputType): string {
  const named = getNullableType(type);
  if (!isInputObjectType(named)) return `expected ${String(type)}`;
  return `${named.name} has a field it does not define; its fields are ${Object.keys(named.getFields()).join(', ')}`;
}

/**
 * A scalar of ours may refuse a value with a coded GraphQLError of its own (the JSON scalar's
 * JSON_TOO_DEEP): that error was written to name no content, so its code and sentence are kept.
 * graphql-js' own scalar errors carry no code and quote the value: they are never used.
 */
export function codedCause(error: unknown): GraphQLError | null {
  for (let e = error; e instanceof GraphQLError; e = e.originalError) {
    if (typeof e.extensions?.code === 'string') return e;
  }
  return null;
}

export function invalidInput(
  subject: InputSubject,
  path: InputPath,
  problem: string,
  nodes?: ReadonlyArray<ASTNode> | ASTNode,
  cause?: GraphQLError | null,
): GraphQLError {
  const reason = cause ? cause.message.replace(/\.$/, '') : problem;
  const code = cause ? cause.extensions.code : 'BAD_USER_INPUT';
  if (subject.kind === 'Variable') {
    const at = path.length ? ` at "${formatPath('', path).replace(/^\./, '')}"` : '';
    return new GraphQLError(`Variable ${subject.position} of the operation has an invalid value${at}: ${reason}.`, {
      nodes,
      extensions: { code, variablePosition: subject.position, inputPath: [...path] },
    });
  }
  return new GraphQLError(`Argument "${subject.name}" has an invalid value at "${formatPath(subject.name, path)}": ${reason}.`, {
    nodes,
    extensions: { code, argument: subject.name, inputPath: [subject.name, ...path] },
  });
}
