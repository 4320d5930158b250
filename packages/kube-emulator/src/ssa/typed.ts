// The typed operations of structured-merge-diff over plain JSON: the field set of an applied
// configuration, the comparison of two objects, the merge of a configuration into a live
// object, and the removal of paths. Each follows the walker of the same name in
// sigs.k8s.io/structured-merge-diff/v4/typed, including its edge cases (an empty map is a leaf,
// list items are members themselves, maps only through their leaves).

import { badRequest } from '../errors.ts';
import { clone, isObject, jsonEqual, type JsonObject } from '../types.ts';
import { child, elementsOf, fieldElement, keyElement, valueElement, type FieldSet } from '@occ/domain/fieldsv1';
import { fieldSchema, resolve, type ListSchema, type MapSchema, type Schema } from './schema.ts';

/** The path element of a list item; undefined when a map-list item lacks a key field. */
export function itemElement(list: ListSchema, item: unknown, index: number): string | undefined {
  if (list.listType === 'set') return valueElement(item);
  if (list.listType === 'map') {
    const keys = list.keys ?? [];
    if (!isObject(item) || keys.some((k) => item[k] === undefined)) return undefined;
    return keyElement(item, keys);
  }
  return `i:${index}`;
}

function requireElement(list: ListSchema, item: unknown, index: number, path: string): string {
  const element = itemElement(list, item, index);
  if (element === undefined) {
    throw badRequest(
      `${path || 'list'}: element ${index}: associative list with keys has an element that omits key field ${JSON.stringify((list.keys ?? [])[0] ?? '')}`,
    );
  }
  return element;
}

/** Every path an applied configuration sets (typed.ToFieldSet). */
export function toFieldSet(schema: MapSchema, value: JsonObject): FieldSet {
  const out = new Set<string>();
  visitMap(schema, value, '', out);
  return out;
}

function visitMap(schema: MapSchema, value: JsonObject, path: string, out: FieldSet): void {
  for (const [key, childValue] of Object.entries(value)) {
    if (childValue === undefined) continue;
    const next = child(path, fieldElement(key));
    visit(fieldSchema(schema, key), childValue, next, out);
  }
}

function visit(schema: Schema, value: unknown, path: string, out: FieldSet): void {
  const s = resolve(schema, value);
  if (s.type === 'scalar') {
    out.add(path);
  } else if (s.type === 'map') {
    // typed.ToFieldSet: an atomic map is one field; a granular one is only its items, so an empty
    // or null granular map sets nothing (E8: a real server keeps no entry for `data: {}`).
    if (s.atomic) out.add(path);
    else if (isObject(value)) visitMap(s, value, path, out);
  } else if (s.listType === 'atomic') {
    out.add(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const itemPath = child(path, requireElement(s, item, index, path));
      visit(s.items, item, itemPath, out);
      out.add(itemPath);
    });
  }
}

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

export function isSame(comparison: Comparison): boolean {
  return comparison.added.size === 0 && comparison.removed.size === 0 && comparison.modified.size === 0;
}

/** What changed from `lhs` to `rhs` (typed.Compare); `undefined` is an absent value. */
export function compare(schema: MapSchema, lhs: JsonObject, rhs: JsonObject): Comparison {
  const result: Comparison = { added: new Set(), removed: new Set(), modified: new Set() };
  compareMapItems(schema, lhs, rhs, '', result);
  return result;
}

function shapeOf(value: unknown): string {
  return isObject(value) ? 'map' : Array.isArray(value) ? 'list' : 'scalar';
}

function compareLeaf(lhs: unknown, rhs: unknown, path: string, out: Comparison): void {
  if (lhs === undefined) out.added.add(path);
  else if (rhs === undefined) out.removed.add(path);
  else if (!jsonEqual(lhs, rhs)) out.modified.add(path);
}

function compareMapItems(schema: MapSchema, lhs: JsonObject | undefined, rhs: JsonObject | undefined, path: string, out: Comparison): void {
  const keys = new Set([...Object.keys(lhs ?? {}), ...Object.keys(rhs ?? {})]);
  for (const key of keys) {
    const l = lhs?.[key];
    const r = rhs?.[key];
    if (l === undefined && r === undefined) continue;
    compareValue(fieldSchema(schema, key), l, r, child(path, fieldElement(key)), out);
  }
}

function compareValue(schema: Schema, lhs: unknown, rhs: unknown, path: string, out: Comparison): void {
  if (lhs !== undefined && rhs !== undefined && lhs !== null && rhs !== null && shapeOf(lhs) !== shapeOf(rhs)) {
    out.modified.add(path);
    return;
  }
  const s = resolve(schema, rhs !== undefined && rhs !== null ? rhs : lhs);
  if (s.type === 'scalar') {
    compareLeaf(lhs, rhs, path, out);
    return;
  }
  if (s.type === 'map') {
    const l = isObject(lhs) ? lhs : undefined;
    const r = isObject(rhs) ? rhs : undefined;
    const empty = (!l || Object.keys(l).length === 0) && (!r || Object.keys(r).length === 0);
    if (s.atomic || empty) {
      compareLeaf(lhs, rhs, path, out);
      return;
    }
    compareMapItems(s, l, r, path, out);
  } else {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    const empty = (!l || l.length === 0) && (!r || r.length === 0);
    if (s.listType === 'atomic' || empty) {
      compareLeaf(lhs, rhs, path, out);
      return;
    }
    const left = indexItems(s, l ?? []);
    const right = indexItems(s, r ?? []);
    for (const element of new Set([...left.keys(), ...right.keys()])) {
      compareValue(s.items, left.get(element), right.get(element), child(path, element), out);
    }
  }
  if (lhs === undefined) out.added.add(path);
  else if (rhs === undefined) out.removed.add(path);
}

function indexItems(list: ListSchema, items: unknown[]): Map<string, unknown> {
  const index = new Map<string, unknown>();
  items.forEach((item, i) => {
    const element = itemElement(list, item, i) ?? `i:${i}`;
    if (!index.has(element)) index.set(element, item);
  });
  return index;
}

/** The live object with the configuration merged in (typed.Merge): the configuration wins. */
export function merge(schema: MapSchema, live: JsonObject, config: JsonObject): JsonObject {
  return mergeMap(schema, live, config);
}

function mergeMap(schema: MapSchema, lhs: JsonObject, rhs: JsonObject): JsonObject {
  const out: JsonObject = { ...lhs };
  for (const [key, r] of Object.entries(rhs)) {
    if (r === undefined) continue;
    if (r === null) {
      delete out[key];
      continue;
    }
    out[key] = mergeValue(fieldSchema(schema, key), lhs[key], r);
  }
  return out;
}

function mergeValue(schema: Schema, lhs: unknown, rhs: unknown): unknown {
  if (lhs === undefined || lhs === null) return clone(rhs);
  const s = resolve(schema, rhs);
  if (s.type === 'map') {
    if (s.atomic || !isObject(lhs) || !isObject(rhs)) return clone(rhs);
    return mergeMap(s, lhs, rhs);
  }
  if (s.type === 'list' && s.listType !== 'atomic' && Array.isArray(lhs) && Array.isArray(rhs)) {
    return mergeList(s, lhs, rhs);
  }
  return clone(rhs);
}

/**
 * Items of both lists, in the order structured-merge-diff gives them: shared items in the
 * configuration's order, items only the live list has where they were, new ones after the
 * configuration item before them.
 */
function mergeList(list: ListSchema, lhs: unknown[], rhs: unknown[]): unknown[] {
  const lElements = lhs.map((item, i) => itemElement(list, item, i) ?? `i:${i}`);
  const rElements = rhs.map((item, i) => requireElement(list, item, i, ''));
  const lIndex = new Map<string, unknown>();
  lElements.forEach((e, i) => lIndex.has(e) || lIndex.set(e, lhs[i]));
  const rIndex = new Map<string, unknown>();
  rElements.forEach((e, i) => rIndex.has(e) || rIndex.set(e, rhs[i]));
  const shared = rElements.filter((e) => lIndex.has(e));
  let nextShared = shared.shift();
  const merged = new Set<string>();
  const out: unknown[] = [];
  const take = (element: string): void => {
    merged.add(element);
    out.push(mergeValue(list.items, lIndex.get(element), rIndex.get(element)));
  };
  let l = 0;
  let r = 0;
  while (l < lElements.length || r < rElements.length) {
    const le = lElements[l];
    const re = rElements[r];
    if (le !== undefined && re !== undefined) {
      if (le === re) {
        take(le);
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (rIndex.has(le) && nextShared !== undefined && nextShared !== le) {
        l++;
        continue;
      }
    }
    if (le !== undefined) {
      if (!rIndex.has(le)) {
        out.push(clone(lhs[l]));
        l++;
        continue;
      }
      if (merged.has(le)) {
        l++;
        continue;
      }
    }
    if (re !== undefined) {
      take(re);
      r++;
      if (nextShared === re) nextShared = shared.shift();
    } else {
      l++;
    }
  }
  return out;
}

/**
 * Removes the value at `path` (a field, or a list item by key or value); absent paths are ignored.
 * As structured-merge-diff's RemoveItems, a list or granular map that the removal of an item leaves
 * empty becomes null (its field stays: someone still owns it, or it would have been removed as a
 * named field first); found on a real server by the E8 lane, and kept by current releases.
 */
export function removePath(schema: MapSchema, object: JsonObject, path: string): void {
  const elements = elementsOf(path);
  let container: unknown = object;
  let current: Schema = schema;
  let holder: { parent: JsonObject | unknown[]; key: string | number; itemContainer: boolean } | null = null;
  const emptied = () => {
    const gone = Array.isArray(container) ? container.length === 0 : isObject(container) && Object.keys(container).length === 0;
    if (gone && holder?.itemContainer) (holder.parent as Record<string | number, unknown>)[holder.key] = null;
  };
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i] ?? '';
    const last = i === elements.length - 1;
    const s = resolve(current, container);
    if (element.startsWith('f:')) {
      if (!isObject(container) || s.type !== 'map') return;
      const name = element.slice(2);
      if (last) {
        delete container[name];
        // A key of a granular map (no declared fields) is an item; a struct's field is not.
        if (!s.fields || !Object.prototype.hasOwnProperty.call(s.fields, name)) emptied();
        return;
      }
      current = fieldSchema(s, name);
      holder = { parent: container, key: name, itemContainer: true };
      container = container[name];
    } else {
      if (!Array.isArray(container) || s.type !== 'list') return;
      const list = container;
      const index = list.findIndex((item, j) => itemElement(s, item, j) === element);
      if (index < 0) return;
      if (last) {
        list.splice(index, 1);
        emptied();
        return;
      }
      current = s.items;
      holder = { parent: list, key: index, itemContainer: false };
      container = list[index];
    }
  }
}

/** Whether `path` names a value present in `object` (a field, or a list item by key or value). */
export function hasPath(schema: MapSchema, object: JsonObject, path: string): boolean {
  let container: unknown = object;
  let current: Schema = schema;
  for (const element of elementsOf(path)) {
    const s = resolve(current, container);
    if (element.startsWith('f:')) {
      if (!isObject(container) || s.type !== 'map') return false;
      const name = element.slice(2);
      if (container[name] === undefined) return false;
      current = fieldSchema(s, name);
      container = container[name];
    } else {
      if (!Array.isArray(container) || s.type !== 'list') return false;
      const item = container.find((value, j) => itemElement(s, value, j) === element);
      if (item === undefined) return false;
      current = s.items;
      container = item;
    }
  }
  return true;
}

/** The named-field ancestors of each path (fieldpath.Set.EnsureNamedFieldsAreMembers). */
export function withNamedAncestors(schema: MapSchema, set: FieldSet): FieldSet {
  const out = new Set(set);
  for (const path of set) {
    let current: Schema = schema;
    let prefix = '';
    const elements = elementsOf(path);
    for (let i = 0; i < elements.length - 1; i++) {
      const element = elements[i] ?? '';
      prefix = child(prefix, element);
      if (current.type === 'map' && element.startsWith('f:')) {
        const name = element.slice(2);
        if (current.fields && Object.prototype.hasOwnProperty.call(current.fields, name)) out.add(prefix);
        current = fieldSchema(current, name);
      } else if (current.type === 'list') {
        current = current.items;
      } else {
        break;
      }
    }
  }
  return out;
}
