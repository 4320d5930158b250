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
// the client sent that the schema does not define: either could be the secret.

export type InputPath = ReadonlyArray<string | number>;

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
  if ([...given].some((k) => !defined.has(k))) return `${named.name} has a field it does not define; its fields are ${[...defined].join(', ')}`;
  return `expected ${String(type)}`;
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
  subject: { kind: 'Variable' | 'Argument'; name: string },
  path: InputPath,
  problem: string,
  nodes?: ReadonlyArray<ASTNode> | ASTNode,
  cause?: GraphQLError | null,
): GraphQLError {
  const label = subject.kind === 'Variable' ? `Variable "$${subject.name}"` : `Argument "${subject.name}"`;
  const reason = cause ? cause.message.replace(/\.$/, '') : problem;
  return new GraphQLError(`${label} has an invalid value at "${formatPath(subject.name, path)}": ${reason}.`, {
    nodes,
    extensions: {
      code: cause ? cause.extensions.code : 'BAD_USER_INPUT',
      [subject.kind === 'Variable' ? 'variable' : 'argument']: subject.name,
      inputPath: [subject.name, ...path],
    },
  });
}
