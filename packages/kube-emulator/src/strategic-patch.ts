// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kinds served:
// maps merge as in a JSON merge patch, lists the Go types mark with a patch merge key merge item
// by item, and the directives kubectl writes are obeyed rather than stored: $patch
// (replace, delete, merge), $retainKeys, $setElementOrder/<list> and
// $deleteFromPrimitiveList/<list> (k8s.io/apimachinery/pkg/util/strategicpatch). kubectl's
// client-side apply sends these for every list it touches, e.g.
// {"$setElementOrder/env": [{"name": "A"}], "env": [{"name": "A", "value": "2"}]}.
// Lists without a merge key are replaced whole. Custom resources have no strategy (JSON merge).

import { clone, isObject, jsonEqual, type JsonObject } from './types.ts';

/** patchMergeKey of the lists of the served kinds, by path (list items as []); a key of '' merges primitives as a set. */
const MERGE_KEYS: Record<string, string> = {
  'metadata.ownerReferences': 'uid',
  'metadata.finalizers': '',
  'status.conditions': 'type',
  'spec.template.metadata.ownerReferences': 'uid',
  'spec.template.metadata.finalizers': '',
  'spec.template.spec.containers': 'name',
  'spec.template.spec.initContainers': 'name',
  'spec.template.spec.ephemeralContainers': 'name',
  'spec.template.spec.volumes': 'name',
  'spec.template.spec.imagePullSecrets': 'name',
  'spec.template.spec.hostAliases': 'ip',
  'spec.template.spec.containers[].env': 'name',
  'spec.template.spec.containers[].ports': 'containerPort',
  'spec.template.spec.containers[].volumeMounts': 'mountPath',
  'spec.template.spec.containers[].volumeDevices': 'devicePath',
  'spec.template.spec.initContainers[].env': 'name',
  'spec.template.spec.initContainers[].ports': 'containerPort',
  'spec.template.spec.initContainers[].volumeMounts': 'mountPath',
};

const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVES = '$deleteFromPrimitiveList/';

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
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

function order(items: unknown[], wanted: unknown[], mergeKey: string): unknown[] {
  const identity = (item: unknown) => (mergeKey === '' ? item : isObject(item) ? item[mergeKey] : undefined);
  const position = (item: unknown) => wanted.findIndex((w) => jsonEqual(mergeKey === '' ? w : isObject(w) ? w[mergeKey] : undefined, identity(item)));
  const listed = items.filter((item) => position(item) >= 0).sort((a, b) => position(a) - position(b));
  return [...listed, ...items.filter((item) => position(item) < 0)];
}

function mergeList(original: unknown, patch: unknown[], mergeKey: string, path: string): unknown[] {
  const result = Array.isArray(original) ? clone(original) : [];
  if (mergeKey === '') {
    for (const item of patch) if (!result.some((r) => jsonEqual(r, item))) result.push(clone(item));
    return result;
  }
  for (const item of patch) {
    if (!isObject(item)) continue;
    const index = result.findIndex((r) => isObject(r) && jsonEqual(r[mergeKey], item[mergeKey]));
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (item.$patch === 'replace') {
      if (index >= 0) result[index] = withoutDirectives(item);
      else result.push(withoutDirectives(item));
    } else if (index >= 0) {
      result[index] = strategicMerge(result[index], item, `${path}[]`);
    } else {
      result.push(withoutDirectives(item));
    }
  }
  return result;
}

function strategicMerge(target: unknown, patch: unknown, path: string): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') return withoutDirectives(patch);
  let result: JsonObject = isObject(target) ? clone(target) : {};
  if (Array.isArray(patch.$retainKeys)) {
    const retained = new Set(patch.$retainKeys.map(String));
    result = Object.fromEntries(Object.entries(result).filter(([key]) => retained.has(key)));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(SET_ORDER)) continue;
    if (key.startsWith(DELETE_PRIMITIVES)) {
      const field = key.slice(DELETE_PRIMITIVES.length);
      const removed = Array.isArray(value) ? value : [];
      if (Array.isArray(result[field])) result[field] = (result[field] as unknown[]).filter((item) => !removed.some((r) => jsonEqual(r, item)));
      continue;
    }
    const fieldPath = at(path, key);
    if (value === null || (isObject(value) && value.$patch === 'delete')) {
      delete result[key];
    } else if (Array.isArray(value) && MERGE_KEYS[fieldPath] !== undefined) {
      result[key] = mergeList(result[key], value, MERGE_KEYS[fieldPath] ?? '', fieldPath);
    } else if (isObject(value)) {
      result[key] = strategicMerge(result[key], value, fieldPath);
    } else {
      result[key] = withoutDirectives(value);
    }
  }
  for (const [key, wanted] of Object.entries(patch)) {
    if (!key.startsWith(SET_ORDER) || !Array.isArray(wanted)) continue;
    const field = key.slice(SET_ORDER.length);
    const mergeKey = MERGE_KEYS[at(path, field)];
    if (Array.isArray(result[field]) && mergeKey !== undefined) result[field] = order(result[field] as unknown[], wanted, mergeKey);
  }
  return result;
}

export function strategicMergePatch(target: unknown, patch: JsonObject): unknown {
  return strategicMerge(target, patch, '');
}
