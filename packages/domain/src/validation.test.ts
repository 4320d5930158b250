import { describe, expect, it } from 'vitest';
import { DomainError, ValidationError } from './errors.ts';
import { MAX_SECRET_VALUE_BYTES, validateNamespaceName, validateSecretName, validateSecretValue } from './validation.ts';

const utf8Length = (s: string): number => new TextEncoder().encode(s).length;

describe('validateNamespaceName', () => {
  it.each(['a', '7', 'ab', 'a-b', 'team-1', 'a--b', '0a9', 'a'.repeat(40), `a${'-'.repeat(38)}b`])('accepts %j', (name) => {
    expect(validateNamespaceName(name)).toBeNull();
  });

  it('accepts exactly 40 characters and rejects 41', () => {
    expect(validateNamespaceName('n'.repeat(40))).toBeNull();
    expect(validateNamespaceName('n'.repeat(41))).toBeInstanceOf(ValidationError);
  });

  it.each([
    ['empty', ''],
    ['leading hyphen', '-ab'],
    ['trailing hyphen', 'ab-'],
    ['only a hyphen', '-'],
    ['uppercase', 'Team'],
    ['underscore', 'a_b'],
    ['dot', 'a.b'],
    ['space', 'a b'],
    ['trailing newline', 'ab\n'],
    ['non-ASCII letter', 'café'],
    ['41 characters', 'a'.repeat(41)],
  ])('rejects a name with %s', (_label, name) => {
    const error = validateNamespaceName(name);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(DomainError);
    expect(error?.code).toBe('INVALID_NAME');
    expect(error?.field).toBe('name');
  });
});

describe('validateSecretName', () => {
  it.each(['a', '9', 'db.password_v2', 'a-b', 'a_b', 'a.b', 'a._-b', 's'.repeat(63), `s${'_'.repeat(61)}t`])('accepts %j', (name) => {
    expect(validateSecretName(name)).toBeNull();
  });

  it('accepts exactly 63 characters and rejects 64', () => {
    expect(validateSecretName('s'.repeat(63))).toBeNull();
    expect(validateSecretName('s'.repeat(64))).toBeInstanceOf(ValidationError);
  });

  it.each([
    ['empty', ''],
    ['leading hyphen', '-key'],
    ['trailing hyphen', 'key-'],
    ['leading underscore', '_key'],
    ['trailing underscore', 'key_'],
    ['leading dot', '.key'],
    ['trailing dot', 'key.'],
    ['uppercase', 'API_KEY'],
    ['slash', 'a/b'],
    ['space', 'a b'],
    ['trailing newline', 'key\n'],
    ['64 characters', 'k'.repeat(64)],
  ])('rejects a name with %s', (_label, name) => {
    const error = validateSecretName(name);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.code).toBe('INVALID_NAME');
    expect(error?.field).toBe('name');
  });
});

describe('validateSecretValue', () => {
  it('S1 limit is 64 KiB', () => {
    expect(MAX_SECRET_VALUE_BYTES).toBe(65_536);
  });

  it.each([
    ['ASCII', 'sk-live-abc123'],
    ['a single character', 'x'],
    ['Latin accents', 'pässwörd-ünïcode'],
    ['CJK', '秘密の値'],
    ['an emoji (a valid surrogate pair)', 'key-\uD83D\uDE00-end'],
    ['whitespace and control characters other than NUL', ' \t\r\n\u0001\u007F'],
    ['a JSON document', '{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----\\n"}'],
  ])('S1 accepts ordinary unicode: %s', (_label, value) => {
    expect(validateSecretValue(value)).toBeNull();
  });

  it('S1 rejects an empty value with EMPTY_VALUE', () => {
    const error = validateSecretValue('');
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.code).toBe('EMPTY_VALUE');
    expect(error?.field).toBe('value');
  });

  it('S1 accepts exactly 64 KiB of ASCII and rejects 64 KiB + 1 byte', () => {
    expect(validateSecretValue('a'.repeat(65_536))).toBeNull();
    const error = validateSecretValue('a'.repeat(65_537));
    expect(error?.code).toBe('VALUE_TOO_LARGE');
    expect(error?.field).toBe('value');
  });

  it('S1 accepts exactly 64 KiB made of multi-byte characters', () => {
    // 4-byte emoji, a 3-byte euro sign and one ASCII byte: 16383*4 + 3 + 1 = 65536 bytes in 32768 UTF-16 units.
    const value = '\u{1F600}'.repeat(16_383) + '€' + 'a';
    expect(utf8Length(value)).toBe(65_536);
    expect(validateSecretValue(value)).toBeNull();

    const twoByte = 'é'.repeat(32_768);
    expect(utf8Length(twoByte)).toBe(65_536);
    expect(validateSecretValue(twoByte)).toBeNull();
  });

  it('S1 rejects a value of 64 KiB + 1 byte made of multi-byte characters, counted in UTF-8 bytes not UTF-16 units', () => {
    // Only 32769 UTF-16 units: a check on string length would let it through.
    const value = '\u{1F600}'.repeat(16_384) + 'a';
    expect(value.length).toBe(32_769);
    expect(utf8Length(value)).toBe(65_537);
    const error = validateSecretValue(value);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.code).toBe('VALUE_TOO_LARGE');
    expect(error?.message).toContain('65537');
    expect(error?.message).toContain('65536');

    const twoByte = 'é'.repeat(32_768) + 'a';
    expect(validateSecretValue(twoByte)?.code).toBe('VALUE_TOO_LARGE');
  });

  it.each([
    ['a lone high surrogate', '\uD800'],
    ['a lone low surrogate', '\uDC00'],
    ['a lone high surrogate inside text', 'abc\uD83Dxyz'],
    ['a lone high surrogate at the end', 'abc\uDBFF'],
    ['a lone low surrogate at the start', '\uDFFFabc'],
    ['a surrogate pair in the wrong order', '\uDE00\uD83D'],
  ])('S1 rejects %s with INVALID_UTF8', (_label, value) => {
    const error = validateSecretValue(value);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.code).toBe('INVALID_UTF8');
    expect(error?.field).toBe('value');
  });

  it.each([
    ['alone', '\u0000'],
    ['inside text', 'abc\u0000def'],
    ['at the end', 'abc\u0000'],
  ])('S1 rejects NUL %s with INVALID_UTF8', (_label, value) => {
    const error = validateSecretValue(value);
    expect(error?.code).toBe('INVALID_UTF8');
    expect(error?.field).toBe('value');
  });

  it.each([
    ['alone', '\uFFFD'],
    ['inside text', 'pass\uFFFDword'],
  ])('S1 rejects U+FFFD (the mark of undecodable bytes) %s with INVALID_UTF8', (_label, value) => {
    const error = validateSecretValue(value);
    expect(error?.code).toBe('INVALID_UTF8');
    expect(error?.field).toBe('value');
  });

  it('S1 reports the field it was given', () => {
    expect(validateSecretValue('', 'input.value')?.field).toBe('input.value');
    expect(validateSecretValue('\uD800', 'harnessAuth.value')?.field).toBe('harnessAuth.value');
    expect(validateSecretValue('a'.repeat(65_537), 'newValue')?.field).toBe('newValue');
    expect(validateSecretValue('ok', 'input.value')).toBeNull();
  });

  describe('S1 messages never contain the value', () => {
    const canary = 'CANARY-zq7Xw3-do-not-echo';
    it.each([
      ['a lone surrogate', `${canary}\uD800`],
      ['NUL', `${canary}\u0000`],
      ['U+FFFD', `${canary}\uFFFD`],
      ['too large', canary + 'x'.repeat(MAX_SECRET_VALUE_BYTES)],
    ])('S1 message for %s does not echo the value', (_label, value) => {
      const error = validateSecretValue(value);
      expect(error).toBeInstanceOf(ValidationError);
      for (const text of [error?.message, String(error), error?.stack, JSON.stringify(error)]) {
        expect(text).toBeDefined();
        expect(text).not.toContain(canary);
        expect(text).not.toContain('zq7Xw3');
      }
    });
  });
});
