import { describe, expect, it } from 'vitest';
import { describeChange, specChanges } from './selfconfig-preview.ts';

// SG2's diff of two instance specs, by item: sets, maps keyed by name, granular maps, config leaves.

describe('SG2 field-level changes', () => {
  it('SG2 adds, changes and removes of skills, env vars, files and config key paths, named without values', () => {
    const before = {
      image: 'gw:1',
      skills: ['base', 'gone'],
      env: [{ name: 'KEEP', value: 'k' }, { name: 'EDIT', value: 'secret-old' }, { name: 'DROP', value: 'd' }],
      workspace: { initialFiles: { 'a.md': 'x', 'b.md': 'y' } },
      config: { raw: { channels: { a: 1, b: { deep: true } }, list: [1, 2] } },
    };
    const after = {
      image: 'gw:2',
      skills: ['base', 'new'],
      env: [{ name: 'KEEP', value: 'k' }, { name: 'EDIT', value: 'secret-new' }, { name: 'ADDED', value: 'v' }],
      workspace: { initialFiles: { 'a.md': 'x2', 'c.md': 'z' } },
      config: { raw: { channels: { a: 1, b: { deep: false }, 'x.y': 3 }, list: [1] } },
    };
    const changes = specChanges(before, after);
    expect(changes.map(describeChange)).toEqual([
      '- skill "gone"',
      '+ skill "new"',
      '+ envVar "ADDED"',
      '- envVar "DROP"',
      '~ envVar "EDIT"',
      '~ workspaceFile "a.md"',
      '- workspaceFile "b.md"',
      '+ workspaceFile "c.md"',
      '+ config "channels.\\"x.y\\""',
      '~ config "channels.b.deep"',
      '~ config "list"',
      '~ field "image"',
    ]);
    expect(JSON.stringify(changes)).not.toContain('secret-');
  });

  it('SG2 identical specs change nothing; a config key that becomes an object is one removal and one add per leaf', () => {
    const spec = { skills: ['a'], config: { raw: { x: { y: 1 } } } };
    expect(specChanges(spec, structuredClone(spec))).toEqual([]);
    expect(specChanges({ config: { raw: { x: 1 } } }, { config: { raw: { x: { y: 1 } } } }).map(describeChange)).toEqual(['- config "x"', '+ config "x.y"']);
  });
});
