// Name and value checks with the messages k8s.io/apimachinery/pkg/util/validation produces.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export type NameValidator = (name: string) => string[];

export function dns1123Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) {
    errors.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errors;
}

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** IsDNS1035Label: a Service's name (ValidateServiceName). */
export function dns1035Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!DNS1035_LABEL.test(value)) {
    errors.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errors;
}

export function dns1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errors.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return errors;
}

/** Names that only have to be usable as a path segment (Events are lenient). */
export function pathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  if (value.includes('/')) return ["may not contain '/'"];
  if (value.includes('%')) return ["may not contain '%'"];
  return [];
}

export function configKey(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(value)) {
    errors.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (value === '.' || value === '..') errors.push(`must not be '${value}'`);
  else if (value.startsWith('..')) errors.push("must not start with '..'");
  return errors;
}

/** Label and annotation keys: an optional DNS subdomain prefix and a name of at most 63 characters. */
export function qualifiedName(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const errors: string[] = [];
  if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    name = rest;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME_PART.test(name)) {
    errors.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return errors;
}

export function labelValue(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) {
    errors.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return errors;
}

const BASE64_ALPHABET = /[A-Za-z0-9+/]/;

/**
 * Where Go's base64.StdEncoding would fail to decode `value`, or -1 if it decodes. The index is the
 * one Go's "illegal base64 data at input byte N" reports (close enough for messages).
 */
export function base64ErrorOffset(value: string): number {
  const stripped = value.replace(/[\r\n]/g, '');
  let i = 0;
  for (; i < stripped.length; i++) {
    const ch = stripped[i] ?? '';
    if (ch === '=') break;
    if (!BASE64_ALPHABET.test(ch)) return i;
  }
  const dataLength = i;
  const padding = stripped.length - dataLength;
  if (padding > 0) {
    if (!/^={1,2}$/.test(stripped.slice(dataLength))) return dataLength;
    if ((dataLength + padding) % 4 !== 0) return dataLength;
    if (dataLength % 4 === 1) return dataLength;
    if (padding === 2 && dataLength % 4 !== 2) return dataLength;
    if (padding === 1 && dataLength % 4 !== 3) return dataLength;
    return -1;
  }
  if (dataLength % 4 !== 0) return dataLength - (dataLength % 4);
  return -1;
}
