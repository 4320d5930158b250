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
// (the generated table marks them), where zero is what the client meant (replicas: 0, optional:
// false). The table, protobuf-messages.ts, is generated from k8s.io/api's Go types for every kind
// served (protobuf-generate.ts), so a kind has a protobuf form as soon as it is generated.

import { StatusError } from './errors.ts';
import { MESSAGES } from './protobuf-messages.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/**
 * The message of a kind, by its apiVersion and kind: core.v1.Secret, apps.v1.Deployment,
 * rbac.v1.RoleBinding, authentication.v1.TokenRequest. Undefined for kinds without one (custom
 * resources, which a real server answers 415 for too).
 */
export function messageOf(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? 'core' : (apiVersion.slice(0, slash).split('.')[0] ?? '');
  const name = `${group}.${apiVersion.slice(slash + 1)}.${kind}`;
  return MESSAGES[name] === undefined ? undefined : name;
}

interface Field {
  /** The JSON name; '-' for a struct the Go type inlines (its fields are the parent's). */
  name: string;
  type: string;
  repeated: boolean;
  map: boolean;
  /** A pointer in the Go type: written when set, so a zero value is what the client meant. */
  pointer: boolean;
}

const parsed = new Map<string, Map<number, Field>>();

function fieldsOf(message: string): Map<number, Field> {
  let fields = parsed.get(message);
  if (fields) return fields;
  const spec = MESSAGES[message];
  if (spec === undefined) throw new Error(`protobuf: no message ${message}`);
  fields = new Map();
  for (const entry of spec.split(' ').filter((s) => s !== '')) {
    const match = /^(\w+|-)=(\d+):(map:|\[\])?([\w.]+)(\?)?$/.exec(entry);
    if (!match) throw new Error(`protobuf: bad field ${entry}`);
    const [, name = '', number = '0', modifier, type = '', pointer] = match;
    fields.set(Number(number), { name, type, repeated: modifier === '[]', map: modifier === 'map:', pointer: pointer === '?' });
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
  const items: string[] = [];
  const reader = new Reader(bytes);
  while (!reader.done) {
    const { number, value } = reader.next();
    fields.set(number, value);
    if (number === 1 && Buffer.isBuffer(value)) items.push(value.toString('utf8'));
  }
  if (type === 'strings') return items;
  switch (type) {
    case 'time': {
      const seconds = fields.get(1);
      if (seconds === undefined) return undefined;
      return new Date(signed(seconds as bigint, 64) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'microtime': {
      const seconds = fields.get(1);
      if (seconds === undefined) return undefined;
      const nanos = signed((fields.get(2) as bigint | undefined) ?? 0n, 32);
      const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
      return new Date(signed(seconds as bigint, 64) * 1000).toISOString().replace(/\.\d{3}Z$/, `.${micros}Z`);
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

const SPECIAL = new Set(['time', 'microtime', 'intstr', 'quantity', 'duration', 'raw', 'strings']);
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
    // Unknown fields are skipped, as Go's generated unmarshallers do (a 1.20 server still writes
    // ObjectMeta's clusterName, field 15).
    if (!field) continue;
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
    } else if (field.name === '-') {
      Object.assign(out, valueOf(field.type, value));
    } else {
      const decoded = valueOf(field.type, value);
      if (isZero(decoded) && !field.pointer) delete out[field.name];
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
 * The JSON object a protobuf request body holds. Kinds without a message answer 415 as a real
 * server does for custom resources (which have no protobuf form).
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
  const root = messageOf(typeMeta.apiVersion ?? '', typeMeta.kind ?? '');
  if (!root) throw unsupported();
  try {
    const object = decodeMessage(root, Buffer.from(String(envelope.raw ?? ''), 'base64'));
    return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...object };
  } catch (error) {
    throw new StatusError(400, 'BadRequest', `protobuf: ${(error as Error).message}`);
  }
}

// Writing: the JSON objects the server answers with, in the form a client that asked for
// protobuf first (client-go's typed clients) reads. Fields are written when the object has them;
// a reader takes a missing field as its zero value, as Go's unmarshallers do.

class Writer {
  readonly parts: Buffer[] = [];

  varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0n);
    this.parts.push(Buffer.from(bytes));
  }

  key(number: number, wire: number): void {
    this.varint(BigInt((number << 3) | wire));
  }

  bytes(number: number, bytes: Buffer): void {
    this.key(number, 2);
    this.varint(BigInt(bytes.length));
    this.parts.push(bytes);
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function timestamp(text: unknown, micro: boolean): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const millis = Date.parse(text);
  if (Number.isNaN(millis)) return undefined;
  const writer = new Writer();
  writer.key(1, 0);
  writer.varint(BigInt(Math.floor(millis / 1000)));
  const fraction = micro ? /\.(\d{1,9})/.exec(text)?.[1] : undefined;
  if (fraction) {
    writer.key(2, 0);
    writer.varint(BigInt(Number(fraction.padEnd(9, '0'))));
  }
  return writer.done();
}

/** The bytes of a value with its own JSON form, or undefined when the value cannot have it. */
function encodeSpecial(type: string, value: unknown): Buffer | undefined {
  const writer = new Writer();
  switch (type) {
    case 'time':
    case 'microtime':
      return timestamp(value, type === 'microtime');
    case 'intstr':
      if (typeof value === 'number') {
        writer.key(1, 0);
        writer.varint(0n);
        writer.key(2, 0);
        writer.varint(BigInt(Math.trunc(value)));
      } else {
        writer.key(1, 0);
        writer.varint(1n);
        writer.bytes(3, Buffer.from(String(value)));
      }
      return writer.done();
    case 'quantity':
      writer.bytes(1, Buffer.from(String(value)));
      return writer.done();
    case 'raw':
      writer.bytes(1, Buffer.from(JSON.stringify(value)));
      return writer.done();
    case 'strings':
      if (!Array.isArray(value)) return undefined;
      for (const item of value) if (typeof item === 'string') writer.bytes(1, Buffer.from(item, 'utf8'));
      return writer.done();
    default:
      return undefined;
  }
}

/** One value of a field: the writer gets its key and bytes (nothing for a value of the wrong shape). */
function encodeValue(writer: Writer, number: number, type: string, value: unknown): void {
  switch (type) {
    case 'string':
      if (typeof value === 'string') writer.bytes(number, Buffer.from(value, 'utf8'));
      return;
    case 'bytes':
      if (typeof value === 'string') writer.bytes(number, Buffer.from(value, 'base64'));
      return;
    case 'bool':
      if (typeof value === 'boolean') {
        writer.key(number, 0);
        writer.varint(value ? 1n : 0n);
      }
      return;
    case 'int32':
    case 'int64':
      if (typeof value === 'number' && Number.isFinite(value)) {
        writer.key(number, 0);
        writer.varint(BigInt(Math.trunc(value)));
      }
      return;
    case 'double':
      if (typeof value === 'number') {
        const bytes = Buffer.alloc(8);
        bytes.writeDoubleLE(value);
        writer.key(number, 1);
        writer.parts.push(bytes);
      }
      return;
    default: {
      const bytes = SPECIAL.has(type) ? encodeSpecial(type, value) : isPlainObject(value) ? encodeMessage(type, value) : undefined;
      if (bytes !== undefined) writer.bytes(number, bytes);
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function encodeMessage(message: string, object: Record<string, unknown>): Buffer {
  const writer = new Writer();
  for (const [number, field] of [...fieldsOf(message)].sort(([a], [b]) => a - b)) {
    if (field.name === '-') {
      writer.bytes(number, encodeMessage(field.type, object));
      continue;
    }
    const value = object[field.name];
    if (value === undefined || value === null) continue;
    if (field.map) {
      if (!isPlainObject(value)) continue;
      for (const key of Object.keys(value).sort()) {
        const entry = new Writer();
        entry.bytes(1, Buffer.from(key, 'utf8'));
        encodeValue(entry, 2, field.type, value[key]);
        writer.bytes(number, entry.done());
      }
    } else if (field.repeated) {
      if (Array.isArray(value)) for (const item of value) encodeValue(writer, number, field.type, item);
    } else {
      encodeValue(writer, number, field.type, value);
    }
  }
  return writer.done();
}

/**
 * The protobuf body of a response object (a kind's object or its list), or undefined when its
 * kind has no protobuf form and the response stays JSON.
 */
export function encodeProtobufObject(object: unknown): Buffer | undefined {
  if (!isPlainObject(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return undefined;
  const message = messageOf(object.apiVersion, object.kind);
  if (message === undefined) return undefined;
  const typeMeta = new Writer();
  typeMeta.bytes(1, Buffer.from(object.apiVersion));
  typeMeta.bytes(2, Buffer.from(object.kind));
  const envelope = new Writer();
  envelope.bytes(1, typeMeta.done());
  envelope.bytes(2, encodeMessage(message, object));
  envelope.bytes(3, Buffer.alloc(0));
  envelope.bytes(4, Buffer.alloc(0));
  return Buffer.concat([MAGIC, envelope.done()]);
}

/** Whether the client's Accept header puts protobuf first (client-go's typed clients do). */
export function prefersProtobuf(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  const [type, ...params] = first.split(';').map((part) => part.trim().toLowerCase());
  return type === PROTOBUF_MEDIA_TYPE && !params.some((param) => param.startsWith('as='));
}
