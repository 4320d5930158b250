// metav1.Status failures, built the way k8s.io/apimachinery/pkg/api/errors builds them, so that
// messages, reasons and details match what a real kube-apiserver sends.

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'Expired'
  | 'TooManyRequests'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'InternalError';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A group and resource (plural), e.g. {group: 'apps', resource: 'deployments'}. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A group and kind, e.g. {group: 'apps', kind: 'Deployment'}. */
export interface GroupKind {
  group: string;
  kind: string;
}

export class StatusError extends Error {
  readonly status: StatusBody;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details === undefined ? {} : { details: compactDetails(details) }),
      code,
    };
  }

  get code(): number {
    return this.status.code;
  }
}

function compactDetails(details: StatusDetails): StatusDetails {
  // Go's omitempty: empty strings and empty cause lists are not serialized.
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes && details.causes.length > 0) out.causes = details.causes;
  return out;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function groupKindString(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  return { name, group: gr.group, kind: gr.resource };
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, resourceDetails(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${groupResourceString(gr)} "${name}" already exists`,
    resourceDetails(gr, name),
  );
}

export function conflict(gr: GroupResource, name: string, cause: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${cause}`,
    resourceDetails(gr, name),
  );
}

export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export function forbidden(gr: GroupResource, name: string, cause: string): StatusError {
  return new StatusError(
    403,
    'Forbidden',
    `${groupResourceString(gr)} "${name}" is forbidden: ${cause}`,
    resourceDetails(gr, name),
  );
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function unsupportedMediaType(message: string): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', message, {});
}

export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function internalError(cause: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${cause}`, { causes: [{ message: cause }] });
}

/** The 422 a JSON patch that cannot be applied gets (NewGenericServerResponse hides the cause). */
export function patchRejected(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate';

/** One validation failure on one field, as k8s.io/apimachinery/pkg/util/validation/field.Error. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  /** The value as Go's %#v would print it, when JSON would not read the same. */
  valueText?: string;
  detail: string;
}

export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}

export function forbiddenField(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

export function notSupported(field: string, value: unknown, supported: string[]): FieldError {
  return {
    type: 'FieldValueNotSupported',
    field,
    value,
    detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  };
}

export function tooLong(field: string, detail: string): FieldError {
  return { type: 'FieldValueTooLong', field, detail };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, value: actual, detail: `must have at most ${max} items` };
}

export function duplicate(field: string, value: unknown, valueText?: string): FieldError {
  return { type: 'FieldValueDuplicate', field, value, detail: '', ...(valueText ? { valueText } : {}) };
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}

/** field.Error.ErrorBody(): the message without the field path. */
export function fieldErrorBody(error: FieldError): string {
  switch (error.type) {
    case 'FieldValueInvalid':
      return `Invalid value: ${error.valueText ?? formatValue(error.value)}${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueRequired':
      return `Required value${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueForbidden':
      return `Forbidden${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueNotSupported':
      return `Unsupported value: ${formatValue(error.value)}${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueTooLong':
      return `Too long${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueTooMany':
      return `Too many: ${formatValue(error.value)}: ${error.detail}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${error.valueText ?? formatValue(error.value)}`;
  }
}

export function invalid(gk: GroupKind, name: string, errors: FieldError[]): StatusError {
  const messages = errors.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  const aggregate = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${groupKindString(gk)} "${name}" is invalid: ${aggregate}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
  });
}
