import {
  Kind,
  getNamedType,
  isInterfaceType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from './connections.ts';

// Rule P7: an operation's cost counts what will run: every field resolved once per item of the
// pages above it (an object 2, a scalar 1, graphql-armor's weights). A page multiplies its field's
// cost by the size that will be read however the size arrives: a literal, a variable's value, the
// variable's default, the argument's default in the schema, or the connection's own default when
// none is given (connections.ts). Nested pages multiply. Fragments cost what they would cost
// written inline, so the way a document is written does not change its price. (armor's ×1.5 per
// level is gone: it made a page of one nested deep cost more than a page of a hundred at the top.)

const OBJECT = 2;
const SCALAR = 1;
const PAGE_ARGUMENTS = ['first', 'last'] as const;

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  /** Each fragment's cost once computed; -1 while it is being computed (a cycle costs nothing more). */
  fragmentCosts: Map<string, number>;
  variables: Readonly<Record<string, unknown>>;
  defaults: Map<string, ValueNode>;
}

const wholeNumber = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

function literal(value: ValueNode | undefined, walk: Walk): number | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind !== Kind.VARIABLE) return undefined;
  const name = value.name.value;
  if (Object.hasOwn(walk.variables, name) && walk.variables[name] !== undefined) return wholeNumber(walk.variables[name]);
  return literal(walk.defaults.get(name), walk);
}

/** The page size a field will read, or 1 for a field that is not paged. */
function pageSize(node: FieldNode, field: GraphQLField<unknown, unknown> | undefined, walk: Walk): number {
  if (!field) return 1;
  let paged = false;
  let size: number | undefined;
  for (const name of PAGE_ARGUMENTS) {
    const argument = field.args.find((a) => a.name === name);
    if (!argument) continue;
    paged = true;
    const written = node.arguments?.find((a) => a.name.value === name);
    const value = written ? literal(written.value, walk) : wholeNumber(argument.defaultValue);
    if (value !== undefined) size = Math.max(size ?? 0, value);
  }
  if (!paged) return 1;
  return Math.max(1, size ?? DEFAULT_PAGE_SIZE);
}

function selectionCost(set: SelectionSetNode, parent: GraphQLNamedType | undefined, walk: Walk): number {
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      cost += fieldCost(selection, parent, walk);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : parent;
      cost += selectionCost(selection.selectionSet, type, walk);
    } else {
      const name = selection.name.value;
      const known = walk.fragmentCosts.get(name);
      if (known !== undefined) {
        cost += Math.max(known, 0);
        continue;
      }
      const fragment = walk.fragments.get(name);
      if (!fragment) continue;
      walk.fragmentCosts.set(name, -1);
      const fragmentCost = selectionCost(fragment.selectionSet, walk.schema.getType(fragment.typeCondition.name.value), walk);
      walk.fragmentCosts.set(name, fragmentCost);
      cost += fragmentCost;
    }
  }
  return cost;
}

function fieldCost(node: FieldNode, parent: GraphQLNamedType | undefined, walk: Walk): number {
  if (!node.selectionSet) return SCALAR;
  if (node.name.value === '__schema') return 0; // introspection is answered from memory
  const field = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[node.name.value] : undefined;
  const inner = OBJECT + selectionCost(node.selectionSet, field ? getNamedType(field.type) : undefined, walk);
  return inner * pageSize(node, field, walk);
}

export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const defaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) defaults.set(definition.variable.name.value, definition.defaultValue);
  }
  const walk: Walk = { schema, fragments, fragmentCosts: new Map(), variables, defaults };
  return selectionCost(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined, walk);
}

/** The highest cost of the document's operations with these variables (each may be the one run). */
export function documentCost(schema: GraphQLSchema, document: DocumentNode, variables?: Readonly<Record<string, unknown>>): number {
  let highest = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) highest = Math.max(highest, operationCost(schema, document, definition, variables));
  }
  return highest;
}

/**
 * What an executed operation's result cost, by the same weights: each object in the data 2, each
 * scalar (or null) 1, a list the sum of its items. A page counts the items it returned, not the
 * size asked for, so this is at most the operation's cost before it ran (operationCost counts
 * every page as full) and usually far less: the console asks for pages of 100 and most hold a few.
 * The root's own object is not counted, as operationCost does not count it.
 */
export function resultCost(data: unknown): number {
  if (data === null || typeof data !== 'object') return 0;
  let cost = 0;
  for (const value of Object.values(data)) cost += valueCost(value);
  return cost;
}

function valueCost(value: unknown): number {
  if (Array.isArray(value)) {
    let cost = 0;
    for (const item of value) cost += valueCost(item);
    return cost;
  }
  if (value !== null && typeof value === 'object') return OBJECT + resultCost(value);
  return SCALAR;
}
