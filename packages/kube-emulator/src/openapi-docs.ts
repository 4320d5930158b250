// OpenAPI documents (rule E6): /openapi/v3 (a root naming one document per group-version) and
// /openapi/v3/{api/v1 | apis/group/version}, the form kubectl 1.33 reads, and /openapi/v2 as
// JSON. kubectl reads them to decide that the server validates fields itself (the PATCH
// operation of the kind's path lists the fieldValidation query parameter:
// k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go), to compute client-side apply
// patches (strategic merge when the PATCH operation accepts application/strategic-merge-patch+json,
// k8s.io/kubectl/pkg/cmd/apply/patcher.go; custom resources get JSON merge patches) and to
// explain kinds (the component schema whose x-kubernetes-group-version-kind names the kind).
//
// Custom resources carry their CRD's openAPIV3Schema whole. Built-in kinds carry a real server's
// definitions, captured from kube-apiserver 1.20.2 (kinds/openapi-captured.ts), to the leaves.

import { createHash } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './registry.ts';
import { VERSION_INFO } from './discovery.ts';
import { CAPTURED, definitionNameOf, referencesIn } from './kinds/openapi-captured.ts';
import { isObject, type JsonObject } from './types.ts';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const V2_REF = '#/definitions/';
const V3_REF = '#/components/schemas/';

const str = (description: string): JsonObject => ({ type: 'string', description });
const ref = (name: string, description?: string): JsonObject => ({
  ...(description ? { description } : {}),
  allOf: [{ $ref: `${V3_REF}${name}` }],
  default: {},
});

const TYPE_META: JsonObject = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
};

/** A v2 schema in v3's form: a reference with siblings (a description) is wrapped in allOf, as kube-openapi does. */
function toV3(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toV3);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (key !== '$ref') out[key] = toV3(item);
  if (typeof value.$ref !== 'string') return out;
  const target = value.$ref.replace(V2_REF, V3_REF);
  return Object.keys(out).length === 0 ? { $ref: target } : { ...out, allOf: [{ $ref: target }] };
}

/**
 * Fields newer than the captured server that the emulator writes itself, following current
 * Kubernetes (REAL-SERVER-DIFFERENCES.md): without them its own objects, sent back by a client,
 * would carry "unknown" fields. `stored-fields.emulator-only.test.ts` finds the next one.
 */
const NEWER_FIELDS: Record<string, Record<string, JsonObject>> = {
  // D9: managedFields entries name their subresource from 1.22 on.
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': {
    subresource: {
      description:
        'Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource. The value of this field is used to distinguish between managers, even if they share the same name.',
      type: 'string',
    },
  },
};

/** A captured definition as served here: the real server's, plus the newer fields the emulator writes. */
function servedDefinition(name: string): JsonObject | undefined {
  const captured = CAPTURED.definitions[name];
  const newer = NEWER_FIELDS[name];
  if (captured === undefined || newer === undefined) return captured;
  return { ...captured, properties: { ...(captured.properties as JsonObject), ...newer } };
}

const v3Definitions = new Map<string, JsonObject>();

/** A captured built-in definition (kinds and what they reach: openapi-captured.ts) in v3's form. */
export function builtInDefinition(name: string): JsonObject | undefined {
  let definition = v3Definitions.get(name);
  if (definition === undefined) {
    const served = servedDefinition(name);
    if (served === undefined) return undefined;
    definition = toV3(served) as JsonObject;
    v3Definitions.set(name, definition);
  }
  return definition;
}

/** The definition name a v3 schema node refers to: `$ref`, or `allOf: [{$ref}]`. */
export function referenceNameOf(schema: JsonObject): string | undefined {
  const allOf = Array.isArray(schema.allOf) ? schema.allOf : [];
  const reference = allOf.map((s) => (isObject(s) ? s.$ref : undefined)).find((r) => typeof r === 'string') ?? schema.$ref;
  return typeof reference === 'string' ? reference.replace(V3_REF, '') : undefined;
}

/** A v3 schema node with its reference followed: the captured definition it names, else the node itself. */
export function resolveSchema(schema: JsonObject): JsonObject {
  const name = referenceNameOf(schema);
  return (name === undefined ? undefined : builtInDefinition(name)) ?? schema;
}

const capturedNames = new Map<string, string | null>();

/** The captured definition's name of a built-in kind (or its list), when the captured server has the kind. */
export function capturedNameOf(type: ResourceType, kind = type.kind): string | undefined {
  if (type.crdName !== undefined) return undefined;
  const key = `${type.group}/${type.version}/${kind}`;
  if (!capturedNames.has(key)) capturedNames.set(key, definitionNameOf(CAPTURED.definitions, { ...type, kind }) ?? null);
  return capturedNames.get(key) ?? undefined;
}

function reverseDomain(group: string): string {
  return group.split('.').reverse().join('.');
}

/** The component name of a kind's schema: built-in names as Kubernetes spells them, CRDs by reversed group. */
function schemaName(type: ResourceType): string {
  return capturedNameOf(type) ?? `${reverseDomain(type.group)}.${type.version}.${type.kind}`;
}

function gvk(type: ResourceType): JsonObject {
  return { group: type.group, kind: type.kind, version: type.version };
}

/** A kind's schema: the CRD's for custom resources, metadata pointing at ObjectMeta. */
export function kindSchema(type: ResourceType): JsonObject {
  const extension = { 'x-kubernetes-group-version-kind': [gvk(type)] };
  const metadata = ref(OBJECT_META, "Standard object's metadata.");
  if (type.crdName !== undefined) {
    const schema = isObject(type.openAPISchema) ? structuredClone(type.openAPISchema) : { type: 'object' };
    const properties = isObject(schema.properties) ? schema.properties : {};
    return { ...schema, properties: { ...TYPE_META, ...properties, metadata }, ...extension };
  }
  const captured = capturedNameOf(type);
  if (captured !== undefined) return builtInDefinition(captured) as JsonObject;
  // A built-in kind newer than the captured server (ValidatingAdmissionPolicy, policy/v1
  // PodDisruptionBudget) keeps every field: dropping what no schema declares would empty it.
  return { description: '', type: 'object', properties: { ...TYPE_META, metadata }, 'x-kubernetes-preserve-unknown-fields': true, ...extension };
}

function listSchema(type: ResourceType): JsonObject {
  const captured = capturedNameOf(type, type.listKind);
  if (captured !== undefined) return builtInDefinition(captured) as JsonObject;
  return {
    description: `${type.listKind} is a list of ${type.kind}`,
    type: 'object',
    required: ['items'],
    properties: { ...TYPE_META, items: { type: 'array', items: ref(schemaName(type)) }, metadata: { type: 'object', description: 'Standard list metadata.' } },
    'x-kubernetes-group-version-kind': [{ ...gvk(type), kind: type.listKind }],
  };
}

const query = (name: string, type: string, description: string): JsonObject => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });
const DRY_RUN = query('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed');
const FIELD_MANAGER = query('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = query(
  'fieldValidation',
  'string',
  'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: - Ignore - Warn (the default) - Strict',
);
const FORCE = query('force', 'boolean', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.');

function content(schema: JsonObject, types: string[]): JsonObject {
  return Object.fromEntries(types.map((t) => [t, { schema }]));
}

function operations(type: ResourceType, item: boolean): JsonObject {
  const self = ref(schemaName(type));
  const extension = { 'x-kubernetes-group-version-kind': gvk(type) };
  const tag = `${type.group || 'core'}_${type.version}`;
  const answer = (schema: JsonObject) => ({ '200': { description: 'OK', content: content(schema, ['application/json', 'application/yaml']) } });
  const id = (verb: string) => `${verb}${type.kind}`;
  if (!item) {
    return {
      get: { tags: [tag], operationId: id('list'), responses: answer(ref(`${schemaName(type)}List`)), 'x-kubernetes-action': 'list', ...extension },
      post: {
        tags: [tag],
        operationId: id('create'),
        parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
        requestBody: { content: content(self, ['*/*']), required: true },
        responses: answer(self),
        'x-kubernetes-action': 'post',
        ...extension,
      },
    };
  }
  const patchTypes = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
  // A real server takes strategic merge patches for its built-in kinds, whose Go types carry the
  // merge keys; kubectl then computes its client-side apply patches from the schema served here.
  if (capturedNameOf(type) !== undefined) patchTypes.push('application/strategic-merge-patch+json');
  return {
    get: { tags: [tag], operationId: id('read'), responses: answer(self), 'x-kubernetes-action': 'get', ...extension },
    put: {
      tags: [tag],
      operationId: id('replace'),
      parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      requestBody: { content: content(self, ['*/*']), required: true },
      responses: answer(self),
      'x-kubernetes-action': 'put',
      ...extension,
    },
    patch: {
      tags: [tag],
      operationId: id('patch'),
      parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
      requestBody: { content: content({ type: 'object' }, patchTypes), required: true },
      responses: answer(self),
      'x-kubernetes-action': 'patch',
      ...extension,
    },
    delete: { tags: [tag], operationId: id('delete'), parameters: [DRY_RUN], responses: answer(self), 'x-kubernetes-action': 'delete', ...extension },
  };
}

function pathsOf(type: ResourceType): Record<string, JsonObject> {
  const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const collection = type.namespaced ? `${base}/namespaces/{namespace}/${type.plural}` : `${base}/${type.plural}`;
  const paths: Record<string, JsonObject> = {
    [collection]: operations(type, false),
    [`${collection}/{name}`]: operations(type, true),
  };
  if (type.subresources.status) paths[`${collection}/{name}/status`] = operations(type, true);
  return paths;
}

export function openApiV3Document(registry: ResourceRegistry, group: string, version: string): JsonObject | undefined {
  const types = registry.resourcesOf(group, version);
  if (types.length === 0) return undefined;
  const schemas: Record<string, JsonObject> = {};
  let paths: Record<string, JsonObject> = {};
  for (const type of types) {
    schemas[schemaName(type)] = kindSchema(type);
    schemas[`${schemaName(type)}List`] = listSchema(type);
    paths = { ...paths, ...pathsOf(type) };
  }
  withReferencedDefinitions(schemas);
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: VERSION_INFO.gitVersion }, paths, components: { schemas } };
}

/** Adds the captured definitions the schemas refer to, and theirs, as a real server's document holds them. */
function withReferencedDefinitions(schemas: Record<string, JsonObject>): void {
  const pending = Object.values(schemas);
  while (pending.length > 0) {
    for (const name of referencesIn(pending.pop(), new Set(), V3_REF)) {
      if (schemas[name] !== undefined) continue;
      const definition = builtInDefinition(name);
      if (definition === undefined) throw new Error(`no schema ${name} to refer to`);
      schemas[name] = definition;
      pending.push(definition);
    }
  }
}

function groupVersionKeys(registry: ResourceRegistry): { key: string; group: string; version: string }[] {
  const keys = [{ key: 'api/v1', group: '', version: 'v1' }];
  for (const { group, versions } of registry.groups()) for (const version of versions) keys.push({ key: `apis/${group}/${version}`, group, version });
  return keys;
}

function hashOf(document: unknown): string {
  return createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase();
}

/** /openapi/v3: one entry per group-version, its URL carrying the document's hash (clients cache by it). */
export function openApiV3Root(registry: ResourceRegistry): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const { key, group, version } of groupVersionKeys(registry)) {
    const document = openApiV3Document(registry, group, version);
    if (document) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(document)}` };
  }
  return { paths };
}

/** /openapi/v3/<key>, for `api/v1` and `apis/<group>/<version>`. */
export function openApiV3ForPath(registry: ResourceRegistry, segments: string[]): JsonObject | undefined {
  if (segments[0] === 'api' && segments.length === 2) return segments[1] === 'v1' ? openApiV3Document(registry, '', 'v1') : undefined;
  if (segments[0] === 'apis' && segments.length === 3) return openApiV3Document(registry, segments[1] ?? '', segments[2] ?? '');
  return undefined;
}

/**
 * /openapi/v2 as JSON: every kind's definition, the captured ones as the real server served them,
 * the others (custom resources, kinds newer than the capture) translated to #/definitions.
 */
export function openApiV2(registry: ResourceRegistry): JsonObject {
  const definitions: Record<string, unknown> = {};
  for (const { group, version } of groupVersionKeys(registry)) {
    const document = openApiV3Document(registry, group, version);
    if (!document) continue;
    for (const [name, schema] of Object.entries((document.components as { schemas: JsonObject }).schemas)) {
      definitions[name] = servedDefinition(name) ?? JSON.parse(JSON.stringify(schema).replaceAll(V3_REF, V2_REF));
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: VERSION_INFO.gitVersion }, paths: {}, definitions };
}

