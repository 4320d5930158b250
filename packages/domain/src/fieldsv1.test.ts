import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childrenAt, compareElements, difference, fieldElement, fromFieldsV1, intersection, keyElement, ownsAtOrBelow, parseElement, parsePath, pathOf, pathString, toFieldsV1, union, valueElement } from './fieldsv1.ts';

// Vectors are managedFields as kube-apiserver 1.30+ writes them (kubectl apply --server-side,
// kubectl create, controllers), copied byte for byte: the key order, the "." markers and the JSON
// bodies of `k:` and `v:` elements are the server's, so a parser that strips quotes instead of
// decoding JSON, or re-sorts keys, fails here.

/** A Deployment applied by kubectl: map lists with one key (containers, env) and two (ports). */
const DEPLOYMENT = JSON.parse(
  '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:env":{"k:{\\"name\\":\\"A\\"}":{".":{},"f:name":{},"f:value":{}},"k:{\\"name\\":\\"B\\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:secretKeyRef":{}}}},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}},"k:{\\"containerPort\\":443,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}',
);

/** A namespace's finalizers (a set of strings) and a CRD's set of numbers and of strings with escapes. */
const SETS = JSON.parse(
  '{"f:spec":{"f:finalizers":{".":{},"v:\\"kubernetes\\"":{}},"f:ports":{"v:1":{},"v:80":{},"v:8080":{}},"f:skills":{"v:\\"1\\"":{},"v:\\"a\\\\\\"b\\"":{},"v:\\"npm:@scope/pkg\\"":{},"v:\\"ü\\"":{}}}}',
);

/** An OpenClawInstance as the SelfConfig controller leaves it: granular and atomic maps. */
const INSTANCE = JSON.parse(
  '{"f:spec":{"f:config":{"f:raw":{}},"f:env":{"k:{\\"name\\":\\"MY_VAR\\"}":{".":{},"f:name":{},"f:value":{}}},"f:skills":{"v:\\"fetch\\"":{}},"f:workspace":{"f:initialFiles":{"f:notes/a.md":{},"f:x\\"y":{}}}}}',
);

const SKILLS = ['f:spec', 'f:skills'];

describe('FieldsV1 (SC7: v: and k: keys are JSON)', () => {
  it('SC7 reads a set of strings by decoding each v: body as JSON, escapes and non-ASCII included', () => {
    const set = fromFieldsV1(SETS);
    const skills = childrenAt(set, SKILLS).map((c) => c.element);
    expect(skills).toEqual([
      { type: 'value', value: '1' },
      { type: 'value', value: 'a"b' },
      { type: 'value', value: 'npm:@scope/pkg' },
      { type: 'value', value: 'ü' },
    ]);
  });

  it('SC7 tells a set of numbers from a set of strings: v:1 is the number 1, v:"1" the string', () => {
    const set = fromFieldsV1(SETS);
    expect(childrenAt(set, ['f:spec', 'f:ports']).map((c) => c.element)).toEqual([
      { type: 'value', value: 1 },
      { type: 'value', value: 80 },
      { type: 'value', value: 8080 },
    ]);
    expect(parseElement('v:"1"')).not.toEqual(parseElement('v:1'));
  });

  it('SC7 reads map-list keys with one key field and with several, as JSON objects', () => {
    const set = fromFieldsV1(DEPLOYMENT);
    const container = ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}'];
    expect(childrenAt(set, [...container, 'f:env']).map((c) => c.element)).toEqual([
      { type: 'key', key: { name: 'A' } },
      { type: 'key', key: { name: 'B' } },
    ]);
    expect(childrenAt(set, [...container, 'f:ports']).map((c) => c.element)).toEqual([
      { type: 'key', key: { containerPort: 80, protocol: 'TCP' } },
      { type: 'key', key: { containerPort: 443, protocol: 'TCP' } },
    ]);
  });

  it('SC7 keeps an owned item ("." member) apart from the fields owned beneath it', () => {
    const set = fromFieldsV1(DEPLOYMENT);
    const envA = pathOf(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:env', 'k:{"name":"A"}']);
    expect(set.has(envA)).toBe(true);
    expect(set.has(`${envA}\u0000f:value`)).toBe(true);
    // An atomic map is a leaf: owned whole, nothing below it.
    const ref = pathOf(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:env', 'k:{"name":"B"}', 'f:valueFrom', 'f:secretKeyRef']);
    expect(set.has(ref)).toBe(true);
    expect([...set].some((p) => p.startsWith(`${ref}\u0000`))).toBe(false);
    expect(set.has(pathOf(['f:spec', 'f:selector']))).toBe(true);
  });

  it('SC7 reads granular map keys as field names (a path may hold quotes and slashes) and an atomic map as one field', () => {
    const set = fromFieldsV1(INSTANCE);
    expect(childrenAt(set, ['f:spec', 'f:workspace', 'f:initialFiles']).map((c) => c.element)).toEqual([
      { type: 'field', name: 'notes/a.md' },
      { type: 'field', name: 'x"y' },
    ]);
    expect(set.has(pathOf(['f:spec', 'f:config', 'f:raw']))).toBe(true);
    expect(childrenAt(set, ['f:spec', 'f:config', 'f:raw'])).toEqual([]);
  });

  it('SC7 writes back exactly what the server wrote: same keys, same order, same "." markers', () => {
    for (const doc of [DEPLOYMENT, SETS, INSTANCE]) {
      expect(JSON.stringify(toFieldsV1(fromFieldsV1(doc)))).toBe(JSON.stringify(doc));
    }
  });

  it('SC7 builds elements as the server spells them: sorted compact JSON keys, JSON values', () => {
    expect(keyElement({ protocol: 'TCP', containerPort: 80 }, ['protocol', 'containerPort'])).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(valueElement('a"b')).toBe('v:"a\\"b"');
    expect(valueElement(8080)).toBe('v:8080');
    expect(pathString(pathOf(['f:spec', 'f:env', 'k:{"name":"A"}', 'f:value']))).toBe('.spec.env[name="A"].value');
    expect(parsePath(pathOf(['f:spec', 'i:3']))).toEqual([
      { type: 'field', name: 'spec' },
      { type: 'index', index: 3 },
    ]);
  });

  it('SC7 refuses elements that are not FieldsV1: a v: body that is not JSON, a k: body that is not an object', () => {
    expect(() => parseElement('v:kubernetes')).toThrow(/not JSON/);
    expect(() => parseElement('k:["name"]')).toThrow(/not a JSON object/);
    expect(() => parseElement('x:1')).toThrow(/unknown/);
    expect(() => parseElement('i:-1')).toThrow(/whole number/);
  });

  it('SC7 decodes every JSON value a set can hold, and encoding then decoding is the identity (property)', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(fc.uniqueArray(value, { selector: (v) => JSON.stringify(v), maxLength: 8 }), (values) => {
        const set = new Set(values.map((v) => pathOf(['f:spec', 'f:items', valueElement(v)])));
        const back = fromFieldsV1(JSON.parse(JSON.stringify(toFieldsV1(set))));
        expect(back).toEqual(set);
        const decoded = childrenAt(back, ['f:spec', 'f:items']).map((c) => (c.element as { value: unknown }).value);
        expect(new Set(decoded.map((v) => JSON.stringify(v)))).toEqual(new Set(values.map((v) => JSON.stringify(v))));
      }),
    );
  });
});

describe('field sets and the order of path elements (SC7: what the server compares)', () => {
  const element = fc.oneof(
    fc.string({ maxLength: 3 }).map(fieldElement),
    fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant(null)).map(valueElement),
    fc.record({ name: fc.string({ maxLength: 3 }), port: fc.integer({ min: 0, max: 3 }) }, { requiredKeys: ['name'] }).map((item) => keyElement(item, Object.keys(item))),
    fc.nat({ max: 12 }).map((i) => `i:${i}`),
  );
  const path = fc.array(element, { minLength: 1, maxLength: 3 }).map(pathOf);
  const set = fc.array(path, { maxLength: 6 }).map((paths) => new Set(paths));

  it('SC7 union, difference and intersection are the set operations on paths (generated)', () => {
    fc.assert(
      fc.property(set, set, set, (a, b, c) => {
        expect([...union(a, b, c)].sort()).toEqual([...new Set([...a, ...b, ...c])].sort());
        expect([...union()]).toEqual([]);
        expect([...difference(a, b)].sort()).toEqual([...a].filter((p) => !b.has(p)).sort());
        expect([...intersection(a, b)].sort()).toEqual([...a].filter((p) => b.has(p)).sort());
      }),
    );
  });

  it('SC7 a set owns at or below a path when it holds the path or a path under it, not one that merely starts with the same text', () => {
    const spec = pathOf(['f:spec']);
    const env = pathOf(['f:spec', 'f:env']);
    expect(ownsAtOrBelow(new Set([spec]), spec)).toBe(true);
    expect(ownsAtOrBelow(new Set([env]), spec)).toBe(true);
    expect(ownsAtOrBelow(new Set([spec]), env)).toBe(false);
    expect(ownsAtOrBelow(new Set([pathOf(['f:specs'])]), spec)).toBe(false);
    expect(ownsAtOrBelow(new Set(), spec)).toBe(false);
  });

  it('SC7 elements are ordered as structured-merge-diff orders them: fields, keys, values, indexes; a total order within each (generated)', () => {
    const rank = (e: string) => 'fkvi'.indexOf(e[0]!);
    fc.assert(
      fc.property(element, element, element, (a, b, c) => {
        expect(Math.sign(compareElements(a, a))).toBe(0);
        expect(Math.sign(compareElements(a, b)) + Math.sign(compareElements(b, a))).toBe(0);
        if (rank(a) !== rank(b)) expect(Math.sign(compareElements(a, b))).toBe(Math.sign(rank(a) - rank(b)));
        if (compareElements(a, b) <= 0 && compareElements(b, c) <= 0) expect(compareElements(a, c)).toBeLessThanOrEqual(0);
      }),
    );
    expect(['i:10', 'i:9', 'i:2'].sort(compareElements)).toEqual(['i:2', 'i:9', 'i:10']);
    expect([valueElement('b'), valueElement(2), valueElement(true), valueElement(null), valueElement(-1), valueElement('a'), valueElement(false)].sort(compareElements)).toEqual(
      [valueElement(null), valueElement(false), valueElement(true), valueElement(-1), valueElement(2), valueElement('a'), valueElement('b')],
    );
    expect(['f:b', 'f:a', 'f:B'].sort(compareElements)).toEqual(['f:B', 'f:a', 'f:b']);
    const keys = [{ name: 'b' }, { name: 'a', port: 2 }, { name: 'a', port: 1 }, { name: 'a' }].map((k) => keyElement(k, Object.keys(k)));
    expect(keys.sort(compareElements)).toEqual([{ name: 'a' }, { name: 'a', port: 1 }, { name: 'a', port: 2 }, { name: 'b' }].map((k) => keyElement(k, Object.keys(k))));
  });
});

