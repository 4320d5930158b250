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

function fieldOf(parent: GraphQLNamedType | undefined, node: FieldNode): GraphQLField<unknown, unknown> | undefined {
  return parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[node.name.value] : undefined;
}

function fieldCost(node: FieldNode, parent: GraphQLNamedType | undefined, walk: Walk): number {
  if (!node.selectionSet) return SCALAR;
  if (node.name.value === '__schema') return 0; // introspection is answered from memory
  const field = fieldOf(parent, node);
  const inner = OBJECT + selectionCost(node.selectionSet, field ? getNamedType(field.type) : undefined, walk);
  return inner * pageSize(node, field, walk);
}

/** The document's fragments and the operation's variable defaults, for either walk. */
function walkOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): Walk {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const defaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) defaults.set(definition.variable.name.value, definition.defaultValue);
  }
  return { schema, fragments, fragmentCosts: new Map(), variables, defaults };
}

export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): number {
  const walk = walkOf(schema, document, operation, variables);
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
 * What an executed operation cost by what its pages held: operationCost with every page's size
 * replaced by the items that page returned (each instance of a nested page by its own), everything
 * else priced as before (a list that is not a page still counts as one item, its largest; a null
 * or an empty list at what was asked). So a page of 100 that held 3 costs what a page of 3 costs,
 * and an operation never costs more than operationCost said; what a field does besides returning
 * items (a read of the cluster per agent) is priced exactly as before, not less. A page's items are
 * its connection's lists (edges, nodes); one that held none costs a page of 1, as `first: 0` does.
 * A field missing from the data (a fragment on another type) was not resolved and costs nothing.
 */
export function resultCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  data: unknown,
): number {
  const walk = walkOf(schema, document, operation, variables);
  if (!isRecord(data)) return 0;
  return answeredSelectionCost(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined, data, walk);
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function answeredSelectionCost(set: SelectionSetNode, parent: GraphQLNamedType | undefined, value: Record<string, unknown>, walk: Walk): number {
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      if (Object.hasOwn(value, key)) cost += answeredFieldCost(selection, parent, value[key], walk);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : parent;
      cost += answeredSelectionCost(selection.selectionSet, type ?? undefined, value, walk);
    } else {
      const fragment = walk.fragments.get(selection.name.value);
      if (fragment) cost += answeredSelectionCost(fragment.selectionSet, walk.schema.getType(fragment.typeCondition.name.value) ?? undefined, value, walk);
    }
  }
  return cost;
}

function answeredFieldCost(node: FieldNode, parent: GraphQLNamedType | undefined, value: unknown, walk: Walk): number {
  if (!node.selectionSet) return SCALAR;
  if (node.name.value === '__schema') return 0;
  const asked = () => fieldCost(node, parent, walk);
  const field = fieldOf(parent, node);
  const type = field ? getNamedType(field.type) : undefined;
  const set = node.selectionSet;
  if (field && PAGE_ARGUMENTS.some((name) => field.args.some((a) => a.name === name))) {
    if (!isRecord(value)) return asked();
    // Item i's view of the connection: each of its lists holding only its i-th item.
    const lists = Object.entries(value).filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]));
    const held = Math.max(0, ...lists.map(([, list]) => list.length));
    let cost = 0;
    for (let i = 0; i < Math.max(1, held); i++) {
      const view: Record<string, unknown> = { ...value };
      for (const [key, list] of lists) view[key] = i < list.length ? [list[i]] : [];
      cost += OBJECT + answeredSelectionCost(set, type, view, walk);
    }
    return cost;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return asked();
    let largest = 0;
    for (const item of value) {
      if (!isRecord(item)) return asked();
      largest = Math.max(largest, OBJECT + answeredSelectionCost(set, type, item, walk));
    }
    return largest;
  }
  if (!isRecord(value)) return asked();
  return OBJECT + answeredSelectionCost(set, type, value, walk);
}
