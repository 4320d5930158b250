import { GraphQLError, Kind, type ValueNode } from 'graphql';

// The JSON scalar's input side (P4). graphql-js would walk an inline literal recursively
// (valueFromASTUntyped) and pass a variable through untouched; either way a deep enough value
// overflows the stack of whatever walks it next. Both paths here are iterative and refuse a
// value nested deeper than any consumer can walk, with a coded error that names no content.
// Inside that bound the services validate the document (Configuration.values: 64 levels) and
// answer a ValidationError in the mutation's result union.

/** Far above any document a service accepts, far below what a recursive walk can take. */
export const JSON_MAX_DEPTH = 100_000;

export function jsonTooDeep(): GraphQLError {
  return new GraphQLError(`JSON nests deeper than ${JSON_MAX_DEPTH} levels.`, { extensions: { code: 'JSON_TOO_DEEP' } });
}

/** The nesting depth of a JSON value, measured without recursion; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = JSON_MAX_DEPTH): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const inner = depth + 1;
    if (inner > max) max = inner;
    if (max > limit) return max;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, inner]);
  }
  return max;
}

export function parseJsonValue(value: unknown): unknown {
  if (jsonDepth(value) > JSON_MAX_DEPTH) throw jsonTooDeep();
  return value;
}

/** valueFromASTUntyped without recursion, with the same depth bound (variables inside count too). */
export function parseJsonLiteral(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  type Slot = { set(v: unknown): void };
  let root: unknown;
  const stack: Array<{ node: ValueNode; depth: number; slot: Slot }> = [{ node: ast, depth: 0, slot: { set: (v) => (root = v) } }];
  while (stack.length > 0) {
    const { node, depth, slot } = stack.pop()!;
    switch (node.kind) {
      case Kind.NULL:
        slot.set(null);
        break;
      case Kind.INT:
        slot.set(parseInt(node.value, 10));
        break;
      case Kind.FLOAT:
        slot.set(parseFloat(node.value));
        break;
      case Kind.STRING:
      case Kind.ENUM:
      case Kind.BOOLEAN:
        slot.set(node.value);
        break;
      case Kind.VARIABLE: {
        const value = variables?.[node.name.value];
        if (depth + jsonDepth(value, JSON_MAX_DEPTH - depth) > JSON_MAX_DEPTH) throw jsonTooDeep();
        slot.set(value);
        break;
      }
      case Kind.LIST: {
        if (depth + 1 > JSON_MAX_DEPTH) throw jsonTooDeep();
        const list: unknown[] = new Array(node.values.length);
        slot.set(list);
        node.values.forEach((child, i) => stack.push({ node: child, depth: depth + 1, slot: { set: (v) => (list[i] = v) } }));
        break;
      }
      case Kind.OBJECT: {
        if (depth + 1 > JSON_MAX_DEPTH) throw jsonTooDeep();
        const object: Record<string, unknown> = Object.create(null);
        slot.set(object);
        // Keys in document order: the children below are filled in reverse.
        for (const field of node.fields) object[field.name.value] = undefined;
        for (const field of node.fields) stack.push({ node: field.value, depth: depth + 1, slot: { set: (v) => (object[field.name.value] = v) } });
        break;
      }
    }
  }
  return root;
}
