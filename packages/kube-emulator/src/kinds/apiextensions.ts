// apiextensions.k8s.io/v1 CustomResourceDefinition, and the custom resources a CRD makes servable.
// A CRD is Established as soon as it is stored (no controller delay). Schemas are required, as in
// v1, and enforced on custom resources: unknown fields are pruned and the rest validated
// (openapi.ts); there is no defaulting.

import { invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { CRDS, storageKeyOf, type ResourceType } from '../registry.ts';
import { isObject, kubeTimestamp, type JsonObject, type KubeObject } from '../types.ts';
import { dns1123Label, dns1123Subdomain } from '../validation.ts';
import { pruneUnknownFields, validateAgainstSchema } from './openapi.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: unknown; scale?: unknown };
  schema?: { openAPIV3Schema?: unknown };
}

interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames?: string[];
  categories?: string[];
}

function obj(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function versionsOf(crd: KubeObject): CrdVersion[] {
  const versions = obj(crd.spec).versions;
  return Array.isArray(versions) ? (versions.filter(isObject) as unknown as CrdVersion[]) : [];
}

function namesOf(crd: KubeObject): CrdNames {
  return obj(obj(crd.spec).names) as unknown as CrdNames;
}

function defaultCrd(crd: KubeObject): void {
  const spec = obj(crd.spec);
  crd.spec = spec;
  const names = obj(spec.names);
  spec.names = names;
  if (typeof names.kind === 'string' && names.kind !== '') {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
}

function crdStatus(crd: KubeObject, old: KubeObject | undefined): JsonObject {
  const names = namesOf(crd);
  const storage = versionsOf(crd).find((v) => v.storage)?.name;
  const oldStatus = obj(old?.status);
  const stored = Array.isArray(oldStatus.storedVersions) ? (oldStatus.storedVersions as string[]) : [];
  const now = kubeTimestamp();
  const conditions = Array.isArray(oldStatus.conditions)
    ? oldStatus.conditions
    : [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: now,
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ];
  return {
    conditions,
    acceptedNames: {
      plural: names.plural,
      singular: names.singular,
      kind: names.kind,
      listKind: names.listKind,
      ...(names.shortNames ? { shortNames: names.shortNames } : {}),
      ...(names.categories ? { categories: names.categories } : {}),
    },
    storedVersions: storage && !stored.includes(storage) ? [...stored, storage] : stored,
  };
}

function validateCrd(crd: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const group = spec.group;
  if (typeof group !== 'string' || group === '') errors.push(required('spec.group'));
  else if (!group.includes('.')) errors.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
  else errors.push(...dns1123Subdomain(group).map((m) => invalidValue('spec.group', group, m)));
  if (typeof names.plural !== 'string' || names.plural === '') errors.push(required('spec.names.plural'));
  else errors.push(...dns1123Label(names.plural).map((m) => invalidValue('spec.names.plural', names.plural, m)));
  if (typeof names.kind !== 'string' || names.kind === '') errors.push(required('spec.names.kind'));
  if (typeof names.plural === 'string' && typeof group === 'string' && crd.metadata.name !== `${names.plural}.${group}`) {
    errors.push(invalidValue('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errors.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }
  const versions = versionsOf(crd);
  if (versions.length === 0) errors.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    errors.push(invalidValue('spec.versions', versions.map((v) => v.name), 'must have exactly one version marked as storage version'));
  }
  versions.forEach((version, i) => {
    if (typeof version.name !== 'string' || version.name === '') errors.push(required(`spec.versions[${i}].name`));
    if (!isObject(obj(version.schema).openAPIV3Schema)) {
      errors.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    }
  });
  // The API server hoists a schema every version shares to spec.validation and reports it there.
  const schemas = versions.map((v) => obj(v.schema).openAPIV3Schema);
  const shared = schemas.length > 0 && schemas.every((s) => JSON.stringify(s) === JSON.stringify(schemas[0]));
  schemas.forEach((schema, i) => {
    if (!isObject(schema) || (shared && i > 0)) return;
    errors.push(...listMapKeyErrors(schema, shared ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`));
  });
  if (old) {
    const oldSpec = obj(old.spec);
    if (spec.scope !== oldSpec.scope) errors.push(invalidValue('spec.scope', spec.scope, 'field is immutable'));
    if (spec.group !== oldSpec.group) errors.push(invalidValue('spec.group', spec.group, 'field is immutable'));
  }
  return errors;
}

/**
 * A map list's keys identify its items, so each must be present: every key property needs a default
 * or must be required (apiextensions validation; a real 1.20 server refuses such a CRD, E8).
 */
function listMapKeyErrors(schema: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: JsonObject, at: string): void => {
    const items = obj(node.items);
    if (node['x-kubernetes-list-type'] === 'map' && Array.isArray(node['x-kubernetes-list-map-keys'])) {
      const requiredKeys = Array.isArray(items.required) ? items.required : [];
      for (const key of node['x-kubernetes-list-map-keys']) {
        const property = obj(obj(items.properties)[String(key)]);
        if (!('default' in property) && !requiredKeys.includes(key)) {
          errors.push(required(`${at}.items.properties[${String(key)}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
      }
    }
    for (const [name, child] of Object.entries(obj(node.properties))) if (isObject(child)) visit(child, `${at}.properties[${name}]`);
    if (isObject(node.items)) visit(node.items, `${at}.items`);
    if (isObject(node.additionalProperties)) visit(node.additionalProperties, `${at}.additionalProperties`);
  };
  visit(schema, path);
  return errors;
}

/** The resource types a CRD serves, one per served version. */
export function customResourceTypes(crd: KubeObject): ResourceType[] {
  const spec = obj(crd.spec);
  const names = namesOf(crd);
  return versionsOf(crd)
    .filter((v) => v.served)
    .map((v) => ({
      group: String(spec.group),
      version: v.name,
      plural: names.plural,
      singular: names.singular,
      kind: names.kind,
      listKind: names.listKind,
      namespaced: spec.scope === 'Namespaced',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      subresources: { status: isObject(obj(v.subresources).status), scale: false },
      openAPISchema: obj(v.schema).openAPIV3Schema,
      printerColumns: Array.isArray((v as unknown as JsonObject).additionalPrinterColumns)
        ? ((v as unknown as JsonObject).additionalPrinterColumns as unknown[]).filter(isObject)
        : [],
    }));
}

export const crdStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  allowUnconditionalUpdate: false,
  hasGeneration: true,
  deleteReturnsObject: true,
  ownDeleteHandler: true,
  prepareForCreate(crd) {
    defaultCrd(crd);
    crd.status = crdStatus(crd, undefined);
  },
  prepareForUpdate(crd, old) {
    defaultCrd(crd);
    crd.status = crdStatus(crd, old);
  },
  validate: validateCrd,
  afterWrite(crd, { registry }) {
    registry.setCustomResources(crd.metadata.name ?? '', customResourceTypes(crd));
  },
  beforeDelete(crd, { store }) {
    // Marked Terminating first, as the real CRD registry does, so watchers see it go.
    const status = obj(crd.status);
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => obj(c).type !== 'Terminating');
    store.update(storageKeyOf(CRDS), {
      ...crd,
      metadata: { ...crd.metadata, deletionTimestamp: crd.metadata.deletionTimestamp ?? kubeTimestamp() },
      status: {
        ...status,
        conditions: [
          ...conditions,
          {
            type: 'Terminating',
            status: 'True',
            lastTransitionTime: kubeTimestamp(),
            reason: 'InstanceDeletionPending',
            message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
          },
        ],
      },
    });
    const spec = obj(crd.spec);
    const key = storageKeyOf({ group: String(spec.group), plural: namesOf(crd).plural });
    for (const item of store.list(key)) store.delete(key, item.metadata.namespace, item.metadata.name ?? '');
  },
  afterDelete(crd, { registry }) {
    registry.removeCustomResources(crd.metadata.name ?? '');
  },
};

export const customResourceStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
  allowUnconditionalUpdate: false,
  hasGeneration: true,
  // The custom resource store is a generic store without ReturnDeletedObject: a delete answers
  // Status Success naming the object (E8: as a real server answered, where this said the object).
  deleteReturnsObject: false,
  prepareForCreate(object, type) {
    pruneUnknownFields(type.openAPISchema, object);
  },
  prepareForUpdate(object, _old, type) {
    pruneUnknownFields(type.openAPISchema, object);
  },
  validate(object, _old, type) {
    return validateAgainstSchema(type.openAPISchema, object);
  },
};
