// The merge schema server-side apply walks: which maps are structs or granular maps and which are
// atomic, which lists are sets, maps keyed by fields, or atomic (the default). Custom resources
// get theirs from the CRD's structural schema; Secret, ConfigMap and Deployment have built-in
// ones, written after the `+listType`/`+structType` markers of k8s.io/api; every other kind, and
// whatever a schema leaves open, is deduced from the value (objects granular, lists atomic), as
// structured-merge-diff's `__untyped_deduced_` type does.

import { CONFIGMAPS, DEPLOYMENTS, SECRETS, storageKeyOf, type ResourceType } from '../registry.ts';
import { isObject, type JsonObject } from '../types.ts';

export type Schema =
  | { type: 'scalar' }
  | { type: 'deduced' }
  | { type: 'map'; fields?: Record<string, Schema>; elements?: Schema; atomic?: boolean }
  | { type: 'list'; items: Schema; listType: 'atomic' | 'set' | 'map'; keys?: string[] };

export type MapSchema = Extract<Schema, { type: 'map' }>;
export type ListSchema = Extract<Schema, { type: 'list' }>;

export const SCALAR: { type: 'scalar' } = { type: 'scalar' };
export const DEDUCED: Schema = { type: 'deduced' };
const DEDUCED_MAP: MapSchema = { type: 'map', elements: DEDUCED };
const DEDUCED_LIST: ListSchema = { type: 'list', items: DEDUCED, listType: 'atomic' };

/** The concrete schema for a value: a deduced one takes the value's shape. */
export function resolve(schema: Schema, value: unknown): Exclude<Schema, { type: 'deduced' }> {
  if (schema.type !== 'deduced') return schema;
  if (isObject(value)) return DEDUCED_MAP;
  if (Array.isArray(value)) return DEDUCED_LIST;
  return SCALAR;
}

export function fieldSchema(map: MapSchema, key: string): Schema {
  return map.fields?.[key] ?? map.elements ?? DEDUCED;
}

const stringMap: Schema = { type: 'map', elements: SCALAR };
const atomicMap: Schema = { type: 'map', elements: DEDUCED, atomic: true };

function struct(fields: Record<string, Schema>, open = true): MapSchema {
  return { type: 'map', fields, ...(open ? { elements: DEDUCED } : {}) };
}

function mapList(keys: string[], items: Schema = DEDUCED_MAP): ListSchema {
  return { type: 'list', items, listType: 'map', keys };
}

export const OBJECT_META: MapSchema = struct({
  name: SCALAR,
  generateName: SCALAR,
  namespace: SCALAR,
  labels: stringMap,
  annotations: stringMap,
  finalizers: { type: 'list', items: SCALAR, listType: 'set' },
  ownerReferences: mapList(['uid']),
});

function root(fields: Record<string, Schema>, open = true): MapSchema {
  return struct({ apiVersion: SCALAR, kind: SCALAR, metadata: OBJECT_META, ...fields }, open);
}

const ENV_VAR = struct({
  name: SCALAR,
  value: SCALAR,
  valueFrom: struct({ secretKeyRef: atomicMap, configMapKeyRef: atomicMap, fieldRef: atomicMap, resourceFieldRef: atomicMap }),
});

const CONTAINER = struct({
  name: SCALAR,
  image: SCALAR,
  command: DEDUCED_LIST,
  args: DEDUCED_LIST,
  env: mapList(['name'], ENV_VAR),
  envFrom: DEDUCED_LIST,
  ports: mapList(['containerPort', 'protocol']),
  volumeMounts: mapList(['mountPath']),
  resources: struct({ limits: stringMap, requests: stringMap }),
});

const POD_SPEC = struct({
  containers: mapList(['name'], CONTAINER),
  initContainers: mapList(['name'], CONTAINER),
  volumes: mapList(['name']),
  imagePullSecrets: mapList(['name']),
  tolerations: DEDUCED_LIST,
  nodeSelector: stringMap,
});

const BUILT_IN: ReadonlyMap<string, MapSchema> = new Map([
  [storageKeyOf(SECRETS), root({ data: stringMap, stringData: stringMap, type: SCALAR, immutable: SCALAR })],
  [storageKeyOf(CONFIGMAPS), root({ data: stringMap, binaryData: stringMap, immutable: SCALAR })],
  [
    storageKeyOf(DEPLOYMENTS),
    root({
      spec: struct({
        replicas: SCALAR,
        selector: atomicMap,
        template: struct({ metadata: OBJECT_META, spec: POD_SPEC }),
        strategy: struct({ type: SCALAR, rollingUpdate: struct({ maxSurge: SCALAR, maxUnavailable: SCALAR }) }),
      }),
      status: DEDUCED,
    }),
  ],
]);

const GENERIC_ROOT = root({});

/** A structural OpenAPI v3 schema (a CRD version's openAPIV3Schema) as a merge schema. */
export function fromOpenApi(node: unknown): Schema {
  if (!isObject(node)) return DEDUCED;
  if (node['x-kubernetes-int-or-string'] === true) return SCALAR;
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (node.type === 'array') {
    const listType = node['x-kubernetes-list-type'];
    const keys = node['x-kubernetes-list-map-keys'];
    return {
      type: 'list',
      items: fromOpenApi(node.items),
      listType: listType === 'set' || listType === 'map' ? listType : 'atomic',
      ...(listType === 'map' && Array.isArray(keys) ? { keys: keys.map(String) } : {}),
    };
  }
  if (node.type === 'object' || isObject(node.properties) || isObject(node.additionalProperties)) {
    const fields: Record<string, Schema> = {};
    if (isObject(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) fields[name] = fromOpenApi(property);
    }
    const schema: MapSchema = { type: 'map' };
    if (Object.keys(fields).length > 0) schema.fields = fields;
    if (isObject(node.additionalProperties)) schema.elements = fromOpenApi(node.additionalProperties);
    else if (preserve || Object.keys(fields).length === 0) schema.elements = DEDUCED;
    if (node['x-kubernetes-map-type'] === 'atomic') schema.atomic = true;
    return schema;
  }
  if (preserve || node.type === undefined) return DEDUCED;
  return SCALAR;
}

const cache = new WeakMap<ResourceType, MapSchema>();

/** The merge schema of a resource: the CRD's for custom resources, built in or deduced otherwise. */
export function schemaFor(type: ResourceType): MapSchema {
  const cached = cache.get(type);
  if (cached) return cached;
  let schema: MapSchema = BUILT_IN.get(storageKeyOf(type)) ?? GENERIC_ROOT;
  if (type.crdName !== undefined) {
    const converted = fromOpenApi(type.openAPISchema);
    const fields = converted.type === 'map' ? (converted.fields ?? {}) : {};
    const elements = converted.type === 'map' ? converted.elements : DEDUCED;
    schema = { type: 'map', fields: { ...fields, apiVersion: SCALAR, kind: SCALAR, metadata: OBJECT_META }, ...(elements ? { elements } : {}) };
  }
  cache.set(type, schema);
  return schema;
}

/** The empty object a create is compared with: Go structs that are never absent from a built-in kind. */
export function zeroObject(type: ResourceType): JsonObject {
  if (storageKeyOf(type) === storageKeyOf(DEPLOYMENTS)) {
    return { metadata: {}, spec: { template: { metadata: {}, spec: {} }, strategy: {} }, status: {} };
  }
  return type.crdName === undefined ? { metadata: {} } : {};
}
