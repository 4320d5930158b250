import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonIndented, contentHash, sha256Hex } from './content-hash.ts';

// RC2: a name that follows content. The oracles are written the obvious way (recursion,
// JSON.stringify, node:crypto) and the generated values include keys JSON.parse orders as array
// indexes (up to 2^32 - 2) beside keys that look like them but are not ("01", "4294967295", "-1").

const INDEX_LIKE = ['0', '1', '2', '9', '10', '11', '100', '01', '-1', '1.5', '4294967294', '4294967295', '4294967296', 'a', 'b', 'B', '_', 'é', '\u{1F600}', ''];
const key = fc.oneof(fc.constantFrom(...INDEX_LIKE), fc.string({ maxLength: 4 }));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string()), tie('array'), tie('object')),
  array: fc.array(tie('tree'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('tree'), { maxKeys: 6 }),
}));

/** Keys sorted by UTF-16 code unit at every level, then JSON.stringify. */
function sortedStringify(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      // A Map keeps the sorted order where a plain object would move index keys first.
      return new Map(keys.map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  const write = (v: unknown): string => {
    if (v instanceof Map) return `{${[...v].map(([k, e]) => `${JSON.stringify(k)}:${write(e)}`).join(',')}}`;
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    return JSON.stringify(v);
  };
  return write(sort(value));
}

describe('canonical JSON', () => {
  it('RC2 canonicalJson is JSON with every object’s keys in code-unit order, for generated documents', () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect(canonicalJson(value)).toBe(sortedStringify(value));
      }),
      { numRuns: 1_500 },
    );
  });

  it('RC2 the indented form keeps the bytes it had when written by JSON.stringify(JSON.parse(canonical), null, 2): index keys first, in number order', () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect(canonicalJsonIndented(value)).toBe(JSON.stringify(JSON.parse(canonicalJson(value)), null, 2));
      }),
      { numRuns: 1_500 },
    );
    const mixed = { b: 1, 10: 2, 2: 3, a: { '01': [], 4294967295: {}, 4294967294: [] } };
    expect(canonicalJsonIndented(mixed)).toBe(JSON.stringify(JSON.parse(canonicalJson(mixed)), null, 2));
    expect(canonicalJsonIndented(mixed).indexOf('"2"')).toBeLessThan(canonicalJsonIndented(mixed).indexOf('"10"'));
  });

  it('RC2 undefined is written as JSON.stringify writes it: left out of objects, null in arrays and on its own; equal documents in any key order hash alike', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJsonIndented([undefined])).toBe('[\n  null\n]');
    expect(canonicalJsonIndented({ a: [], b: {} })).toBe('{\n  "a": [],\n  "b": {}\n}');
    expect(contentHash({ x: 1, y: [2, { z: 3, w: 4 }] })).toBe(contentHash({ y: [2, { w: 4, z: 3 }], x: 1 }));
    expect(contentHash({ x: 1 })).not.toBe(contentHash({ x: 2 }));
    expect(contentHash({ x: 1 }, 8)).toBe(contentHash({ x: 1 }).slice(0, 8));
    expect(contentHash({ x: 1 })).toHaveLength(16);
  });
});

describe('SHA-256', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ])('RC2 sha256Hex(%j) is the FIPS 180-4 test vector', (text, hex) => {
    expect(sha256Hex(text)).toBe(hex);
  });

  it('RC2 sha256Hex agrees with node:crypto on generated text of every length around the block boundaries', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 150 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
      { numRuns: 1_000 },
    );
    for (let n = 50; n <= 130; n++) expect(sha256Hex('x'.repeat(n))).toBe(createHash('sha256').update('x'.repeat(n)).digest('hex'));
  });
});
