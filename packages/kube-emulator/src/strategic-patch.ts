// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kinds served:
// maps merge as in a JSON merge patch, lists the Go types mark with a patch merge key merge item
// by item, and the directives kubectl writes are obeyed rather than stored: $patch
// (replace, delete, merge), $retainKeys, $setElementOrder/<list> and
// $deleteFromPrimitiveList/<list> (k8s.io/apimachinery/pkg/util/strategicpatch). kubectl's
// client-side apply sends these for every list it touches, e.g.
// {"$setElementOrder/env": [{"name": "A"}], "env": [{"name": "A", "value": "2"}]}.
// Lists without a merge key are replaced whole. Which lists merge, and by which key, is read from
// the kind's schema, the real server's (kinds/openapi-captured.ts), as the Go types' patch tags.
// Custom resources have no strategy (JSON merge).

import { resolveSchema } from './openapi-docs.ts';
import { clone, isObject, jsonEqual, type JsonObject } from './types.ts';

const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVES = '$deleteFromPrimitiveList/';

/** The schema of a field (or of a map's values) of an object's schema. */
function fieldOf(schema: JsonObject | undefined, key: string): JsonObject | undefined {
  const object = schema === undefined ? undefined : resolveSchema(schema);
  const field = (isObject(object?.properties) ? object.properties[key] : undefined) ?? object?.additionalProperties;
  return isObject(field) ? field : undefined;
}

function itemsOf(list: JsonObject | undefined): JsonObject | undefined {
  return isObject(list?.items) ? list.items : undefined;
}

/**
 * How a list field merges, from the Go type's tags the schema carries (x-kubernetes-patch-strategy
 * and -merge-key): its merge key, '' for a set of primitives, undefined for a list replaced whole.
 */
function mergeKeyOf(field: JsonObject | undefined): string | undefined {
  const strategy = field?.['x-kubernetes-patch-strategy'];
  if (typeof strategy !== 'string' || !strategy.split(',').includes('merge')) return undefined;
  const key = field?.['x-kubernetes-patch-merge-key'];
  return typeof key === 'string' ? key : '';
}

function withoutDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(SET_ORDER) || key.startsWith(DELETE_PRIMITIVES)) continue;
    out[key] = withoutDirectives(item);
  }
  return out;
}

// The order of a merged list is apimachinery's, step for step (strategicpatch/patch.go): the items
// the patch (or its $setElementOrder list) names keep that order, the server's other items keep
// theirs, and the two are interleaved by mergeSortedSlice; sorting is Go's sort.SliceStable, whose
// result the comparator there (true whenever an item is not in the order) makes depend on the
// algorithm itself, so that algorithm is ported below rather than a stable sort of JavaScript's.

/** The merge key's value of a map item, or the item itself in a list of primitives (strategicpatch's index()). */
function identity(item: unknown, mergeKey: string): unknown {
  return mergeKey === '' ? item : isObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: readonly unknown[], item: unknown, mergeKey: string): number {
  const wanted = identity(item, mergeKey);
  return list.findIndex((candidate) => jsonEqual(identity(candidate, mergeKey), wanted));
}

/** Go's sort.SliceStable (insertion sort in blocks of 20, then symMerge), with its `less` on positions. */
function goSliceStable<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  const data = [...items];
  const lessAt = (i: number, j: number) => less(data[i] as T, data[j] as T);
  const swap = (i: number, j: number) => {
    const t = data[i] as T;
    data[i] = data[j] as T;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number) => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
  return data;
}

/** normalizeSliceOrder: sorted by position in `order` (Go's comparator), less the items `order` deletes. */
function normalizeSliceOrder(items: unknown[], order: readonly unknown[], mergeKey: string): unknown[] {
  const sorted = goSliceStable(items, (x, y) => {
    const ix = indexIn(order, x, mergeKey);
    if (ix < 0) return true;
    const iy = indexIn(order, y, mergeKey);
    return iy < 0 ? true : ix < iy;
  });
  if (mergeKey === '') return sorted;
  const deleted = order.filter((o) => isObject(o) && o.$patch === 'delete').map((o) => identity(o, mergeKey));
  return sorted.filter((item) => !deleted.some((d) => jsonEqual(d, identity(item, mergeKey))));
}

/** mergeSortedSlice: each server-only item goes before the first patch item the server holds after it. */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: readonly unknown[], mergeKey: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** normalizeElementOrder: the merged list's items, those named by `patchOrder` and the server's others, interleaved. */
function normalizeElementOrder(merged: unknown[], patchOrder: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string): unknown[] {
  const inPatch = (item: unknown) => indexIn(patchOrder, item, mergeKey) >= 0;
  const patchItems = normalizeSliceOrder(merged.filter(inPatch), patchOrder, mergeKey);
  const serverOnly = normalizeSliceOrder(merged.filter((item) => !inPatch(item)), serverOrder, mergeKey);
  return mergeSortedSlice(serverOnly, patchItems, serverOrder, mergeKey);
}

/** mergeSlice: the patch's items merged into the server's (by merge key, or as a set of primitives), in apimachinery's order. */
function mergeList(original: unknown, patch: unknown[], mergeKey: string, items: JsonObject | undefined): unknown[] {
  const server = Array.isArray(original) ? clone(original) : [];
  if (server.length === 0 && patch.length === 0) return server;
  if (mergeKey === '') {
    const merged: unknown[] = [];
    for (const item of [...server, ...patch]) if (!merged.some((m) => jsonEqual(m, item))) merged.push(clone(item));
    return normalizeElementOrder(merged, patch, server, '');
  }
  // mergeSliceWithSpecialElements: $patch delete items remove theirs from the server's list; a
  // $patch replace item makes the patch's other items the whole list.
  let base = server;
  const plain: unknown[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isObject(item) || item.$patch === undefined) {
      plain.push(item);
    } else if (item.$patch === 'delete') {
      base = base.filter((r) => !jsonEqual(identity(r, mergeKey), item[mergeKey]));
    } else if (item.$patch === 'replace') {
      replace = true;
    }
  }
  const merged = replace ? plain.map(withoutDirectives) : [...base];
  if (!replace) {
    for (const item of plain) {
      if (!isObject(item)) continue;
      const index = merged.findIndex((r) => isObject(r) && jsonEqual(r[mergeKey], item[mergeKey]));
      if (index >= 0) merged[index] = strategicMerge(merged[index], item, items);
      else merged.push(withoutDirectives(item));
    }
  }
  return normalizeElementOrder(merged, patch, server, mergeKey);
}

function strategicMerge(target: unknown, patch: unknown, schema: JsonObject | undefined): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') return withoutDirectives(patch);
  let result: JsonObject = isObject(target) ? clone(target) : {};
  if (Array.isArray(patch.$retainKeys)) {
    const retained = new Set(patch.$retainKeys.map(String));
    result = Object.fromEntries(Object.entries(result).filter(([key]) => retained.has(key)));
  }
  // mergePatchIntoOriginal: first, each list the patch orders with $setElementOrder/<list> (when it
  // merges by a key) is merged, then ordered by the directive's list against the server's; a list
  // the server does not hold is the patch's as sent. The loop below leaves these lists alone, but
  // for what $deleteFromPrimitiveList then removes from them.
  const ordered = new Set<string>();
  for (const [key, wanted] of Object.entries(patch)) {
    if (!key.startsWith(SET_ORDER) || !Array.isArray(wanted)) continue;
    const field = key.slice(SET_ORDER.length);
    const fieldSchema = fieldOf(schema, field);
    const mergeKey = mergeKeyOf(fieldSchema);
    if (mergeKey === undefined) continue;
    const original = result[field];
    const listed = patch[field];
    let merged: unknown[];
    if (Array.isArray(listed)) merged = Array.isArray(original) ? mergeList(original, listed, mergeKey, itemsOf(fieldSchema)) : (withoutDirectives(listed) as unknown[]);
    else if (Array.isArray(original)) merged = original;
    else continue;
    result[field] = normalizeElementOrder(merged, wanted, Array.isArray(original) ? original : [], mergeKey);
    ordered.add(field);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(SET_ORDER) || ordered.has(key)) continue;
    if (key.startsWith(DELETE_PRIMITIVES)) {
      const field = key.slice(DELETE_PRIMITIVES.length);
      const removed = Array.isArray(value) ? value : [];
      if (Array.isArray(result[field])) result[field] = (result[field] as unknown[]).filter((item) => !removed.some((r) => jsonEqual(r, item)));
      continue;
    }
    const fieldSchema = fieldOf(schema, key);
    const mergeKey = mergeKeyOf(fieldSchema);
    if (value === null || (isObject(value) && value.$patch === 'delete')) {
      delete result[key];
    } else if (result[key] === undefined) {
      // Not in the original: the patch's value as sent (mergeMap), its directives then dropped as
      // the typed object drops unknown keys; a `$patch: delete` item of a new list stays an item.
      result[key] = withoutDirectives(value);
    } else if (Array.isArray(value) && mergeKey !== undefined) {
      result[key] = mergeList(result[key], value, mergeKey, itemsOf(fieldSchema));
    } else if (isObject(value)) {
      result[key] = strategicMerge(result[key], value, fieldSchema);
    } else {
      result[key] = withoutDirectives(value);
    }
  }
  return result;
}

/** `schema`: the kind's (kindSchema), whose fields carry the merge keys; without one every list is replaced. */
export function strategicMergePatch(target: unknown, patch: JsonObject, schema?: JsonObject): unknown {
  return strategicMerge(target, patch, schema);
}
