// Core v1 kinds: Namespace, Secret, ConfigMap, Event.

import { badRequest, forbidden, forbiddenField, invalidValue, required, tooLong, type FieldError } from '../errors.ts';
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

/**
 * The keys each built-in Secret type requires, as ValidateSecret (k8s.io/kubernetes
 * pkg/apis/core/validation) checks them after the data keys and the size. Its field paths for
 * basic-auth and ssh-auth really are `data[%s][username]` (a format string passed to NewPath), and
 * a malformed docker config is named `<secret contents redacted>`, never echoed.
 */
function secretTypeErrors(object: KubeObject, data: Record<string, string>): FieldError[] {
  const has = (key: string) => Object.hasOwn(data, key);
  const bytes = (key: string) => Buffer.from(data[key] ?? '', 'base64');
  switch (object.type) {
    case 'kubernetes.io/service-account-token': {
      const annotations = (object.metadata.annotations ?? {}) as Record<string, string>;
      return annotations['kubernetes.io/service-account.name'] ? [] : [required('metadata.annotations[kubernetes.io/service-account.name]')];
    }
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = object.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(key)) return [required(`data[${key}]`)];
      const problem = goJsonObjectError(bytes(key).toString('utf8'));
      return problem ? [invalidValue(`data[${key}]`, '<secret contents redacted>', problem)] : [];
    }
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one of the two keys must be there.
      return has('username') || has('password') ? [] : [required('data[%s][username]'), required('data[%s][password]')];
    case 'kubernetes.io/ssh-auth':
      return bytes('ssh-privatekey').length > 0 ? [] : [required('data[%s][ssh-privatekey]')];
    case 'kubernetes.io/tls':
      return [...(has('tls.crt') ? [] : [required('data[tls.crt]')]), ...(has('tls.key') ? [] : [required('data[tls.key]')])];
    default:
      return [];
  }
}

/**
 * What Go's json.Unmarshal into a map[string]interface{} says of `text`, or null when it takes it
 * (`null` included). Type errors and empty input are worded as Go words them; a syntax error is
 * worded after Go's scanner for the first character it cannot take at the start of a value, else
 * from JavaScript's parser (REAL-SERVER-DIFFERENCES.md).
 */
function goJsonObjectError(text: string): string | null {
  if (text.trim() === '') return 'unexpected end of JSON input';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const first = text.trimStart()[0] ?? '';
    if (!/^[{["\-0-9tfn]$/.test(first)) return `invalid character '${first}' looking for beginning of value`;
    return `invalid JSON: ${(error as Error).message}`;
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return null;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool';
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
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
    errors.push(...secretTypeErrors(object, data));
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
