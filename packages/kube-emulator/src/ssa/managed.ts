// metadata.managedFields: who owns which fields, updated on every write the way the apiserver's
// fieldmanager and structured-merge-diff's merge.Updater do it. Update operations (create,
// replace, merge and JSON patch) take ownership of what they changed, away from everyone else;
// Apply takes ownership of exactly what it sends, prunes what it sent last time and nobody owns
// now, and fails on values others own unless forced.

import { canonicalJson } from '@occ/domain/content-hash';
import { StatusError } from '../errors.ts';
import { clone, isObject, jsonEqual, type JsonObject, type KubeObject } from '../types.ts';
import {
  difference,
  fromFieldsV1,
  intersection,
  ownsAtOrBelow,
  pathString,
  toFieldsV1,
  union,
  type FieldSet,
} from '@occ/domain/fieldsv1';
import type { MapSchema } from './schema.ts';
import { compare, hasPath, isSame, merge, removePath, toFieldSet, withNamedAncestors, type Comparison } from './typed.ts';

export type Operation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time: string;
  subresource: string;
  set: FieldSet;
}

/** Where a write lands: the main resource or a subresource (whose fields are tracked apart). */
export interface Scope {
  subresource?: 'status' | 'scale';
  /** The main resource of a kind with a status subresource ignores status. */
  statusIsSubresource: boolean;
  /** A /status write owns the annotations it changes too (Deployments; strategy.ts). */
  statusWritesAnnotations?: boolean;
}

/** Fields the apiserver never tracks (fieldmanager's stripMeta). */
const STRIPPED = new Set(
  [
    ['f:apiVersion'],
    ['f:kind'],
    ['f:metadata'],
    ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds'].map(
      (f) => ['f:metadata', `f:${f}`],
    ),
  ].map((elements) => elements.join('\u0000')),
);

const STATUS = 'f:status';
const ANNOTATIONS = 'f:metadata\u0000f:annotations';

function inScope(path: string, scope: Scope): boolean {
  if (STRIPPED.has(path)) return false;
  const isStatus = path === STATUS || path.startsWith(`${STATUS}\u0000`);
  const isAnnotation = path === ANNOTATIONS || path.startsWith(`${ANNOTATIONS}\u0000`);
  if (scope.subresource === 'status') return isStatus || (scope.statusWritesAnnotations === true && isAnnotation);
  return !(scope.statusIsSubresource && isStatus);
}

function scoped(set: FieldSet, scope: Scope): FieldSet {
  return new Set([...set].filter((path) => inScope(path, scope)));
}

function keyOf(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // Appliers keep one entry whatever the version they apply at; updaters one per version.
  return JSON.stringify([m.manager, m.operation, m.operation === 'Apply' ? '' : m.apiVersion, m.subresource]);
}

function decode(object: KubeObject | undefined): Map<string, Manager> {
  return decodeEntries(object?.metadata.managedFields) ?? new Map();
}

/**
 * The managers a list of entries names, or undefined when an entry is not one the apiserver can
 * decode (DecodeManagedFields: operation Apply or Update, an apiVersion, fieldsType FieldsV1).
 */
function decodeEntries(entries: unknown): Map<string, Manager> | undefined {
  const managers = new Map<string, Manager>();
  if (!Array.isArray(entries)) return managers;
  for (const entry of entries) {
    if (!isObject(entry)) return undefined;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') return undefined;
    if (typeof entry.apiVersion !== 'string' || entry.apiVersion === '') return undefined;
    if (entry.fieldsType !== 'FieldsV1') return undefined;
    if (entry.fieldsV1 !== undefined && entry.fieldsV1 !== null && !isObject(entry.fieldsV1)) return undefined;
    const manager: Manager = {
      manager: typeof entry.manager === 'string' ? entry.manager : '',
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      time: rfc3339(entry.time),
      subresource: typeof entry.subresource === 'string' ? entry.subresource : '',
      set: fromFieldsV1(entry.fieldsV1),
    };
    managers.set(keyOf(manager), manager);
  }
  return managers;
}

/** A time as metav1.Time writes it (seconds; a client may send milliseconds, as client-node does). */
function rfc3339(time: unknown): string {
  const millis = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return Number.isNaN(millis) ? '' : new Date(millis).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A request's managedFields that mean "clear them": an empty list, or a list of one empty entry. */
function isReset(requested: unknown): boolean {
  if (!Array.isArray(requested)) return false;
  if (requested.length === 0) return true;
  return requested.length === 1 && isObject(requested[0]) && Object.keys(requested[0]).length === 0;
}

/**
 * The managers an Update starts from (fieldmanager's decodeManagedFields): those the request sends,
 * so that a client can hand ownership over (kubectl's client-side to server-side apply migration)
 * or clear it; the stored ones when it sends none, sends what cannot be decoded, or writes a
 * subresource (whose requests cannot change managedFields).
 */
function startingManagers(request: UpdateRequest): { managers: Map<string, Manager>; fromRequest: boolean } {
  if (request.scope.subresource === undefined && request.requested !== undefined) {
    if (isReset(request.requested)) return { managers: new Map(), fromRequest: true };
    const requested = decodeEntries(request.requested);
    if (requested !== undefined && requested.size > 0) return { managers: requested, fromRequest: true };
  }
  return { managers: decode(request.stored), fromRequest: false };
}

function seconds(time: string): number {
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
}

/** Entries in the apiserver's order: Apply before Update, then by time, manager, version, subresource. */
function encode(managers: Map<string, Manager>): ManagedFieldsEntry[] {
  const list = [...managers.values()].filter((m) => m.set.size > 0);
  list.sort(
    (p, q) =>
      (p.operation === q.operation ? 0 : p.operation < q.operation ? -1 : 1) ||
      seconds(p.time) - seconds(q.time) ||
      (p.manager === q.manager ? 0 : p.manager < q.manager ? -1 : 1) ||
      (p.apiVersion === q.apiVersion ? 0 : p.apiVersion < q.apiVersion ? -1 : 1) ||
      (p.subresource === q.subresource ? 0 : p.subresource < q.subresource ? -1 : 1),
  );
  return list.map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    ...(m.time ? { time: m.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(m.set),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  }));
}

/** Keeps the previous timestamps when nothing but timestamps would change (no write then). */
function keepTimes(next: ManagedFieldsEntry[], previous: unknown): ManagedFieldsEntry[] | unknown[] {
  if (!Array.isArray(previous) || previous.length !== next.length) return next;
  const same = next.every((entry, i) => {
    const old = previous[i] as JsonObject | undefined;
    return old !== undefined && jsonEqual({ ...entry, time: '' }, { ...old, time: '' });
  });
  return same ? previous : next;
}

function withoutManagedFields(object: KubeObject | JsonObject): JsonObject {
  const copy: JsonObject = { ...object };
  if (isObject(copy.metadata)) {
    const { managedFields: _m, ...metadata } = copy.metadata;
    copy.metadata = metadata;
  }
  return copy;
}

function scopedComparison(comparison: Comparison, scope: Scope): Comparison {
  return {
    added: scoped(comparison.added, scope),
    removed: scoped(comparison.removed, scope),
    modified: scoped(comparison.modified, scope),
  };
}

interface Conflict {
  manager: Manager;
  path: string;
}

/**
 * merge.Updater.update: the fields an operation changed leave every other manager (a conflict
 * for an applier unless forced), and removed fields leave everyone.
 */
function takeOwnership(managers: Map<string, Manager>, actorKey: string, comparison: Comparison, force: boolean): void {
  const changed = union(comparison.modified, comparison.added);
  const conflicts: Conflict[] = [];
  for (const [key, manager] of managers) {
    if (key === actorKey) continue;
    for (const path of intersection(manager.set, changed)) conflicts.push({ manager, path });
  }
  if (!force && conflicts.length > 0) throw new ApplyConflicts(conflicts);
  for (const [key, manager] of managers) {
    if (key === actorKey) continue;
    manager.set = difference(difference(manager.set, changed), comparison.removed);
    if (manager.set.size === 0) managers.delete(key);
  }
}

/** An apply's conflicts, before they become the 409 (kubectl's last-applied hand-over may forgive them). */
class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

function printManager(m: Manager): string {
  let text = JSON.stringify(m.manager);
  if (m.subresource) text += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') text += ` using ${m.apiVersion}`;
  return text;
}

/** The 409 of a conflicting apply, worded as the apiserver's NewConflictError. */
function conflictError(conflicts: Conflict[]): StatusError {
  conflicts.sort((a, b) => (a.manager.manager < b.manager.manager ? -1 : a.manager.manager > b.manager.manager ? 1 : 0));
  let message: string;
  const first = conflicts[0] as Conflict;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${pathString(first.path)}`;
  } else {
    const byManager = new Map<string, Conflict[]>();
    for (const c of conflicts) byManager.set(printManager(c.manager), [...(byManager.get(printManager(c.manager)) ?? []), c]);
    const lines: string[] = [];
    for (const name of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${name}:`);
      for (const c of byManager.get(name) ?? []) lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, {
    causes: conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${printManager(c.manager)}`,
      field: pathString(c.path),
    })),
  });
}

export interface UpdateRequest {
  schema: MapSchema;
  /** The stored object, or the kind's zero object for a create. */
  old: KubeObject | JsonObject;
  /** Where the entries come from: the stored object (undefined for a create). */
  stored: KubeObject | undefined;
  next: KubeObject;
  /** metadata.managedFields as the request sent them (undefined when it sent none). */
  requested?: unknown;
  manager: string;
  apiVersion: string;
  scope: Scope;
  time: string;
}

/** The managedFields after an Update operation (merge.Updater.Update). */
export function managedFieldsAfterUpdate(request: UpdateRequest): ManagedFieldsEntry[] | unknown[] {
  const { scope } = request;
  const { managers, fromRequest } = startingManagers(request);
  const comparison = scopedComparison(
    compare(request.schema, withoutManagedFields(request.old), withoutManagedFields(request.next)),
    scope,
  );
  if (isSame(comparison)) return fromRequest ? encode(managers) : (request.stored?.metadata.managedFields ?? []);
  const actor: Manager = {
    manager: request.manager,
    operation: 'Update',
    apiVersion: request.apiVersion,
    time: request.time,
    subresource: scope.subresource ?? '',
    set: new Set(),
  };
  const actorKey = keyOf(actor);
  takeOwnership(managers, actorKey, comparison, true);
  const previous = managers.get(actorKey)?.set ?? new Set<string>();
  actor.set = union(difference(previous, comparison.removed), comparison.modified, comparison.added);
  managers.set(actorKey, actor);
  return keepTimes(encode(managers), request.stored?.metadata.managedFields);
}

export interface ApplyRequest {
  schema: MapSchema;
  /** The stored object; undefined when the apply creates it. */
  live: KubeObject | undefined;
  config: JsonObject;
  manager: string;
  apiVersion: string;
  force: boolean;
  scope: Scope;
  time: string;
}

export interface ApplyResult {
  object: KubeObject;
  managedFields: ManagedFieldsEntry[] | unknown[];
}

/** The manager kubectl applies as, and the annotation its client-side apply keeps. */
const KUBECTL = 'kubectl';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Server-side apply as the apiserver's field manager chain runs it. For kubectl's own manager two
 * links take part in the move from client-side apply (fieldmanager's lastAppliedManager and
 * lastAppliedUpdater): conflicts on fields the last-applied annotation still holds with their live
 * values are forgiven (the apply is forced), and an object that has the annotation gets it
 * rewritten to the applied configuration, so that a later client-side apply sees what was applied.
 */
export function apply(request: ApplyRequest): ApplyResult {
  let result: ApplyResult;
  try {
    result = applyOnce(request);
  } catch (error) {
    if (!(error instanceof ApplyConflicts)) throw error;
    const allowed = request.manager === KUBECTL ? allowedByLastApplied(request) : undefined;
    const remaining = allowed ? error.conflicts.filter((c) => !allowed.has(c.path)) : error.conflicts;
    if (remaining.length > 0) throw conflictError(remaining);
    result = applyOnce({ ...request, force: true });
  }
  if (request.manager === KUBECTL) syncLastApplied(result.object, request.config);
  return result;
}

function lastAppliedOf(object: KubeObject | JsonObject | undefined): string | undefined {
  const annotations = isObject(object?.metadata) ? object.metadata.annotations : undefined;
  const text = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
  return typeof text === 'string' && text !== '' ? text : undefined;
}

/** The fields the last-applied annotation holds with the values they have live (allowedConflictsFromLastApplied). */
function allowedByLastApplied(request: ApplyRequest): FieldSet | undefined {
  const text = lastAppliedOf(request.live);
  if (text === undefined || request.live === undefined) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== request.apiVersion) return undefined;
  const comparison = compare(request.schema, lastApplied, withoutManagedFields(request.live));
  return difference(difference(difference(toFieldSet(request.schema, lastApplied), comparison.modified), comparison.added), comparison.removed);
}

/**
 * The annotation rewritten to the applied configuration without the annotation itself, as Go's
 * encoding/json writes it (keys sorted, <, > and & escaped, a newline at the end).
 */
function syncLastApplied(object: KubeObject, config: JsonObject): void {
  if (lastAppliedOf(object) === undefined) return;
  const applied = clone(config);
  if (isObject(applied.metadata) && isObject(applied.metadata.annotations)) delete applied.metadata.annotations[LAST_APPLIED];
  const text = canonicalJson(applied).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  (object.metadata.annotations as Record<string, string>)[LAST_APPLIED] = `${text}\n`;
}

/** merge.Updater.Apply: merge, record the applier's set, prune, then take ownership. */
function applyOnce(request: ApplyRequest): ApplyResult {
  const { schema, scope } = request;
  const live = request.live ? withoutManagedFields(request.live) : {};
  const config = clone(request.config);
  if (scope.subresource === 'status') {
    for (const key of Object.keys(config)) if (!['apiVersion', 'kind', 'metadata', 'status'].includes(key)) delete config[key];
  } else if (scope.statusIsSubresource) {
    delete config.status;
  }
  const managers = decode(request.live);
  const actor: Manager = {
    manager: request.manager,
    operation: 'Apply',
    apiVersion: request.apiVersion,
    time: request.time,
    subresource: scope.subresource ?? '',
    set: scoped(toFieldSet(schema, config), scope),
  };
  const actorKey = keyOf(actor);
  const lastSet = managers.get(actorKey)?.set;
  managers.set(actorKey, actor);

  const merged = merge(schema, live, config);
  if (lastSet && lastSet.size > 0) {
    // Prune what this applier set before and sends no more, unless someone still owns it or
    // something under it (that is what keeps items other managers own).
    const owned = union(...[...managers.values()].map((m) => m.set));
    // A field the configuration still sends stays, emptied if need be (structured-merge-diff adds
    // back what the applied configuration holds: addBackDanglingItems); only its items go.
    const candidates = [...scoped(withNamedAncestors(schema, lastSet), scope)].filter((p) => !ownsAtOrBelow(owned, p) && (lastSet.has(p) || !hasPath(schema, config, p)));
    candidates.sort((a, b) => a.length - b.length);
    for (const path of candidates) removePath(schema, merged, path);
  }
  const comparison = scopedComparison(compare(schema, live, merged), scope);
  takeOwnership(managers, actorKey, comparison, request.force);
  if (actor.set.size === 0) managers.delete(actorKey);
  return {
    object: merged as KubeObject,
    managedFields: keepTimes(encode(managers), request.live?.metadata.managedFields),
  };
}
