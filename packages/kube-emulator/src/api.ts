// The API layer: the verbs of a Kubernetes API server over the store, independent of HTTP.
// It runs the flow every kind shares (metadata, preconditions, resourceVersion checks,
// generation, status subresource, finalizers, watch filtering) and asks the kind's strategy for
// what differs. Every failure is a StatusError carrying the body the real server would send.

import { randomUUID } from 'node:crypto';
import {
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  invalid,
  invalidValue,
  notFound,
  OBJECT_MODIFIED,
  patchRejected,
  required,
  StatusError,
  tooLong,
  unsupportedMediaType,
  type FieldError,
  type StatusBody,
} from './errors.ts';
import { decodeTypeError } from './decode-types.ts';
import { checkFields, type FieldValidation } from './field-validation.ts';
import { toScale } from './kinds/apps.ts';
import { strategyFor } from './kinds/lookup.ts';
import type { Strategy, StrategyContext } from './kinds/strategy.ts';
import { MAX_DEPTH_MESSAGE, nestsDeeperThan } from './nesting.ts';
import { capturedNameOf, kindSchema } from './openapi-docs.ts';
import { applyJsonPatch, decodeJsonPatch, JsonPatchError, mergePatch } from './patch.ts';
import { strategicMergePatch } from './strategic-patch.ts';
import { apply as applyConfiguration, managedFieldsAfterUpdate, type Scope } from './ssa/managed.ts';
import { schemaFor, zeroObject } from './ssa/schema.ts';
import {
  apiVersionOf,
  groupKindOf,
  groupResourceOf,
  NAMESPACES,
  storageKeyOf,
  type ResourceRegistry,
  type ResourceType,
} from './registry.ts';
import {
  checkFieldSelector,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldGetter,
} from './selectors.ts';
import type { ObjectStore, StoreEvent } from './store.ts';
import { clone, isObject, jsonEqual, kubeTimestamp, type JsonObject, type KubeObject } from './types.ts';
import { labelValue, qualifiedName } from './validation.ts';

/** What a request addresses: a collection (no name) or one object, maybe a subresource of it. */
export interface Target {
  type: ResourceType;
  /** For namespaced types; undefined on a collection means all namespaces. */
  namespace?: string;
  name?: string;
  /** `log` (pods/log) is read by pod-log.ts, never by the verbs here. */
  subresource?: 'status' | 'scale' | 'log';
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** The fieldManager parameter; required for apply. */
  fieldManager?: string;
  /** Names the manager of an Update without fieldManager: the part before its first "/". */
  userAgent?: string;
  /** Apply takes ownership of conflicting fields. */
  force?: boolean;
  /** What to do about fields the schema does not declare (Warn when absent). */
  fieldValidation?: FieldValidation;
  /** Receives the Warning texts of the request (unknown fields under Warn). */
  warnings?: string[];
}

const FIELD_MANAGER_MAX_LENGTH = 128;

/** The manager an Update operation is recorded under (the apiserver's managerOrUserAgent). */
export function managerOf(options: WriteOptions): string {
  if (options.fieldManager) return options.fieldManager;
  let name = '';
  for (const ch of (options.userAgent ?? '').split('/')[0] ?? '') {
    if (!/\P{C}/u.test(ch)) continue;
    if (name.length + ch.length > FIELD_MANAGER_MAX_LENGTH) break;
    name += ch;
  }
  return name;
}

type ManagedFields = unknown[];

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** What happens to the object's dependents (ownerReferences naming it): Background when absent. */
  propagationPolicy?: PropagationPolicy;
}

/** The finalizers the garbage collector acts on (gc.ts). */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}

/** What the generic store answers a DELETE with: it names the object, the HTTP status says 200. */
export interface SuccessStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success';
  details: { name: string; group?: string; kind: string; uid: string };
}

export type WatchStart = { kind: 'watching'; stop: () => void } | { kind: 'expired'; status: StatusBody };

const MAX_ANNOTATIONS_SIZE = 256 * 1024;
const GENERATE_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_BASE = 58;

/** The etcd key a real server would name in storage errors. */
function etcdKey(type: ResourceType, namespace: string | undefined, name: string): string {
  // Built-in kinds live under their resource name alone; CRDs and custom resources under group/resource.
  const byGroup = type.crdName !== undefined || type.group === 'apiextensions.k8s.io';
  const parts = ['/registry', byGroup ? storageKeyOf(type) : type.plural];
  if (namespace) parts.push(namespace);
  parts.push(name);
  return parts.join('/');
}

/** Object keys in Go's encoding/json map order (sorted by code unit), at every depth. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out;
}

function present(type: ResourceType, object: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = object;
  const typed = { kind: type.kind, apiVersion: apiVersionOf(type), metadata, ...rest };
  // A custom resource is an unstructured map on a real server, written back with json.Marshal:
  // every level's keys come out sorted, whatever order the client sent.
  return type.crdName === undefined ? typed : (sortedKeys(typed) as KubeObject);
}

/** Everything that counts for metadata.generation: all but metadata and status, and the annotations where the kind says so. */
function generationContent(object: KubeObject, strategy: Strategy): JsonObject {
  const { apiVersion: _a, kind: _k, metadata, status: _s, ...rest } = object;
  return strategy.generationCountsAnnotations ? { ...rest, annotations: metadata.annotations ?? {} } : rest;
}

function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += GENERATE_NAME_CHARS[Math.floor(Math.random() * GENERATE_NAME_CHARS.length)];
  return out;
}

/** Go's omitempty: empty maps and lists in metadata are not stored or served. */
function dropEmptyMetadata(object: KubeObject): void {
  const meta = object.metadata;
  for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields']) {
    const value = meta[key];
    if (value === null || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0)) {
      delete meta[key];
    }
  }
}

function validateMetadata(object: KubeObject, strategy: Strategy): FieldError[] {
  const meta = object.metadata;
  const errors: FieldError[] = [];
  if (meta.name === undefined || meta.name === '') {
    errors.push(required('metadata.name', 'name or generateName is required'));
  } else {
    errors.push(...strategy.validateName(meta.name).map((m) => invalidValue('metadata.name', meta.name, m)));
  }
  if (meta.labels !== undefined) {
    if (!isObject(meta.labels)) throw badRequest('metadata.labels must be a map of strings');
    for (const [key, value] of Object.entries(meta.labels)) {
      errors.push(...qualifiedName(key).map((m) => invalidValue('metadata.labels', key, m)));
      if (typeof value !== 'string') throw badRequest(`json: cannot unmarshal ${typeof value} into Go struct field ObjectMeta.metadata.labels of type string`);
      errors.push(...labelValue(value).map((m) => invalidValue('metadata.labels', value, m)));
    }
  }
  if (meta.annotations !== undefined) {
    if (!isObject(meta.annotations)) throw badRequest('metadata.annotations must be a map of strings');
    let size = 0;
    for (const [key, value] of Object.entries(meta.annotations)) {
      errors.push(...qualifiedName(key.toLowerCase()).map((m) => invalidValue('metadata.annotations', key, m)));
      if (typeof value !== 'string') throw badRequest(`json: cannot unmarshal ${typeof value} into Go struct field ObjectMeta.metadata.annotations of type string`);
      size += key.length + value.length;
    }
    if (size > MAX_ANNOTATIONS_SIZE) errors.push(tooLong('metadata.annotations', `must have at most ${MAX_ANNOTATIONS_SIZE} bytes`));
  }
  return errors;
}

/**
 * How a list refuses a field selector on a field the kind does not index: in the kind's own words
 * where its conversion function has them (a Job's); `field label not supported` for a kind with
 * field labels of its own (Pods, Secrets, Namespaces, Events) and for custom resources; and, for a
 * kind with only metadata.name and metadata.namespace, as apimachinery's
 * DefaultMetaV1FieldSelectorConversion words it (ConfigMaps, Deployments, ReplicaSets, Roles …).
 */
function fieldLabelRefusal(type: ResourceType, strategy: Strategy): (field: string) => string {
  if (strategy.fieldLabelRefusal) return strategy.fieldLabelRefusal;
  if (type.crdName !== undefined || Object.keys(strategy.fieldLabels).length > 0) return (field) => `field label not supported: ${field}`;
  return (field) => `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

export class KubeApi {
  private readonly context: StrategyContext;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    /** Stamps managedFields times; tests fix it so that entries sort the same way every run. */
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.context = { store, registry };
  }

  get(target: Target): KubeObject {
    const { type } = target;
    const object = this.mustGet(target);
    return target.subresource === 'scale' ? toScale(object) : present(type, object);
  }

  list(target: Target, options: ListOptions = {}): KubeObject {
    const { type } = target;
    const matches = this.matcher(target, options.labelSelector, options.fieldSelector);
    let items = this.store.list(storageKeyOf(type), type.namespaced ? target.namespace : undefined).filter(matches);
    const resourceVersion = String(this.store.resourceVersion);
    const listMeta: JsonObject = { resourceVersion };
    if (options.continueToken) {
      const start = this.decodeContinue(options.continueToken);
      items = items.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}` > start);
    }
    if (options.limit !== undefined && options.limit > 0 && items.length > options.limit) {
      const remaining = items.length - options.limit;
      items = items.slice(0, options.limit);
      const last = items[items.length - 1];
      listMeta.continue = Buffer.from(
        JSON.stringify({ v: 'occ.emulator/v1', start: `${last?.metadata.namespace ?? ''}/${last?.metadata.name ?? ''}` }),
      ).toString('base64url');
      listMeta.remainingItemCount = remaining;
    }
    return {
      kind: type.listKind,
      apiVersion: apiVersionOf(type),
      metadata: listMeta,
      // A real server leaves kind and apiVersion out of built-in list items; custom resources keep them.
      items: items.map((o) => (type.crdName === undefined ? this.bare(o) : present(type, o))),
    };
  }

  create(target: Target, body: unknown, options: WriteOptions = {}, managed?: ManagedFields): KubeObject {
    const { type } = target;
    const strategy = strategyFor(type);
    const object = this.decode(type, body);
    this.checkFields(target, object, options);
    this.placeInNamespace(target, object);
    if (object.metadata.resourceVersion) {
      throw internalError('resourceVersion should not be set on objects to be created');
    }
    if (type.namespaced) this.requireNamespace(target.namespace ?? '');
    if (!object.metadata.name && object.metadata.generateName) {
      object.metadata.name = `${object.metadata.generateName.slice(0, MAX_GENERATED_BASE)}${randomSuffix()}`;
    }
    const meta = object.metadata;
    meta.uid = randomUUID();
    meta.creationTimestamp = kubeTimestamp();
    // Kinds that track generation start it at 1; the others keep whatever the client sent, as the
    // generic store does (rest.BeforeCreate leaves it; E8: a real server stores a ConfigMap's 3).
    if (strategy.hasGeneration) meta.generation = 1;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (type.subresources.status) delete object.status;
    strategy.prepareForCreate?.(object, type);
    dropEmptyMetadata(object);
    this.validate(type, strategy, object, undefined);
    const name = meta.name ?? '';
    if (this.store.get(storageKeyOf(type), meta.namespace, name)) throw alreadyExists(groupResourceOf(type), name);
    const typed = present(type, object);
    this.setManagedFields(
      typed,
      managed ??
        managedFieldsAfterUpdate({
          schema: schemaFor(type),
          old: zeroObject(type),
          stored: undefined,
          next: typed,
          requested: object.metadata.managedFields,
          manager: managerOf(options),
          apiVersion: apiVersionOf(type),
          scope: this.scopeOf(target),
          time: kubeTimestamp(this.clock()),
        }),
    );
    if (options.dryRun) return typed;
    const stored = this.store.create(storageKeyOf(type), typed);
    strategy.afterWrite?.(stored, this.context);
    return present(type, stored);
  }

  replace(target: Target, body: unknown, options: WriteOptions = {}): KubeObject {
    const { type } = target;
    const incoming = this.decode(type, body, target.subresource === 'scale');
    this.checkFields(target, incoming, options);
    const old = this.store.get(storageKeyOf(type), this.namespaceOf(target), target.name ?? '');
    if (!old) {
      if (target.subresource === undefined && strategyFor(type).allowCreateOnUpdate) {
        this.checkNameMatches(target, incoming);
        return this.create({ ...target, name: undefined }, incoming, options);
      }
      throw this.notFound(target);
    }
    return this.update(target, old, incoming, options);
  }

  patch(target: Target, patchType: PatchType, patch: unknown, options: WriteOptions = {}): KubeObject {
    const { type } = target;
    // A custom resource has no Go struct to carry patch merge keys: a real server refuses a
    // strategic merge patch on it (and on its subresources) before it looks the object up.
    if (patchType === 'strategic' && type.crdName !== undefined) {
      throw unsupportedMediaType(
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    }
    if (patchType === 'apply') return this.apply(target, patch, options);
    const old = this.mustGet(target);
    const current = target.subresource === 'scale' ? toScale(old) : present(type, old);
    let patched: unknown;
    if (patchType === 'json') {
      let operations;
      try {
        operations = decodeJsonPatch(patch);
      } catch (error) {
        throw badRequest((error as Error).message);
      }
      try {
        patched = applyJsonPatch(current, operations);
      } catch (error) {
        if (error instanceof JsonPatchError) throw patchRejected();
        throw error;
      }
    } else {
      if (!isObject(patch)) throw badRequest('json: cannot unmarshal array into Go value of type map[string]interface {}');
      // Built-in kinds merge lists by their patch merge keys and obey kubectl's directives.
      patched = patchType === 'strategic' ? strategicMergePatch(current, patch, target.subresource === 'scale' ? undefined : kindSchema(type)) : mergePatch(current, patch);
    }
    const incoming = this.decode(type, patched, target.subresource === 'scale');
    this.checkFields(target, incoming, options, patch);
    return this.update(target, old, incoming, options);
  }

  exists(target: Target): boolean {
    return this.store.get(storageKeyOf(target.type), this.namespaceOf(target), target.name ?? '') !== undefined;
  }

  /** Server-side apply: merge by the schema, own what was sent, prune what was dropped. */
  apply(target: Target, patch: unknown, options: WriteOptions = {}): KubeObject {
    if (!options.fieldManager) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [required('fieldManager', 'is required for apply patch')]);
    }
    if (options.fieldManager.length > FIELD_MANAGER_MAX_LENGTH) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
        tooLong('fieldManager', `must be no more than ${FIELD_MANAGER_MAX_LENGTH} characters`),
      ]);
    }
    if (target.subresource === 'scale') throw unsupportedMediaType('apply is not supported on the scale subresource');
    const { type } = target;
    const config = this.decode(type, patch);
    this.checkFields(target, config, options);
    this.checkNameMatches(target, config);
    const existing = this.store.get(storageKeyOf(type), this.namespaceOf(target), target.name ?? '');
    if (!existing && target.subresource !== undefined) throw this.notFound(target);
    const result = applyConfiguration({
      schema: schemaFor(type),
      live: existing ? present(type, existing) : undefined,
      config,
      manager: options.fieldManager,
      apiVersion: apiVersionOf(type),
      force: options.force === true,
      scope: this.scopeOf(target),
      time: kubeTimestamp(this.clock()),
    });
    const merged = this.decode(type, result.object);
    if (!existing) return this.create({ ...target, name: undefined }, merged, options, result.managedFields);
    return this.update(target, existing, merged, options, result.managedFields);
  }

  delete(target: Target, options: DeleteOptions = {}): KubeObject | SuccessStatus {
    const { type } = target;
    const strategy = strategyFor(type);
    const old = this.mustGet(target);
    const refused = strategy.checkDelete?.(old, type);
    if (refused) throw refused;
    const { uid, resourceVersion } = options.preconditions ?? {};
    const actualUid = old.metadata.uid ?? '';
    const actualRv = old.metadata.resourceVersion ?? '';
    if (uid !== undefined && uid !== null && uid !== actualUid) {
      throw this.preconditionFailed(
        type,
        strategy,
        old,
        `UID in precondition: ${uid}, UID in object meta: ${actualUid}`,
        `the UID in the precondition (${uid}) does not match the UID in record (${actualUid}). The object might have been deleted and then recreated`,
      );
    }
    if (resourceVersion !== undefined && resourceVersion !== null && resourceVersion !== actualRv) {
      throw this.preconditionFailed(
        type,
        strategy,
        old,
        `ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${actualRv}`,
        `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${actualRv}). The object might have been modified`,
      );
    }
    if (options.dryRun) return this.deleteResponse(type, strategy, old);
    // Orphan and Foreground hold the object with the garbage collector's finalizer until it has
    // released (orphan) or deleted (foreground) the dependents; the generic store adds it
    // whether or not there are any (k8s.io/apiserver/pkg/registry/generic/registry/store.go,
    // updateForGracefulDeletionAndFinalizers).
    const gcFinalizer =
      options.propagationPolicy === 'Orphan' ? ORPHAN_FINALIZER : options.propagationPolicy === 'Foreground' ? FOREGROUND_FINALIZER : undefined;
    if (gcFinalizer && !old.metadata.deletionTimestamp) {
      const marked = clone(old);
      const others = (marked.metadata.finalizers ?? []).filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
      marked.metadata.finalizers = [...others, gcFinalizer];
      marked.metadata.deletionTimestamp = kubeTimestamp();
      marked.metadata.deletionGracePeriodSeconds = 0;
      return present(type, this.store.update(storageKeyOf(type), marked));
    }
    if ((old.metadata.finalizers ?? []).length > 0) {
      // Finalizers hold the object until an update removes the last one.
      if (old.metadata.deletionTimestamp) return present(type, old);
      const marked = clone(old);
      marked.metadata.deletionTimestamp = kubeTimestamp();
      marked.metadata.deletionGracePeriodSeconds = 0;
      return present(type, this.store.update(storageKeyOf(type), marked));
    }
    return this.deleteResponse(type, strategy, this.remove(type, strategy, old));
  }

  deleteCollection(target: Target, listOptions: ListOptions, options: DeleteOptions = {}): KubeObject {
    const list = this.list(target, { labelSelector: listOptions.labelSelector, fieldSelector: listOptions.fieldSelector });
    const items = list.items as KubeObject[];
    for (const item of items) this.delete({ ...target, namespace: item.metadata.namespace, name: item.metadata.name }, options);
    return { ...list, metadata: { resourceVersion: String(this.store.resourceVersion) }, items };
  }

  /**
   * Starts a watch: replays what happened after `resourceVersion` (or the current state as ADDED
   * events when none is given), then streams live writes until `stop`.
   */
  watch(target: Target, options: WatchOptions, emit: (event: WatchEvent) => void): WatchStart {
    const { type } = target;
    const storageKey = storageKeyOf(type);
    const matches = this.matcher(target, options.labelSelector, options.fieldSelector);
    const translate = (event: StoreEvent): WatchEvent | undefined => {
      if (event.storageKey !== storageKey) return undefined;
      const now = matches(event.object);
      const before = event.type !== 'ADDED' && event.previous !== undefined && matches(event.previous);
      if (event.type === 'DELETED') return before || now ? { type: 'DELETED', object: present(type, event.object) } : undefined;
      if (now && before) return { type: 'MODIFIED', object: present(type, event.object) };
      if (now) return { type: 'ADDED', object: present(type, event.object) };
      if (before && event.previous) {
        // Left the selection: a real server reports the last matching state as DELETED.
        const last = clone(event.previous);
        last.metadata.resourceVersion = String(event.resourceVersion);
        return { type: 'DELETED', object: present(type, last) };
      }
      return undefined;
    };
    const rv = options.resourceVersion ?? '';
    if (rv === '' || rv === '0') {
      const current = this.store.list(storageKey, type.namespaced ? target.namespace : undefined).filter(matches);
      for (const object of current) emit({ type: 'ADDED', object: present(type, object) });
      if (options.sendInitialEvents && options.allowWatchBookmarks) {
        emit({
          type: 'BOOKMARK',
          object: {
            kind: type.kind,
            apiVersion: apiVersionOf(type),
            metadata: {
              resourceVersion: String(this.store.resourceVersion),
              annotations: { 'k8s.io/initial-events-end': 'true' },
            },
          },
        });
      }
    } else {
      if (!/^\d+$/.test(rv)) throw badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: must be a valid integer`);
      const history = this.store.eventsSince(Number(rv));
      if (history.kind === 'expired') {
        return {
          kind: 'expired',
          status: new StatusError(410, 'Expired', `too old resource version: ${rv} (${history.oldest})`).status,
        };
      }
      for (const event of history.events) {
        const translated = translate(event);
        if (translated) emit(translated);
      }
    }
    const unsubscribe = this.store.subscribe((event) => {
      const translated = translate(event);
      if (translated) emit(translated);
    });
    return { kind: 'watching', stop: unsubscribe };
  }

  /**
   * A BOOKMARK carrying the current resourceVersion: a watcher that asked for bookmarks can resume
   * from it without replaying events that never concerned it.
   */
  bookmark(target: Target): WatchEvent {
    const { type } = target;
    return { type: 'BOOKMARK', object: { kind: type.kind, apiVersion: apiVersionOf(type), metadata: { resourceVersion: String(this.store.resourceVersion) } } };
  }

  /** Registers the resources of CRDs already in the store (after loading a data file). */
  restoreCustomResources(): void {
    const crdType = this.registry.find('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (!crdType) return;
    const strategy = strategyFor(crdType);
    for (const crd of this.store.list(storageKeyOf(crdType))) strategy.afterWrite?.(crd, this.context);
  }

  /** Creates a CRD, or brings a stored one of the same name to this spec (preloaded definitions). */
  install(crd: KubeObject): void {
    const type = this.registry.find('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (!type) return;
    const target: Target = { type, name: crd.metadata.name };
    const options = { fieldManager: 'kube-emulator' };
    const existing = this.store.get(storageKeyOf(type), undefined, crd.metadata.name ?? '');
    if (!existing) this.create({ type }, crd, options);
    else if (!jsonEqual(existing.spec, crd.spec)) {
      this.replace(target, { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } }, options);
    }
  }

  /** Creates a namespace unless it exists (the server's built-in namespaces). */
  ensureNamespace(name: string): void {
    if (this.store.get(storageKeyOf(NAMESPACES), undefined, name)) return;
    this.create({ type: NAMESPACES }, { metadata: { name } }, { fieldManager: 'kube-apiserver' });
  }

  /** fieldValidation: unknown fields leave the object; Strict refuses, Warn reports them (field-validation.ts). */
  private checkFields(target: Target, object: KubeObject, options: WriteOptions, patch?: unknown): void {
    if (target.subresource === 'scale') return;
    this.checkTypes(target.type, object, patch);
    const texts = checkFields(target.type, object, options.fieldValidation ?? 'Warn');
    options.warnings?.push(...texts);
  }

  /**
   * A built-in kind's body must decode into its Go struct (decode-types.ts): a body sent whole is
   * refused as the decoder refuses it (400), a patch whose result does not decode as the patch
   * handler refuses it (422, naming `patch`; the value shown is the patch, not the patched object).
   */
  private checkTypes(type: ResourceType, object: KubeObject, patch: unknown): void {
    const kindName = capturedNameOf(type);
    const error = kindName === undefined ? undefined : decodeTypeError(kindName, object);
    if (error === undefined) return;
    if (patch !== undefined) throw invalid({ group: '', kind: '' }, '', [invalidValue('patch', JSON.stringify(patch), error)]);
    throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${error}`);
  }

  private scopeOf(target: Target): Scope {
    return {
      subresource: target.subresource === 'log' ? undefined : target.subresource,
      statusIsSubresource: target.type.subresources.status,
      statusWritesAnnotations: strategyFor(target.type).statusWritesAnnotations === true,
    };
  }

  private setManagedFields(object: KubeObject, managed: ManagedFields): void {
    if (managed.length > 0) object.metadata.managedFields = managed;
    else delete object.metadata.managedFields;
  }

  private update(target: Target, old: KubeObject, incoming: KubeObject, options: WriteOptions, managed?: ManagedFields): KubeObject {
    const { type } = target;
    const strategy = strategyFor(type);
    const name = old.metadata.name ?? '';
    // Read before the stored metadata replaces it: a client may hand ownership over or clear it.
    const requested = incoming.metadata.managedFields;
    this.checkNameMatches(target, incoming);
    if (type.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== old.metadata.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    // The storage layer checks a uid in the body as a precondition, before the resourceVersion.
    if (incoming.metadata.uid && incoming.metadata.uid !== old.metadata.uid) {
      const key = etcdKey(type, old.metadata.namespace, name);
      throw conflict(
        groupResourceOf(type),
        name,
        `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${incoming.metadata.uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
      );
    }
    const incomingRv = incoming.metadata.resourceVersion;
    if (incomingRv && incomingRv !== old.metadata.resourceVersion) throw conflict(groupResourceOf(type), name, OBJECT_MODIFIED);
    if (!incomingRv && !strategy.allowUnconditionalUpdate && target.subresource === undefined) {
      // The generic store's Update names the resource (not the kind) and shows the parsed
      // resourceVersion, a uint64 0 that Go's %#v prints as 0x0
      // (k8s.io/apiserver/pkg/registry/generic/registry/store.go, Update).
      throw invalid({ group: type.group, kind: type.plural }, name, [
        { ...invalidValue('metadata.resourceVersion', 0, 'must be specified for an update'), valueText: '0x0' },
      ]);
    }

    let next: KubeObject;
    if (target.subresource === 'status') {
      next = clone(old);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
      if (strategy.statusWritesAnnotations) {
        if (incoming.metadata.annotations === undefined) delete next.metadata.annotations;
        else next.metadata.annotations = incoming.metadata.annotations;
      }
      strategy.prepareForStatusUpdate?.(next, old, type);
    } else if (target.subresource === 'scale') {
      next = clone(old);
      const replicas = isObject(incoming.spec) ? incoming.spec.replicas : undefined;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
          invalidValue('spec.replicas', replicas ?? null, 'must be greater than or equal to 0'),
        ]);
      }
      next.spec = { ...(isObject(old.spec) ? old.spec : {}), replicas };
    } else {
      next = incoming;
      if (type.subresources.status) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      next.metadata = {
        ...incoming.metadata,
        name: old.metadata.name,
        namespace: old.metadata.namespace,
        uid: old.metadata.uid,
        creationTimestamp: old.metadata.creationTimestamp,
        generation: old.metadata.generation,
        deletionTimestamp: old.metadata.deletionTimestamp,
        deletionGracePeriodSeconds: old.metadata.deletionGracePeriodSeconds,
        managedFields: old.metadata.managedFields,
      };
      strategy.prepareForUpdate?.(next, old, type);
    }
    for (const key of Object.keys(next.metadata)) if (next.metadata[key] === undefined) delete next.metadata[key];
    dropEmptyMetadata(next);
    if (!next.metadata.namespace) delete next.metadata.namespace;

    const errors = this.validationErrors(strategy, type, next, old);
    if (old.metadata.deletionTimestamp) {
      const added = (next.metadata.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
      if (added.length > 0) {
        errors.push({
          type: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        });
      }
    }
    if (errors.length > 0) throw invalid(groupKindOf(type), name, errors);

    const typed = present(type, next);
    typed.metadata.resourceVersion = old.metadata.resourceVersion;
    this.setManagedFields(
      typed,
      managed ??
        managedFieldsAfterUpdate({
          schema: schemaFor(type),
          old: present(type, old),
          stored: old,
          next: typed,
          requested,
          manager: managerOf(options),
          apiVersion: apiVersionOf(type),
          scope: this.scopeOf(target),
          time: kubeTimestamp(this.clock()),
        }),
    );
    if (!strategy.hasGeneration) {
      // rest.BeforeUpdate: a client cannot change the generation; the stored one (if any) stays.
      if (old.metadata.generation === undefined) delete typed.metadata.generation;
      else typed.metadata.generation = old.metadata.generation;
    } else if (target.subresource !== 'status' && !jsonEqual(generationContent(typed, strategy), generationContent(old, strategy))) {
      // A status strategy never bumps the generation, whatever metadata it lets through.
      typed.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    // An update that changes nothing is not written: same resourceVersion, no watch event.
    if (jsonEqual(typed, present(type, old))) return this.respond(target, typed);
    if (options.dryRun) return this.respond(target, typed);
    if (typed.metadata.deletionTimestamp && (typed.metadata.finalizers ?? []).length === 0) {
      // Removing the last finalizer of an object being deleted deletes it (one DELETED event).
      return this.respond(target, this.remove(type, strategy, typed));
    }
    const stored = this.store.update(storageKeyOf(type), typed);
    strategy.afterWrite?.(stored, this.context);
    return this.respond(target, stored);
  }

  private respond(target: Target, object: KubeObject): KubeObject {
    return target.subresource === 'scale' ? toScale(object) : present(target.type, object);
  }

  private remove(type: ResourceType, strategy: Strategy, object: KubeObject): KubeObject {
    const { namespace, name = '' } = object.metadata;
    strategy.beforeDelete?.(object, this.context);
    const current = this.store.get(storageKeyOf(type), namespace, name);
    // beforeDelete may have rewritten the object (a namespace turns Terminating); keep what it wrote.
    const final = current && current.metadata.resourceVersion !== object.metadata.resourceVersion ? current : object;
    const last = this.store.delete(storageKeyOf(type), namespace, name, final) ?? object;
    strategy.afterDelete?.(last, this.context);
    return last;
  }

  private deleteResponse(type: ResourceType, strategy: Strategy, object: KubeObject): KubeObject | SuccessStatus {
    if (strategy.deleteReturnsObject) return present(type, object);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: object.metadata.name ?? '',
        ...(type.group ? { group: type.group } : {}),
        kind: type.plural,
        uid: object.metadata.uid ?? '',
      },
    };
  }

  /**
   * A failed delete precondition. Kinds with their own REST Delete (namespaces, CRDs) word it
   * "Precondition failed: …" on the plural resource; the generic store fails earlier, in
   * rest.BeforeDelete, naming the Kind.
   */
  private preconditionFailed(type: ResourceType, strategy: Strategy, old: KubeObject, ownWording: string, genericWording: string): StatusError {
    const name = old.metadata.name ?? '';
    if (strategy.ownDeleteHandler) return conflict(groupResourceOf(type), name, `Precondition failed: ${ownWording}`);
    return conflict({ group: type.group, resource: type.kind }, name, genericWording);
  }

  private validate(type: ResourceType, strategy: Strategy, object: KubeObject, old: KubeObject | undefined): void {
    const errors = this.validationErrors(strategy, type, object, old);
    if (errors.length > 0) throw invalid(groupKindOf(type), object.metadata.name ?? '', errors);
  }

  private validationErrors(strategy: Strategy, type: ResourceType, object: KubeObject, old: KubeObject | undefined): FieldError[] {
    return [...validateMetadata(object, strategy), ...(strategy.validate?.(object, old, type) ?? [])];
  }

  /** Checks the body is an object of this resource's kind and gives it metadata. */
  private decode(type: ResourceType, body: unknown, scale = false): KubeObject {
    const expectedKind = scale ? 'Scale' : type.kind;
    const expectedVersion = scale ? 'autoscaling/v1' : apiVersionOf(type);
    if (!isObject(body)) {
      throw badRequest(`${expectedKind} in version "${type.version}" cannot be handled as a ${expectedKind}: the object provided is not a JSON object`);
    }
    // A patch result can nest deeper than either of its inputs: refused before it is cloned or walked.
    if (nestsDeeperThan(body)) throw badRequest(`${expectedKind} in version "${type.version}" cannot be handled as a ${expectedKind}: ${MAX_DEPTH_MESSAGE}`);
    const object = clone(body) as KubeObject;
    if (object.kind !== undefined && object.kind !== '' && object.kind !== expectedKind) {
      throw badRequest(`${String(object.kind)} in version "${type.version}" cannot be handled as a ${expectedKind}: no kind "${String(object.kind)}" is registered for version "${expectedVersion}"`);
    }
    if (object.apiVersion !== undefined && object.apiVersion !== '' && object.apiVersion !== expectedVersion) {
      if (!(type.crdName !== undefined && String(object.apiVersion).startsWith(`${type.group}/`))) {
        throw badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expectedVersion})`);
      }
    }
    if (object.metadata === undefined || object.metadata === null) object.metadata = {};
    if (!isObject(object.metadata)) throw badRequest(`${expectedKind} in version "${type.version}" cannot be handled as a ${expectedKind}: metadata must be an object`);
    return object;
  }

  private placeInNamespace(target: Target, object: KubeObject): void {
    const requested = target.type.namespaced ? (target.namespace ?? '') : '';
    const given = object.metadata.namespace ?? '';
    if (given === requested) return;
    if (given === '') object.metadata.namespace = requested;
    else if (requested === '') delete object.metadata.namespace;
    else throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  private checkNameMatches(target: Target, incoming: KubeObject): void {
    const given = incoming.metadata.name;
    if (given === undefined || given === '') {
      if (target.subresource === undefined) incoming.metadata.name = target.name;
      return;
    }
    if (given !== target.name) {
      throw badRequest(`the name of the object (${given}) does not match the name on the URL (${target.name ?? ''})`);
    }
  }

  private requireNamespace(namespace: string): void {
    if (!this.store.get(storageKeyOf(NAMESPACES), undefined, namespace)) {
      throw notFound(groupResourceOf(NAMESPACES), namespace);
    }
  }

  private namespaceOf(target: Target): string | undefined {
    return target.type.namespaced ? target.namespace : undefined;
  }

  private mustGet(target: Target): KubeObject {
    const found = this.store.get(storageKeyOf(target.type), this.namespaceOf(target), target.name ?? '');
    if (!found) throw this.notFound(target);
    return found;
  }

  private notFound(target: Target): StatusError {
    return notFound(groupResourceOf(target.type), target.name ?? '');
  }

  private bare(object: KubeObject): KubeObject {
    const { apiVersion: _a, kind: _k, ...rest } = object;
    return rest as KubeObject;
  }

  private decodeContinue(token: string): string {
    try {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { start?: unknown };
      if (typeof decoded.start === 'string') return decoded.start;
    } catch {
      // fall through to the error below
    }
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }

  private matcher(target: Target, labelSelector?: string, fieldSelector?: string): (object: KubeObject) => boolean {
    const { type } = target;
    const labels = parseLabelSelector(labelSelector ?? '');
    const fields = parseFieldSelector(fieldSelector ?? '');
    const strategy = strategyFor(type);
    const getters: Record<string, FieldGetter> = {
      'metadata.name': (o) => (o.metadata as JsonObject | undefined)?.name as string | undefined,
      ...(type.namespaced ? { 'metadata.namespace': (o) => (o.metadata as JsonObject | undefined)?.namespace as string | undefined } : {}),
      ...strategy.fieldLabels,
    };
    checkFieldSelector(fields, getters, fieldLabelRefusal(type, strategy));
    return (object) =>
      (!type.namespaced || target.namespace === undefined || object.metadata.namespace === target.namespace) &&
      (target.name === undefined || object.metadata.name === target.name) &&
      matchesLabels(labels, object.metadata.labels) &&
      matchesFields(fields, getters, object);
  }
}
