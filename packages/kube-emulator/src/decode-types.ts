// Type errors of the JSON decoder for built-in kinds (rule E6). A real server decodes a body into
// the kind's Go struct, so a value of the wrong JSON type is refused whatever fieldValidation says
// (a Deployment with `replicas: "two"` is a 400, never stored), in the words of Go's encoding/json,
// which the server's decoder (sigs.k8s.io/json) is a fork of:
//   json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
// Struct is the Go struct holding the field, Field the JSON path from the root without list
// indices or map keys, and only the first error in document order is named (decode.go keeps the
// first it saves). The types are read from the captured schemas (kinds/openapi-captured.ts).
//
// Not emulated: the errors of types that decode themselves (Quantity, IntOrString, Time, RawExtension,
// the CRD schema's JSON values), which are accepted here as long as they are not objects where a
// scalar is wanted, and base64 errors in []byte fields.

import { referenceNameOf, resolveSchema } from './openapi-docs.ts';
import { isObject, type JsonObject } from './types.ts';

/** Definitions whose Go types implement UnmarshalJSON themselves; their errors are not emulated. */
const SELF_DECODING = new Set([
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
]);

const INT_RANGES: Record<string, readonly [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`, as reflect names a Go type. */
function goName(definition: string): string {
  return definition.split('.').slice(-2).join('.');
}

/** The Go type reflect would name for a schema node. */
function goType(schema: JsonObject): string {
  const name = referenceNameOf(schema);
  if (name !== undefined) return goName(name);
  switch (schema.type) {
    case 'string':
      return schema.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return typeof schema.format === 'string' && schema.format in INT_RANGES ? schema.format : 'int';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${isObject(schema.items) ? goType(schema.items) : 'interface {}'}`;
    default:
      return `map[string]${isObject(schema.additionalProperties) ? goType(schema.additionalProperties) : 'interface {}'}`;
  }
}

/** What encoding/json calls the JSON value it could not store: "string", "number 1.5", "object" … */
function valueKind(value: unknown, schema: JsonObject): string {
  if (typeof value === 'number') return schema.type === 'integer' ? `number ${String(value)}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  return isObject(value) ? 'object' : 'string';
}

function fits(schema: JsonObject, value: unknown): boolean {
  switch (schema.type) {
    case 'string':
      return typeof value === 'string';
    case 'integer': {
      const [min, max] = INT_RANGES[goType(schema)] ?? (INT_RANGES.int as readonly [number, number]);
      return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
    }
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    default:
      return isObject(value);
  }
}

interface Position {
  /** The Go struct holding the field being decoded. */
  struct: string;
  /** The JSON names from the root to it. */
  fields: readonly string[];
}

function firstError(schema: JsonObject, value: unknown, at: Position): string | undefined {
  if (value === null) return undefined; // Go leaves the zero value
  const name = referenceNameOf(schema);
  if (name !== undefined && SELF_DECODING.has(name)) return undefined;
  const resolved = resolveSchema(schema);
  if (resolved.type === undefined && !isObject(resolved.properties)) return undefined; // open
  if (!fits(resolved, value)) {
    return `json: cannot unmarshal ${valueKind(value, resolved)} into Go struct field ${at.struct}.${at.fields.join('.')} of type ${goType(schema)}`;
  }
  if (Array.isArray(value)) {
    if (!isObject(resolved.items)) return undefined;
    for (const item of value) {
      const error = firstError(resolved.items, item, at);
      if (error) return error;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const properties = isObject(resolved.properties) ? resolved.properties : undefined;
  const struct = name !== undefined ? (name.split('.').at(-1) as string) : at.struct;
  for (const [key, item] of Object.entries(value)) {
    const declared = properties ? properties[key] : resolved.additionalProperties;
    if (!isObject(declared)) continue; // unknown fields are fieldValidation's
    const error = firstError(declared, item, properties ? { struct, fields: [...at.fields, key] } : at);
    if (error) return error;
  }
  return undefined;
}

/**
 * The decoder's first type error for `object` as the built-in kind whose captured definition is
 * `kindName` (e.g. `io.k8s.api.apps.v1.Deployment`), or undefined when it decodes.
 */
export function decodeTypeError(kindName: string, object: JsonObject): string | undefined {
  return firstError({ $ref: `#/components/schemas/${kindName}` }, object, { struct: '', fields: [] });
}
