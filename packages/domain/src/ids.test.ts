import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, isId, makeId, uuidOf } from './ids.ts';
import type { IdKind } from './ids.ts';

const UUID = '3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5b';
const KINDS = Object.keys(ID_PREFIXES) as IdKind[];

describe('ID_PREFIXES', () => {
  it('holds every prefix DESIGN.md §4 lists', () => {
    const prefixes: string[] = Object.values(ID_PREFIXES);
    for (const p of ['ns_', 'sec_', 'cfg_', 'agt_', 'rev_', 'prn_', 'spn_', 'key_', 'bnd_', 'aud_', 'scr_', 'wrk_']) {
      expect(prefixes).toContain(p);
    }
  });

  it('are unique, lowercase and end with a single underscore', () => {
    const prefixes = Object.values(ID_PREFIXES);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const p of prefixes) expect(p).toMatch(/^[a-z]+_$/);
  });
});

describe('makeId', () => {
  it.each(KINDS.map((k) => [k]))('makes a %s id as prefix + uuid', (kind) => {
    const id = makeId(kind, UUID);
    expect(id).toBe(ID_PREFIXES[kind] + UUID);
    expect(isId(kind, id)).toBe(true);
    expect(uuidOf(id)).toBe(UUID);
  });

  it('makes ns_ and sec_ ids', () => {
    expect(makeId('namespace', UUID)).toBe(`ns_${UUID}`);
    expect(makeId('secret', UUID)).toBe(`sec_${UUID}`);
  });

  it.each([
    ['uppercase', UUID.toUpperCase()],
    ['one uppercase letter', UUID.replace('f', 'F')],
    ['empty', ''],
    ['no hyphens', UUID.replaceAll('-', '')],
    ['braces', `{${UUID}}`],
    ['a non-hex letter', UUID.replace('a', 'g')],
    ['one character short', UUID.slice(0, -1)],
    ['one character long', `${UUID}0`],
    ['misplaced hyphen', '3f2b8c1e9-a4d-4e6f-8b7a-0c1d2e3f4a5b'],
    ['leading whitespace', ` ${UUID}`],
    ['trailing newline', `${UUID}\n`],
    ['already prefixed', `ns_${UUID}`],
  ])('rejects a uuid that is %s', (_label, uuid) => {
    expect(() => makeId('namespace', uuid)).toThrow(/lowercase UUID/);
  });
});

describe('isId', () => {
  it('accepts a well-formed id of the right kind', () => {
    expect(isId('namespace', `ns_${UUID}`)).toBe(true);
    expect(isId('servicePrincipal', `spn_${UUID}`)).toBe(true);
  });

  it('rejects an id of another kind', () => {
    expect(isId('namespace', `sec_${UUID}`)).toBe(false);
    expect(isId('humanPrincipal', `spn_${UUID}`)).toBe(false);
  });

  it.each([
    ['an uppercase uuid', `ns_${UUID.toUpperCase()}`],
    ['an uppercase prefix', `NS_${UUID}`],
    ['a bare uuid', UUID],
    ['a bare prefix', 'ns_'],
    ['an empty string', ''],
    ['a truncated uuid', `ns_${UUID.slice(0, 35)}`],
    ['extra characters', `ns_${UUID}x`],
    ['a trailing newline', `ns_${UUID}\n`],
    ['a doubled prefix', `ns_ns_${UUID}`],
    ['a hyphen instead of the underscore', `ns-${UUID}`],
  ])('rejects %s', (_label, value) => {
    expect(isId('namespace', value)).toBe(false);
  });
});

describe('uuidOf', () => {
  it('returns the part after the prefix', () => {
    expect(uuidOf(`ns_${UUID}`)).toBe(UUID);
    expect(uuidOf(`scr_${UUID}`)).toBe(UUID);
  });

  it('strips only the first underscore', () => {
    expect(uuidOf('rol_namespace_admin')).toBe('namespace_admin');
  });
});
