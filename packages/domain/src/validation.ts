import { ValidationError } from './errors.ts';

export const MAX_SECRET_VALUE_BYTES = 64 * 1024;

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;
const SECRET_NAME = /^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$/;

export function validateNamespaceName(name: string): ValidationError | null {
  if (!NAMESPACE_NAME.test(name)) {
    return new ValidationError(
      'INVALID_NAME',
      'A namespace name is 1 to 40 lowercase letters, digits and hyphens, starting and ending with a letter or digit.',
      'name',
    );
  }
  return null;
}

/** Secrets, configurations and agents share one name grammar within their namespace. */
export function validateResourceName(name: string, what: 'secret' | 'configuration' | 'agent'): ValidationError | null {
  if (!SECRET_NAME.test(name)) {
    return new ValidationError(
      'INVALID_NAME',
      `A ${what} name is 1 to 63 lowercase letters, digits, hyphens, underscores and dots, starting and ending with a letter or digit.`,
      'name',
    );
  }
  return null;
}

export function validateSecretName(name: string): ValidationError | null {
  return validateResourceName(name, 'secret');
}

/**
 * Rule S1: a value is non-empty, valid UTF-8 (no NUL, no lone surrogates) and at most 64 KiB
 * encoded. A JavaScript string cannot hold invalid UTF-8 bytes, but it can hold lone surrogates,
 * which is what invalid UTF-8 input becomes at the GraphQL boundary. The message never echoes
 * the value.
 */
export function validateSecretValue(value: string, field = 'value'): ValidationError | null {
  if (value.length === 0) return new ValidationError('EMPTY_VALUE', 'The value must not be empty.', field);
  if (!value.isWellFormed()) {
    return new ValidationError('INVALID_UTF8', 'The value must be valid UTF-8 (it contains a lone surrogate).', field);
  }
  if (value.includes('\u0000')) {
    return new ValidationError('INVALID_UTF8', 'The value must not contain NUL characters.', field);
  }
  if (value.includes('\uFFFD')) {
    // The replacement character is what a decoder substitutes for invalid bytes; accepting it would
    // store silently corrupted credentials.
    return new ValidationError('INVALID_UTF8', 'The value contains U+FFFD, the mark of undecodable bytes.', field);
  }
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > MAX_SECRET_VALUE_BYTES) {
    return new ValidationError('VALUE_TOO_LARGE', `The value is ${bytes} bytes; the limit is ${MAX_SECRET_VALUE_BYTES}.`, field);
  }
  return null;
}
