// fieldValidation (rule E6): what the server does with fields the kind's schema does not
// declare. A real server drops them whatever the directive (the JSON decoder, or structural
// pruning for custom resources); Strict refuses the request instead, Warn (the default) answers
// with one Warning header per field, Ignore says nothing. The fields are found by walking the
// same schemas /openapi/v3 serves (openapi-docs.ts), so the documents and the checks agree.

import { badRequest, invalid, notSupported } from './errors.ts';
import { kindSchema, resolveSchema } from './openapi-docs.ts';
import type { ResourceType } from './registry.ts';
import { isObject, type JsonObject } from './types.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

const DIRECTIVES = ['Ignore', 'Strict', 'Warn'];

/** The request's directive: Warn when absent; anything else is refused as the options' validation refuses it. */
export function fieldValidationOf(value: string | null, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (DIRECTIVES.includes(value)) return value as FieldValidation;
  throw invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [notSupported('fieldValidation', value, ['', ...DIRECTIVES])]);
}

function resolve(schema: unknown): JsonObject | undefined {
  return isObject(schema) ? resolveSchema(schema) : undefined;
}

function walk(schema: unknown, value: unknown, path: string, found: string[]): void {
  const resolved = resolve(schema);
  if (!resolved || resolved['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(resolved.items, item, `${path}[${i}]`, found));
    return;
  }
  if (!isObject(value)) return;
  const properties = isObject(resolved.properties) ? resolved.properties : undefined;
  const additional = resolved.additionalProperties;
  if (!properties && additional === undefined) return; // an object the schema leaves open
  for (const key of Object.keys(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    const declared = properties?.[key] ?? (isObject(additional) ? additional : undefined);
    if (declared !== undefined) walk(declared, value[key], at, found);
    else if (additional !== true) {
      found.push(at);
      delete value[key];
    }
  }
}

/**
 * Removes the fields `type`'s schema does not declare from `object` and returns their paths
 * (`spec.foo`, `spec.items[0].bar`); apiVersion and kind are always known.
 */
export function takeUnknownFields(type: ResourceType, object: JsonObject): string[] {
  const found: string[] = [];
  walk(kindSchema(type), object, '', found);
  // apiextensions-apiserver sorts the paths pruning reports before naming them.
  return found.sort();
}

/**
 * Applies the directive to an incoming object: Strict throws the decoder's 400 naming every
 * unknown field; Warn returns the Warning texts; unknown fields are dropped in every case.
 */
export function checkFields(type: ResourceType, object: JsonObject, directive: FieldValidation): string[] {
  const unknown = takeUnknownFields(type, object);
  if (unknown.length === 0 || directive === 'Ignore') return [];
  const texts = unknown.map((path) => `unknown field "${path}"`);
  if (directive === 'Strict') {
    throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${texts.join(', ')}`);
  }
  return texts;
}

/** A Warning header value as k8s.io/apiserver/pkg/warning writes it: code 299, agent "-", quoted text. */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
