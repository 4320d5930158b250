// Structural-schema validation and pruning of custom resources, as the apiextensions-apiserver
// does it: unknown fields are dropped unless x-kubernetes-preserve-unknown-fields says otherwise,
// then the object is checked against the schema and every failure names its field with the
// wording of k8s.io/apimachinery's field errors. Covers what our CRDs use: types, nullable,
// int-or-string, required, properties, additionalProperties, items, enum, pattern, min/max
// length, items and properties, and list-type set/map uniqueness.

import { duplicate, invalidValue, notSupported, required, tooLong, tooMany, type FieldError } from '../errors.ts';
import { isObject, jsonEqual, type JsonObject } from '../types.ts';

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Drops fields the schema does not declare (structural pruning); the root keeps apiVersion, kind and metadata. */
export function pruneUnknownFields(schema: unknown, value: unknown, isRoot = true): void {
  if (!isObject(schema)) return;
  if (Array.isArray(value)) {
    for (const item of value) pruneUnknownFields(schema.items, item, false);
    return;
  }
  if (!isObject(value)) return;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  for (const key of Object.keys(value)) {
    if (isRoot && ROOT_FIELDS.has(key)) continue;
    const declared = properties?.[key] ?? additional;
    if (declared !== undefined) pruneUnknownFields(declared, value[key], false);
    else if (!preserve) delete value[key];
  }
}

/** Field errors of `value` against an openAPIV3Schema; the root's metadata is checked elsewhere. */
export function validateAgainstSchema(schema: unknown, value: unknown, path = '', isRoot = true): FieldError[] {
  if (!isObject(schema)) return [];
  if (value === null) {
    if (schema.nullable === true || schema.type === undefined) return [];
    return [invalidValue(path, 'null', `${path} in body must be of type ${String(schema.type)}: "null"`)];
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))) return [];
    return [invalidValue(path, typeName(value), `${path} in body must be of type integer,string: "${typeName(value)}"`)];
  }
  if (schema.type !== undefined && !matchesType(schema.type, value)) {
    return [invalidValue(path, typeName(value), `${path} in body must be of type ${String(schema.type)}: "${typeName(value)}"`)];
  }
  const errors: FieldError[] = [];
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => jsonEqual(allowed, value))) {
    errors.push(notSupported(path, value, schema.enum.map(String)));
  }
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) {
      errors.push(tooLong(path, `may not be more than ${schema.maxLength} bytes`));
    }
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) {
      errors.push(invalidValue(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
    }
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
      errors.push(invalidValue(path, value, `${path} in body should match '${schema.pattern}'`));
    }
  } else if (typeof value === 'number') {
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      errors.push(invalidValue(path, value, `${path} in body should be less than or equal to ${schema.maximum}`));
    }
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      errors.push(invalidValue(path, value, `${path} in body should be greater than or equal to ${schema.minimum}`));
    }
  } else if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push(tooMany(path, value.length, schema.maxItems));
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      errors.push(invalidValue(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
    }
    value.forEach((item, i) => errors.push(...validateAgainstSchema(schema.items, item, `${path}[${i}]`, false)));
    errors.push(...uniqueness(schema, value, path));
  } else if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const name of Array.isArray(schema.required) ? schema.required.map(String) : []) {
      if (value[name] === undefined) errors.push(required(at(path, name)));
    }
    const keys = Object.keys(value).filter((k) => !(isRoot && ROOT_FIELDS.has(k)));
    if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
      errors.push(tooMany(path, keys.length, schema.maxProperties));
    }
    for (const key of keys) {
      if (properties[key] !== undefined) errors.push(...validateAgainstSchema(properties[key], value[key], at(path, key), false));
      else if (isObject(schema.additionalProperties)) {
        errors.push(...validateAgainstSchema(schema.additionalProperties, value[key], `${path}[${key}]`, false));
      }
    }
  }
  return errors;
}

function goMap(key: JsonObject): string {
  return `map[string]interface {}{${Object.entries(key)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join(', ')}}`;
}

function uniqueness(schema: JsonObject, items: unknown[], path: string): FieldError[] {
  const listType = schema['x-kubernetes-list-type'];
  const errors: FieldError[] = [];
  const seen: unknown[] = [];
  items.forEach((item, i) => {
    let identity: unknown = item;
    if (listType === 'map') {
      const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].map(String) : [];
      const key: JsonObject = {};
      for (const k of keys) key[k] = isObject(item) ? item[k] : undefined;
      identity = key;
      if (seen.some((s) => jsonEqual(s, identity))) errors.push(duplicate(`${path}[${i}]`, key, goMap(key)));
    } else if (listType === 'set') {
      if (seen.some((s) => jsonEqual(s, identity))) errors.push(duplicate(`${path}[${i}]`, item));
    }
    seen.push(identity);
  });
  return errors;
}
