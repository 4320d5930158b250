// OpenAPI documents (rule E6): /openapi/v3 (a root naming one document per group-version) and
// /openapi/v3/{api/v1 | apis/group/version}, the form kubectl 1.33 reads, and /openapi/v2 as
// JSON. kubectl reads them to decide that the server validates fields itself (the PATCH
// operation of the kind's path lists the fieldValidation query parameter:
// k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go), to compute client-side apply
// patches (strategic merge when the PATCH operation accepts application/strategic-merge-patch+json,
// k8s.io/kubectl/pkg/cmd/apply/patcher.go; custom resources get JSON merge patches) and to
// explain kinds (the component schema whose x-kubernetes-group-version-kind names the kind).
//
// Custom resources carry their CRD's openAPIV3Schema whole. Built-in kinds carry the fields the
// emulator serves, with nested workload parts kept open rather than spelled out.

import { createHash } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './registry.ts';
import { VERSION_INFO } from './discovery.ts';
import { isObject, type JsonObject } from './types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const OBJECT_META = `${META}.ObjectMeta`;

const str = (description: string): JsonObject => ({ type: 'string', description });
const strings = (description: string): JsonObject => ({ type: 'object', additionalProperties: { type: 'string', default: '' }, description });
const open = (description: string): JsonObject => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const ROLE_REF: JsonObject = {
  type: 'object',
  description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
  required: ['apiGroup', 'kind', 'name'],
  properties: { apiGroup: str('APIGroup is the group for the resource being referenced'), kind: str('Kind is the type of resource being referenced'), name: str('Name is the name of resource being referenced') },
};
const SUBJECTS: JsonObject = {
  type: 'array',
  description: 'Subjects holds references to the objects the role applies to.',
  items: {
    type: 'object',
    required: ['kind', 'name'],
    properties: { kind: str('Kind of object being referenced.'), apiGroup: str('APIGroup holds the API group of the referenced subject.'), name: str('Name of the object being referenced.'), namespace: str('Namespace of the referenced object.') },
  },
};
const list = (description: string): JsonObject => ({ type: 'array', description, items: { type: 'string', default: '' } });
const POLICY_RULES: JsonObject = {
  type: 'array',
  description: 'Rules holds all the PolicyRules for this Role',
  items: {
    type: 'object',
    required: ['verbs'],
    properties: {
      verbs: list('Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. \'*\' represents all verbs.'),
      apiGroups: list('APIGroups is the name of the APIGroup that contains the resources.'),
      resources: list('Resources is a list of resources this rule applies to. \'*\' represents all resources.'),
      resourceNames: list('ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.'),
      nonResourceURLs: list('NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path.'),
    },
  },
};
const ref = (name: string, description?: string): JsonObject => ({
  ...(description ? { description } : {}),
  allOf: [{ $ref: `#/components/schemas/${name}` }],
  default: {},
});

const TYPE_META: JsonObject = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
};

export const SHARED_SCHEMAS: Record<string, JsonObject> = {
  [OBJECT_META]: {
    description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    type: 'object',
    properties: {
      name: str('Name must be unique within a namespace.'),
      generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
      namespace: str('Namespace defines the space within which each name must be unique.'),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      uid: str('UID is the unique in time and space value for this object.'),
      resourceVersion: str('An opaque value that represents the internal version of this object.'),
      generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
      creationTimestamp: { type: 'string', format: 'date-time', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' },
      deletionTimestamp: { type: 'string', format: 'date-time', description: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.' },
      deletionGracePeriodSeconds: { type: 'integer', format: 'int64', description: 'Number of seconds allowed for this object to gracefully terminate.' },
      labels: strings('Map of string keys and values that can be used to organize and categorize objects.'),
      annotations: strings('Annotations is an unstructured key value map stored with a resource.'),
      finalizers: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set', description: 'Must be empty before the object is deleted from the registry.' },
      ownerReferences: {
        type: 'array',
        description: 'List of objects depended by this object.',
        items: ref(`${META}.OwnerReference`),
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: { type: 'array', items: open('ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.'), description: 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.' },
    },
  },
  [`${META}.OwnerReference`]: {
    description: 'OwnerReference contains enough information to let you identify an owning object.',
    type: 'object',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: str('API version of the referent.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      controller: { type: 'boolean', description: 'If true, this reference points to the managing controller.' },
      blockOwnerDeletion: { type: 'boolean', description: 'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.' },
    },
    'x-kubernetes-map-type': 'atomic',
  },
};

/** Schema name and properties of each built-in kind, by storage key. */
const BUILT_IN: Record<string, { name: string; description: string; properties: JsonObject }> = {
  namespaces: {
    name: 'io.k8s.api.core.v1.Namespace',
    description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
    properties: {
      spec: { type: 'object', description: 'Spec defines the behavior of the Namespace.', properties: { finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.' } } },
      status: { type: 'object', description: 'Status describes the current status of a Namespace.', properties: { phase: str('Phase is the current lifecycle phase of the namespace.'), conditions: { type: 'array', items: open('NamespaceCondition contains details about state of namespace.') } } },
    },
  },
  secrets: {
    name: 'io.k8s.api.core.v1.Secret',
    description: 'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
    properties: {
      data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' }, description: 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. The serialized form of the secret data is a base64 encoded string.' },
      stringData: strings('stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience.'),
      type: str('Used to facilitate programmatic handling of secret data.'),
      immutable: { type: 'boolean', description: 'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified).' },
    },
  },
  configmaps: {
    name: 'io.k8s.api.core.v1.ConfigMap',
    description: 'ConfigMap holds configuration data for pods to consume.',
    properties: {
      data: strings('Data contains the configuration data.'),
      binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' }, description: 'BinaryData contains the binary data.' },
      immutable: { type: 'boolean', description: 'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).' },
    },
  },
  events: {
    name: 'io.k8s.api.core.v1.Event',
    description: 'Event is a report of an event somewhere in the cluster.',
    properties: {
      involvedObject: open('The object that this event is about.'),
      reason: str('This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
      message: str('A human-readable description of the status of this operation.'),
      source: open('The component reporting this event.'),
      firstTimestamp: { type: 'string', format: 'date-time', description: 'The time at which the event was first recorded.' },
      lastTimestamp: { type: 'string', format: 'date-time', description: 'The time at which the most recent occurrence of this event was recorded.' },
      eventTime: { type: 'string', format: 'date-time', description: 'Time when this Event was first observed.' },
      count: { type: 'integer', format: 'int32', description: 'The number of times this event has occurred.' },
      type: str('Type of this event (Normal, Warning), new types could be added in the future.'),
      action: str('What action was taken/failed regarding to the Regarding object.'),
      related: open('Optional secondary object for more complex actions.'),
      reportingComponent: str('Name of the controller that emitted this Event.'),
      reportingInstance: str('ID of the controller instance.'),
      series: open('Data about the Event series this event represents.'),
    },
  },
  'apps/deployments': {
    name: 'io.k8s.api.apps.v1.Deployment',
    description: 'Deployment enables declarative updates for Pods and ReplicaSets.',
    properties: {
      spec: {
        type: 'object',
        description: 'Specification of the desired behavior of the Deployment.',
        required: ['selector', 'template'],
        properties: {
          replicas: { type: 'integer', format: 'int32', description: 'Number of desired pods. Defaults to 1.' },
          selector: open('Label selector for pods. It must match the pod template\'s labels.'),
          template: open('Template describes the pods that will be created.'),
          strategy: open('The deployment strategy to use to replace existing pods with new ones.'),
          minReadySeconds: { type: 'integer', format: 'int32', description: 'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.' },
          revisionHistoryLimit: { type: 'integer', format: 'int32', description: 'The number of old ReplicaSets to retain to allow rollback.' },
          paused: { type: 'boolean', description: 'Indicates that the deployment is paused.' },
          progressDeadlineSeconds: { type: 'integer', format: 'int32', description: 'The maximum time in seconds for a deployment to make progress before it is considered to be failed.' },
        },
      },
      status: open('Most recently observed status of the Deployment.'),
    },
  },
  'coordination.k8s.io/leases': {
    name: 'io.k8s.api.coordination.v1.Lease',
    description: 'Lease defines a lease concept.',
    properties: { spec: open('spec contains the specification of the Lease.') },
  },
  'rbac.authorization.k8s.io/rolebindings': {
    name: 'io.k8s.api.rbac.v1.RoleBinding',
    description: 'RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace.',
    properties: {
      roleRef: ROLE_REF,
      subjects: SUBJECTS,
    },
  },
  'rbac.authorization.k8s.io/clusterrolebindings': {
    name: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    description: 'ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
    properties: { roleRef: ROLE_REF, subjects: SUBJECTS },
  },
  'rbac.authorization.k8s.io/roles': {
    name: 'io.k8s.api.rbac.v1.Role',
    description: 'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
    properties: { rules: POLICY_RULES },
  },
  'rbac.authorization.k8s.io/clusterroles': {
    name: 'io.k8s.api.rbac.v1.ClusterRole',
    description: 'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    properties: {
      rules: POLICY_RULES,
      aggregationRule: {
        type: 'object',
        description: 'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.',
        properties: { clusterRoleSelectors: { type: 'array', description: 'ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules.', items: open('A label selector.') } },
      },
    },
  },
  'apiextensions.k8s.io/customresourcedefinitions': {
    name: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    description: 'CustomResourceDefinition represents a resource that should be exposed on the API server.',
    properties: { spec: open('spec describes how the user wants the resources to appear'), status: open('status indicates the actual state of the CustomResourceDefinition') },
  },
};

/**
 * The kinds whose schema here is complete to the leaves. kubectl computes a strategic merge patch
 * from the v3 schema only when the PATCH operation lists strategic-merge-patch+json, and fails on
 * an object the schema leaves open ("unable to find api field"); for the other built-in kinds it
 * then falls back to its compiled-in types, which carry every patch merge key.
 */
const COMPLETE_SCHEMAS = new Set(['namespaces', 'secrets', 'configmaps']);

function storageKey(type: ResourceType): string {
  return type.group ? `${type.group}/${type.plural}` : type.plural;
}

function reverseDomain(group: string): string {
  return group.split('.').reverse().join('.');
}

/** The component name of a kind's schema: built-in names as Kubernetes spells them, CRDs by reversed group. */
function schemaName(type: ResourceType): string {
  const builtIn = type.crdName === undefined ? BUILT_IN[storageKey(type)] : undefined;
  return builtIn?.name ?? `${reverseDomain(type.group)}.${type.version}.${type.kind}`;
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
  const builtIn = BUILT_IN[storageKey(type)];
  return {
    description: builtIn?.description ?? '',
    type: 'object',
    properties: { ...TYPE_META, metadata, ...builtIn?.properties },
    // A built-in kind served without a schema written here yet (Pods, ReplicaSets, ServiceAccounts,
    // webhook configurations) keeps every field: dropping what no schema declares would empty it.
    ...(builtIn ? {} : { 'x-kubernetes-preserve-unknown-fields': true }),
    ...extension,
  };
}

function listSchema(type: ResourceType): JsonObject {
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
  if (type.crdName === undefined && COMPLETE_SCHEMAS.has(storageKey(type))) patchTypes.push('application/strategic-merge-patch+json');
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
  const schemas: Record<string, JsonObject> = { ...SHARED_SCHEMAS };
  let paths: Record<string, JsonObject> = {};
  for (const type of types) {
    schemas[schemaName(type)] = kindSchema(type);
    schemas[`${schemaName(type)}List`] = listSchema(type);
    paths = { ...paths, ...pathsOf(type) };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: VERSION_INFO.gitVersion }, paths, components: { schemas } };
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

/** /openapi/v2 as JSON: every kind's definition (schemas translated to Swagger 2.0's #/definitions). */
export function openApiV2(registry: ResourceRegistry): JsonObject {
  const definitions: Record<string, unknown> = {};
  for (const { group, version } of groupVersionKeys(registry)) {
    const document = openApiV3Document(registry, group, version);
    if (!document) continue;
    Object.assign(definitions, (document.components as { schemas: JsonObject }).schemas);
  }
  const translated = JSON.parse(JSON.stringify(definitions).replaceAll('#/components/schemas/', '#/definitions/')) as JsonObject;
  return { swagger: '2.0', info: { title: 'Kubernetes', version: VERSION_INFO.gitVersion }, paths: {}, definitions: translated };
}

