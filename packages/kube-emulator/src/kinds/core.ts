// Core v1 kinds: Namespace, Secret, ConfigMap, Event.

import { badRequest, forbidden, forbiddenField, invalidValue, tooLong, type FieldError } from '../errors.ts';
import { groupResourceOf, NAMESPACES, storageKeyOf, type ResourceType } from '../registry.ts';
import { isObject, jsonEqual, kubeTimestamp, type KubeObject } from '../types.ts';
import { base64ErrorOffset, configKey, dns1123Label, dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, fieldAt, type Strategy } from './strategy.ts';

const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_DETAIL = 'field is immutable when `immutable` is set';
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
const NAMESPACES_KEY = storageKeyOf(NAMESPACES);
const UNDELETABLE_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

function cannotBeHandled(kind: string, detail: string): never {
  throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${detail}`);
}

/** Checks a map of strings the JSON decoder would need to turn into map[string]string or []byte. */
function checkStringMap(kind: string, field: string, value: unknown, base64: boolean): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) cannotBeHandled(kind, `json: cannot unmarshal ${typeof value} into Go struct field ${kind}.${field} of type map[string]${base64 ? '[]uint8' : 'string'}`);
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') {
      cannotBeHandled(kind, `json: cannot unmarshal ${Array.isArray(item) ? 'array' : typeof item} into Go struct field ${kind}.${field} of type ${base64 ? '[]uint8' : 'string'}`);
    }
    if (base64) {
      const offset = base64ErrorOffset(item);
      if (offset >= 0) cannotBeHandled(kind, `illegal base64 data at input byte ${offset}`);
    }
    out[key] = item;
  }
  return out;
}

function decodedSize(values: Record<string, string>, base64: boolean): number {
  return Object.entries(values).reduce(
    (sum, [key, value]) => sum + key.length + (base64 ? Buffer.from(value, 'base64').length : Buffer.byteLength(value)),
    0,
  );
}

function validateKeys(field: string, values: Record<string, string>): FieldError[] {
  return Object.keys(values).flatMap((key) =>
    configKey(key).map((message) => invalidValue(`${field}[${key}]`, key, message)),
  );
}

function validateImmutable(object: KubeObject, old: KubeObject | undefined, fields: string[]): FieldError[] {
  if (!old || old.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (object.immutable !== true) errors.push(forbiddenField('immutable', IMMUTABLE_DETAIL));
  for (const field of fields) {
    if (!jsonEqual(object[field] ?? {}, old[field] ?? {})) errors.push(forbiddenField(field, IMMUTABLE_DETAIL));
  }
  return errors;
}

function normalizeSecret(object: KubeObject): void {
  const data = checkStringMap('Secret', 'data', object.data, true);
  const stringData = checkStringMap('Secret', 'stringData', object.stringData, false);
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  delete object.stringData;
  if (Object.keys(data).length > 0) object.data = data;
  else delete object.data;
}

/** Go's omitempty drops empty data maps, so `data: {}` and no data are the same object. */
function dropEmptyMaps(object: KubeObject, fields: string[]): void {
  for (const field of fields) {
    const value = object[field];
    if (value === null || (isObject(value) && Object.keys(value).length === 0)) delete object[field];
  }
}

export const secretStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  fieldLabels: { type: fieldAt('type') },
  prepareForCreate(object) {
    normalizeSecret(object);
    if (typeof object.type !== 'string' || object.type === '') object.type = 'Opaque';
  },
  prepareForUpdate(object, old) {
    normalizeSecret(object);
    if (typeof object.type !== 'string' || object.type === '') object.type = old.type;
  },
  validate(object, old) {
    const data = (object.data ?? {}) as Record<string, string>;
    const errors = validateKeys('data', data);
    if (decodedSize(data, true) > MAX_SECRET_SIZE) errors.push(tooLong('data', `must have at most ${MAX_SECRET_SIZE} bytes`));
    if (old && object.type !== old.type) errors.push(invalidValue('type', object.type, 'field is immutable'));
    errors.push(...validateImmutable(object, old, ['data']));
    return errors;
  },
};

export const configMapStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  prepareForCreate(object) {
    checkStringMap('ConfigMap', 'data', object.data, false);
    checkStringMap('ConfigMap', 'binaryData', object.binaryData, true);
    dropEmptyMaps(object, ['data', 'binaryData']);
  },
  prepareForUpdate(object) {
    checkStringMap('ConfigMap', 'data', object.data, false);
    checkStringMap('ConfigMap', 'binaryData', object.binaryData, true);
    dropEmptyMaps(object, ['data', 'binaryData']);
  },
  validate(object, old) {
    const data = (object.data ?? {}) as Record<string, string>;
    const binaryData = (object.binaryData ?? {}) as Record<string, string>;
    const errors = [...validateKeys('data', data), ...validateKeys('binaryData', binaryData)];
    for (const key of Object.keys(binaryData)) {
      if (key in data) errors.push(invalidValue(`binaryData[${key}]`, key, 'duplicate of key present in data'));
    }
    if (decodedSize(data, false) + decodedSize(binaryData, true) > MAX_SECRET_SIZE) {
      errors.push(tooLong('', `must have at most ${MAX_SECRET_SIZE} bytes`));
    }
    errors.push(...validateImmutable(object, old, ['data', 'binaryData']));
    return errors;
  },
};

function namespaceDefaults(object: KubeObject): void {
  const name = object.metadata.name ?? '';
  object.metadata.labels = { ...object.metadata.labels, [NAMESPACE_NAME_LABEL]: name };
}

export const namespaceStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Label,
  fieldLabels: { 'status.phase': fieldAt('status.phase') },
  deleteReturnsObject: true,
  ownDeleteHandler: true,
  prepareForCreate(object) {
    namespaceDefaults(object);
    const spec = isObject(object.spec) ? object.spec : {};
    object.spec = { ...spec, finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : ['kubernetes'] };
    object.status = { phase: 'Active' };
  },
  prepareForUpdate(object, old) {
    namespaceDefaults(object);
    // spec.finalizers change only through /finalize on a real server.
    object.spec = old.spec;
  },
  checkDelete(object) {
    const name = object.metadata.name ?? '';
    if (!UNDELETABLE_NAMESPACES.has(name)) return undefined;
    return forbidden(groupResourceOf(NAMESPACES), name, 'this namespace may not be deleted');
  },
  // No Terminating phase that lingers: the namespace controller's work happens right here, so the
  // namespace and everything in it are gone when DELETE answers.
  beforeDelete(object, { store, registry }) {
    const name = object.metadata.name ?? '';
    const status = isObject(object.status) ? object.status : {};
    store.update(NAMESPACES_KEY, {
      ...object,
      metadata: { ...object.metadata, deletionTimestamp: object.metadata.deletionTimestamp ?? kubeTimestamp() },
      status: { ...status, phase: 'Terminating' },
    });
    for (const key of registry.namespacedStorageKeys()) {
      for (const item of store.list(key, name)) store.delete(key, name, item.metadata.name ?? '');
    }
  },
};

export const eventStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  allowCreateOnUpdate: true,
  fieldLabels: Object.fromEntries(
    [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ].map((path) => [path, path === 'source' ? fieldAt('source.component') : fieldAt(path)]),
  ),
  validate(object: KubeObject, _old: KubeObject | undefined, _type: ResourceType) {
    const involved = isObject(object.involvedObject) ? object.involvedObject : {};
    const namespace = involved.namespace;
    if (typeof namespace === 'string' && namespace !== '' && namespace !== object.metadata.namespace) {
      return [invalidValue('involvedObject.namespace', namespace, 'does not match event.namespace')];
    }
    return [];
  },
};
