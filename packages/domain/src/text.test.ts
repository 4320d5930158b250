import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { describeTextProblem, isIdShaped, textProblem, validateText } from './text.ts';

// P4: text PostgreSQL cannot store is named (NUL, a lone surrogate), never quoted; an id's shape is
// checked before any lookup. Each case is one that a changed condition would answer differently.

const HIGH = '\uD83D';
const LOW = '\uDE00';

describe('text that cannot be stored', () => {
  it.each([
    ['', null],
    ['plain text', null],
    ['an emoji 😀 (a surrogate pair)', null],
    ['a\u0000b', 'NUL'],
    ['\u0000', 'NUL'],
    [`lone high ${HIGH} in the middle`, 'LONE_SURROGATE'],
    [`${LOW} lone low first`, 'LONE_SURROGATE'],
    [`${LOW}${HIGH} a pair in the wrong order`, 'LONE_SURROGATE'],
    [`both: \u0000 and ${HIGH}`, 'LONE_SURROGATE'],
  ] as const)('P4 textProblem(%j) is %s', (value, problem) => {
    expect(textProblem(value)).toBe(problem);
  });

  it('P4 textProblem agrees with an encoder round trip and a NUL search for generated strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const wellFormed = new TextDecoder().decode(new TextEncoder().encode(value)) === value;
        expect(textProblem(value)).toBe(!wellFormed ? 'LONE_SURROGATE' : value.includes('\u0000') ? 'NUL' : null);
      }),
      { numRuns: 2_000 },
    );
  });

  it('P4 each problem is described in words of its own', () => {
    expect(describeTextProblem('NUL')).toBe('a NUL character (U+0000)');
    expect(describeTextProblem('LONE_SURROGATE')).toBe('a lone surrogate (not valid UTF-8)');
  });

  it('P4 validateText names the field and the problem with code INVALID_UTF8, never the text; storable text passes', () => {
    const canary = 'canary-7f3a';
    const nul = validateText(`${canary}\u0000`, 'name');
    expect(nul).toBeInstanceOf(ValidationError);
    expect(nul).toMatchObject({ code: 'INVALID_UTF8', field: 'name', message: 'name contains a NUL character (U+0000).' });
    const lone = validateText(`${canary}${HIGH}`, 'values.note');
    expect(lone).toMatchObject({ code: 'INVALID_UTF8', field: 'values.note', message: 'values.note contains a lone surrogate (not valid UTF-8).' });
    expect(`${nul?.message} ${lone?.message}`).not.toContain(canary);
    expect(validateText(canary, 'name')).toBeNull();
  });
});

describe('ids by shape', () => {
  it.each([
    ['sec_3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5b', true],
    ['ns_a', true],
    ['abcd_X-1', true],
    [`ab_${'a'.repeat(100)}`, true],
    [`ab_${'a'.repeat(101)}`, false],
    ['a_x', false],
    ['abcde_x', false],
    ['Sec_x', false],
    ['sec_', false],
    ['sec-x', false],
    ['sec_x y', false],
    ['sec_x/y', false],
    [' sec_x', false],
    ['sec_x\n', false],
    ['xsec_x!', false],
  ] as const)('P6 isIdShaped(%j) is %s', (value, shaped) => {
    expect(isIdShaped(value)).toBe(shaped);
  });
});
