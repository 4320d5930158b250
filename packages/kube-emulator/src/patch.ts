// JSON merge patch (RFC 7386) and JSON patch (RFC 6902). Strategic merge patch is served as a
// merge patch for now: lists are replaced, not merged by key.

import { clone, isObject, jsonEqual } from './types.ts';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: Record<string, unknown> = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export class JsonPatchError extends Error {}

export interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, forInsert: boolean): number {
  if (forInsert && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchError(`invalid array index: ${token}`);
  const index = Number(token);
  if (index > length || (!forInsert && index === length)) throw new JsonPatchError(`array index out of bounds: ${token}`);
  return index;
}

/** Resolves the parent container of a pointer; the last token addresses the child. */
function locate(doc: unknown, tokens: string[], path: string): { parent: unknown; last: string } {
  let current = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, false)];
    else if (isObject(current) && Object.prototype.hasOwnProperty.call(current, token)) current = current[token];
    else throw new JsonPatchError(`doc is missing path: ${JSON.stringify(path)}`);
  }
  return { parent: current, last: tokens[tokens.length - 1] ?? '' };
}

function getValue(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const { parent, last } = locate(doc, tokens, path);
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false)];
  if (isObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) return parent[last];
  throw new JsonPatchError(`doc is missing path: ${JSON.stringify(path)}`);
}

function addValue(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return clone(value);
  const { parent, last } = locate(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true), 0, clone(value));
  else if (isObject(parent)) parent[last] = clone(value);
  else throw new JsonPatchError(`doc is missing path: ${JSON.stringify(path)}`);
  return doc;
}

function removeValue(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new JsonPatchError('cannot remove the whole document');
  const { parent, last } = locate(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false), 1);
  else if (isObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) delete parent[last];
  else throw new JsonPatchError(`remove operation does not apply: doc is missing path: ${JSON.stringify(path)}`);
  return doc;
}

function replaceValue(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return clone(value);
  const { parent, last } = locate(doc, tokens, path);
  if (Array.isArray(parent)) parent[arrayIndex(last, parent.length, false)] = clone(value);
  else if (isObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) parent[last] = clone(value);
  else throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${path}`);
  return doc;
}

/** Checks the patch document's shape; a malformed one is a 400 on the real server, not a 422. */
export function decodeJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) throw new JsonPatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  return patch.map((op: unknown) => {
    if (!isObject(op) || typeof op.op !== 'string') throw new JsonPatchError('invalid operation: missing op');
    return op as unknown as JsonPatchOperation;
  });
}

export function applyJsonPatch(document: unknown, operations: JsonPatchOperation[]): unknown {
  let doc = clone(document);
  for (const operation of operations) {
    if (typeof operation.path !== 'string') throw new JsonPatchError(`operation ${operation.op} has no path`);
    switch (operation.op) {
      case 'add':
        doc = addValue(doc, operation.path, operation.value);
        break;
      case 'remove':
        doc = removeValue(doc, operation.path);
        break;
      case 'replace':
        doc = replaceValue(doc, operation.path, operation.value);
        break;
      case 'move': {
        if (typeof operation.from !== 'string') throw new JsonPatchError('move operation has no from');
        const value = getValue(doc, operation.from);
        doc = removeValue(doc, operation.from);
        doc = addValue(doc, operation.path, value);
        break;
      }
      case 'copy': {
        if (typeof operation.from !== 'string') throw new JsonPatchError('copy operation has no from');
        doc = addValue(doc, operation.path, getValue(doc, operation.from));
        break;
      }
      case 'test': {
        let actual: unknown;
        try {
          actual = getValue(doc, operation.path);
        } catch {
          actual = undefined;
        }
        if (!jsonEqual(actual, operation.value ?? null)) {
          throw new JsonPatchError(`testing value ${operation.path} failed: test failed`);
        }
        break;
      }
      default:
        throw new JsonPatchError(`Unexpected kind: ${operation.op}`);
    }
  }
  return doc;
}
