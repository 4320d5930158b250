// Request bodies in Kubernetes protobuf (application/vnd.kubernetes.protobuf), read into the JSON
// objects the rest of the emulator works on. client-go 1.33's generated clients send built-in
// kinds this way whatever the server advertises (gentype.PrefersProtobuf, rest.Request's
// UseProtobufAsDefault in k8s.io/client-go/rest/request.go), and fall back to JSON after a 415
// only for CBOR, so `kubectl create namespace|secret|configmap|deployment` need the server to
// read them. Responses stay JSON: the clients accept "application/vnd.kubernetes.protobuf,
// application/json" and decode by the response's Content-Type.
//
// The envelope is "k8s\0" + runtime.Unknown{typeMeta, raw}; raw is the kind's message. Go's
// generated marshallers write every non-pointer field, zero or not, and pointer fields only when
// set, so a zero value is dropped (JSON's omitempty) unless the field is a pointer in the Go type
// (POINTER_FIELDS), where zero is what the client meant (replicas: 0, optional: false).

import { StatusError } from './errors.ts';
import { MESSAGES } from './protobuf-fields.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The kinds whose messages MESSAGES holds, by apiVersion/kind. */
const ROOTS: Record<string, string> = {
  'v1/Namespace': 'Namespace',
  'v1/Secret': 'Secret',
  'v1/ConfigMap': 'ConfigMap',
  'apps/v1/Deployment': 'Deployment',
};

const POINTER_FIELDS = new Set([
  'DeploymentSpec.replicas',
  'DeploymentSpec.revisionHistoryLimit',
  'DeploymentSpec.progressDeadlineSeconds',
  'Secret.immutable',
  'ConfigMap.immutable',
  'ObjectMeta.deletionGracePeriodSeconds',
  'PodSpec.terminationGracePeriodSeconds',
  'PodSpec.activeDeadlineSeconds',
  'PodSpec.automountServiceAccountToken',
  'PodSpec.enableServiceLinks',
  'PodSpec.shareProcessNamespace',
  'PodSpec.hostUsers',
  'SecretKeySelector.optional',
  'ConfigMapKeySelector.optional',
  'SecretEnvSource.optional',
  'ConfigMapEnvSource.optional',
  'SecurityContext.runAsUser',
  'SecurityContext.runAsGroup',
  'SecurityContext.runAsNonRoot',
  'SecurityContext.privileged',
  'SecurityContext.readOnlyRootFilesystem',
  'SecurityContext.allowPrivilegeEscalation',
  'PodSecurityContext.runAsUser',
  'PodSecurityContext.runAsGroup',
  'PodSecurityContext.runAsNonRoot',
  'PodSecurityContext.fsGroup',
]);

interface Field {
  name: string;
  type: string;
  repeated: boolean;
  map: boolean;
}

const parsed = new Map<string, Map<number, Field>>();

function fieldsOf(message: string): Map<number, Field> {
  let fields = parsed.get(message);
  if (fields) return fields;
  const spec = MESSAGES[message];
  if (spec === undefined) throw new Error(`protobuf: no message ${message}`);
  fields = new Map();
  for (const entry of spec.split(' ').filter((s) => s !== '')) {
    const match = /^(\w+)=(\d+):(map:|\[\])?(.+)$/.exec(entry);
    if (!match) throw new Error(`protobuf: bad field ${entry}`);
    const [, name = '', number = '0', modifier, type = ''] = match;
    fields.set(Number(number), { name, type, repeated: modifier === '[]', map: modifier === 'map:' });
  }
  parsed.set(message, fields);
  return fields;
}

class Reader {
  offset = 0;
  constructor(readonly bytes: Buffer) {}

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.offset >= this.bytes.length) throw new Error('truncated varint');
      const byte = this.bytes[this.offset++] ?? 0;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('varint too long');
    }
  }

  take(n: number): Buffer {
    if (this.offset + n > this.bytes.length) throw new Error('truncated field');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** One field: its number, wire type and raw value (varint as bigint, the rest as bytes). */
  next(): { number: number; wire: number; value: bigint | Buffer } {
    const key = this.varint();
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    switch (wire) {
      case 0:
        return { number, wire, value: this.varint() };
      case 1:
        return { number, wire, value: this.take(8) };
      case 2:
        return { number, wire, value: this.take(Number(this.varint())) };
      case 5:
        return { number, wire, value: this.take(4) };
      default:
        throw new Error(`unsupported wire type ${wire}`);
    }
  }
}

function signed(value: bigint, bits: 32 | 64): number {
  return Number(BigInt.asIntN(bits, value));
}

function scalar(type: string, value: bigint | Buffer): unknown {
  switch (type) {
    case 'string':
      return (value as Buffer).toString('utf8');
    case 'bytes':
      return (value as Buffer).toString('base64');
    case 'bool':
      return value !== 0n;
    case 'int32':
      return signed(value as bigint, 32);
    case 'int64':
      return signed(value as bigint, 64);
    case 'double':
      return (value as Buffer).readDoubleLE(0);
    default:
      throw new Error(`unsupported scalar ${type}`);
  }
}

function isZero(value: unknown): boolean {
  if (value === '' || value === 0 || value === false || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0;
  return false;
}

/** The JSON form of the types that have their own (metav1.Time, IntOrString, Quantity, raw JSON). */
function special(type: string, bytes: Buffer): unknown {
  const fields = new Map<number, bigint | Buffer>();
  const reader = new Reader(bytes);
  while (!reader.done) {
    const { number, value } = reader.next();
    fields.set(number, value);
  }
  switch (type) {
    case 'time': {
      const seconds = fields.get(1);
      if (seconds === undefined) return undefined;
      return new Date(signed(seconds as bigint, 64) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'intstr':
      return fields.get(1) === 1n ? ((fields.get(3) as Buffer | undefined)?.toString('utf8') ?? '') : signed((fields.get(2) as bigint | undefined) ?? 0n, 32);
    case 'quantity':
      return (fields.get(1) as Buffer | undefined)?.toString('utf8');
    case 'duration': {
      const ns = signed((fields.get(1) as bigint | undefined) ?? 0n, 64);
      return `${ns / 1e9}s`;
    }
    case 'raw': {
      const raw = fields.get(1) as Buffer | undefined;
      return raw && raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
    }
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

const SPECIAL = new Set(['time', 'intstr', 'quantity', 'duration', 'raw']);
const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

function valueOf(type: string, raw: bigint | Buffer): unknown {
  if (SCALARS.has(type)) return scalar(type, raw);
  if (SPECIAL.has(type)) return special(type, raw as Buffer);
  return decodeMessage(type, raw as Buffer);
}

function decodeMessage(message: string, bytes: Buffer): Record<string, unknown> {
  const fields = fieldsOf(message);
  const out: Record<string, unknown> = {};
  const reader = new Reader(bytes);
  while (!reader.done) {
    const { number, wire, value } = reader.next();
    const field = fields.get(number);
    if (!field) throw new Error(`${message} has no field ${number}`);
    if (field.map) {
      const entry = new Reader(value as Buffer);
      let key = '';
      let item: unknown = field.type === 'string' ? '' : undefined;
      while (!entry.done) {
        const part = entry.next();
        if (part.number === 1) key = (part.value as Buffer).toString('utf8');
        else if (part.number === 2) item = valueOf(field.type, part.value);
      }
      if (field.type === 'bytes' && item === undefined) item = '';
      const map = (out[field.name] ??= {}) as Record<string, unknown>;
      map[key] = item;
    } else if (field.repeated) {
      const list = (out[field.name] ??= []) as unknown[];
      if (wire === 2 && (field.type === 'int32' || field.type === 'int64' || field.type === 'bool')) {
        const packed = new Reader(value as Buffer);
        while (!packed.done) list.push(scalar(field.type, packed.varint()));
      } else {
        list.push(valueOf(field.type, value));
      }
    } else {
      const decoded = valueOf(field.type, value);
      if (isZero(decoded) && !POINTER_FIELDS.has(`${message}.${field.name}`)) delete out[field.name];
      else out[field.name] = decoded;
    }
  }
  return out;
}

function unsupported(): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF_MEDIA_TYPE}`,
  );
}

/**
 * The JSON object a protobuf request body holds. Kinds outside ROOTS answer 415 as a real server
 * does for custom resources (which have no protobuf form).
 */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new StatusError(400, 'BadRequest', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  let envelope: Record<string, unknown>;
  try {
    envelope = decodeMessage('runtime.Unknown', body.subarray(MAGIC.length));
  } catch (error) {
    throw new StatusError(400, 'BadRequest', `protobuf: ${(error as Error).message}`);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const root = ROOTS[`${typeMeta.apiVersion ?? ''}/${typeMeta.kind ?? ''}`];
  if (!root) throw unsupported();
  try {
    const object = decodeMessage(root, Buffer.from(String(envelope.raw ?? ''), 'base64'));
    return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...object };
  } catch (error) {
    throw new StatusError(400, 'BadRequest', `protobuf: ${(error as Error).message}`);
  }
}
