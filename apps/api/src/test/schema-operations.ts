import {
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { graphqlLiteral } from './arbitraries.ts';

// The operations of the executable schema and valid inputs for them, derived from their types:
// a mutation or an argument added later is covered without a list to update. Field names only
// pick which fixture id or plausible string fills a leaf.

export interface Operation {
  kind: 'query' | 'mutation';
  name: string;
  field: GraphQLField<unknown, unknown>;
  /** The object types the field may answer (a union's members, or the type itself). */
  members: Set<string>;
  /** Those members that implement the Error interface. */
  errorMembers: Set<string>;
}

/** Every mutation, and every query that takes arguments. */
export function operationsOf(schema: GraphQLSchema): Operation[] {
  const operation = (kind: Operation['kind'], field: GraphQLField<unknown, unknown>): Operation => {
    const named = getNamedType(field.type);
    const possible = isAbstractType(named) ? schema.getPossibleTypes(named) : [];
    return {
      kind,
      name: field.name,
      field,
      members: new Set(isAbstractType(named) ? possible.map((t) => t.name) : [named.name]),
      errorMembers: new Set(possible.filter((t) => t.getInterfaces().some((i) => i.name === 'Error')).map((t) => t.name)),
    };
  };
  const mutations = Object.values(schema.getMutationType()?.getFields() ?? {}).map((f) => operation('mutation', f));
  const queries = Object.values(schema.getQueryType()?.getFields() ?? {})
    .filter((f) => f.args.length > 0)
    .map((f) => operation('query', f));
  return [...mutations, ...queries];
}

export type Path = Array<string | number>;

export function pathText(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
}

/** Every argument, every field of every input object under it, and the first element of every list. */
export function targetsOf(operation: Operation): Map<string, { path: Path; type: GraphQLInputType }> {
  const out = new Map<string, { path: Path; type: GraphQLInputType }>();
  const walk = (path: Path, type: GraphQLInputType) => {
    out.set(pathText(path), { path, type });
    if (path.length > 8) return;
    const nullable = getNullableType(type);
    if (isListType(nullable)) walk([...path, 0], nullable.ofType as GraphQLInputType);
    else if (isInputObjectType(nullable)) for (const f of Object.values(nullable.getFields())) walk([...path, f.name], f.type);
  };
  for (const arg of operation.field.args) walk([arg.name], arg.type);
  return out;
}

/** The small world valid inputs point into. */
export interface World {
  namespace: string;
  secret: string;
  configuration: string;
  agent: string;
  user: string;
  apiKey: string;
  binding: string;
  role: string;
}

interface Position {
  operation: string;
  /** The enclosing input object type, if any. */
  parentType?: string;
  field: string;
}

const ID_FIELDS: Record<string, keyof World> = {
  namespaceId: 'namespace',
  secretId: 'secret',
  resourceId: 'secret',
  configurationId: 'configuration',
  agentId: 'agent',
  subjectId: 'user',
  principalId: 'user',
  roleId: 'role',
  bindingId: 'binding',
};
// For a bare `id`, the kind is named by the enclosing input (SecretRefInput) or the operation.
const KIND_WORDS: Array<[RegExp, keyof World]> = [
  [/apikey/i, 'apiKey'],
  [/secret/i, 'secret'],
  [/configuration/i, 'configuration'],
  [/agent/i, 'agent'],
  [/user|principal/i, 'user'],
  [/namespace/i, 'namespace'],
  [/role/i, 'role'],
  [/access|binding/i, 'binding'],
];
const STRINGS: Record<string, (n: number) => string> = {
  name: (n) => `gen-${n}`,
  value: (n) => `generated-value-${n}`,
  envName: (n) => `GEN_VAR_${n}`,
  provider: () => 'openai',
  action: () => 'read',
  resourceKind: () => 'secret',
  kind: () => 'secret',
  type: () => 'env',
  allowedActions: () => 'skills',
};
const INTS: Record<string, number> = { expectedGeneration: 1, first: 5, last: 5 };

function idKind(pos: Position): keyof World {
  const byField = ID_FIELDS[pos.field];
  if (byField) return byField;
  for (const where of [pos.parentType, pos.operation]) {
    for (const [re, kind] of KIND_WORDS) if (where && re.test(where)) return kind;
  }
  return 'secret';
}

export class ValidInputs {
  private n = 0;
  constructor(readonly world: World) {}

  /** A valid value for a position: required fields (and namespaceId) of input objects, one list element. */
  value(type: GraphQLInputType, pos: Position): unknown {
    const nullable = getNullableType(type);
    if (isListType(nullable)) return [this.value(nullable.ofType as GraphQLInputType, pos)];
    if (isInputObjectType(nullable)) {
      const fields = Object.values(nullable.getFields());
      const chosen = fields.filter((f) => isNonNullType(f.type) || f.name === 'namespaceId');
      return Object.fromEntries(
        (chosen.length ? chosen : fields.slice(0, 1)).map((f) => [f.name, this.value(f.type, { operation: pos.operation, parentType: nullable.name, field: f.name })]),
      );
    }
    if (isEnumType(nullable)) {
      const values = nullable.getValues().map((v) => v.name);
      return values.includes('NAMESPACE') ? 'NAMESPACE' : values[0];
    }
    switch (nullable.name) {
      case 'ID':
        return this.world[idKind(pos)];
      case 'Int':
      case 'Float':
        return INTS[pos.field] ?? 1;
      case 'Boolean':
        return false;
      case 'JSON':
        return {};
      case 'DateTime':
        return '2026-01-01T00:00:00.000Z';
      default:
        return (STRINGS[pos.field] ?? STRINGS.name!)(++this.n);
    }
  }

  /** Valid arguments: the required ones, and namespaceId. */
  args(operation: Operation): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    for (const arg of operation.field.args) {
      if (isNonNullType(arg.type) || arg.name === 'namespaceId') args[arg.name] = this.value(arg.type, { operation: operation.name, field: arg.name });
    }
    return args;
  }

  /**
   * Valid arguments with one position replaced. Absent parents on the way are created valid, so
   * the hostile value is what the server meets. `make` receives the valid value it replaces.
   */
  argsWith(operation: Operation, path: Path, make: (base: unknown, type: GraphQLInputType) => unknown): Record<string, unknown> {
    const args = this.args(operation);
    let container = args as Record<string | number, unknown>;
    let type = operation.field.args.find((a) => a.name === path[0])!.type;
    let pos: Position = { operation: operation.name, field: String(path[0]) };
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      if (i > 0) {
        const nullable = getNullableType(type);
        if (typeof key === 'number' && isListType(nullable)) type = nullable.ofType as GraphQLInputType;
        else if (isInputObjectType(nullable)) {
          type = nullable.getFields()[key]!.type;
          pos = { operation: operation.name, parentType: nullable.name, field: String(key) };
        }
      }
      const current = container[key];
      const base = current === undefined || current === null ? this.value(type, pos) : current;
      if (i === path.length - 1) container[key] = make(base, type);
      else {
        container[key] = base;
        container = base as Record<string | number, unknown>;
      }
    }
    return args;
  }
}

/** What to select so that every answer can be judged: its type, and the code of a typed error. */
export function selectionFor(schema: GraphQLSchema, operation: Operation): string {
  const named = getNamedType(operation.field.type);
  if (!isCompositeType(named)) return '';
  return operation.errorMembers.size > 0 && schema.getType('Error') ? '{ __typename ... on Error { code message } }' : '{ __typename }';
}

/** The operation as a document, with its arguments as variables or printed inline as literals. */
export function documentFor(
  schema: GraphQLSchema,
  operation: Operation,
  args: Record<string, unknown>,
  inline: boolean,
): { query: string; variables: Record<string, unknown> } {
  const present = operation.field.args.filter((a) => args[a.name] !== undefined);
  const selection = selectionFor(schema, operation);
  if (inline) {
    const text = present.map((a) => `${a.name}: ${graphqlLiteral(args[a.name], a.type)}`).join(', ');
    return { query: `${operation.kind} Generated { ${operation.name}${text ? `(${text})` : ''} ${selection} }`, variables: {} };
  }
  const definitions = present.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const uses = present.map((a) => `${a.name}: $${a.name}`).join(', ');
  return {
    query: `${operation.kind} Generated${definitions ? `(${definitions})` : ''} { ${operation.name}${uses ? `(${uses})` : ''} ${selection} }`,
    variables: Object.fromEntries(present.map((a) => [a.name, args[a.name]])),
  };
}
