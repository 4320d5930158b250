import { describe, expect, it } from 'vitest';
import { diffBindings, diffValues, generationChanges, shortJson } from '../lib/config-diff';

// C5's editor shows what a save changes. Generated pairs check the diff against a rebuild: applying
// the listed changes to `before` gives `after`, and nothing listed is unchanged.

function apply(before: unknown, changes: ReturnType<typeof diffValues>): unknown {
  let root = structuredClone(before) as Record<string, unknown>;
  for (const c of changes) {
    const keys = [...c.path.slice(1).matchAll(/\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\]/g)].map((m) => m[1] ?? (JSON.parse(m[2]!) as string));
    if (keys.length === 0) {
      root = c.after as Record<string, unknown>;
      continue;
    }
    let node = root;
    for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
    const last = keys[keys.length - 1]!;
    if (c.change === 'removed') delete node[last];
    else node[last] = structuredClone(c.after);
  }
  return root;
}

function rng(seed: number) {
  return () => ((seed = (Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) | 0) >>> 0) / 2 ** 32;
}

function randomValue(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth > 2 || pick < 0.4) return [1, 'x', true, null, 2.5, 'a b'][Math.floor(r() * 6)];
  if (pick < 0.5) return [Math.floor(r() * 3), 'y'];
  const out: Record<string, unknown> = {};
  for (const key of ['a', 'b', 'with space', 'c'].filter(() => r() < 0.6)) out[key] = randomValue(r, depth + 1);
  return out;
}

describe('C5 the configuration editor\'s diff', () => {
  it('C5 lists added, removed and changed paths, arrays and scalars as one value, keys that are not identifiers quoted', () => {
    expect(diffValues({ a: 1, b: { c: [1, 2], d: 'x' }, 'e f': 1 }, { a: 1, b: { c: [1, 3] }, g: true, 'e f': 2 })).toEqual([
      { path: '$.b.c', change: 'changed', before: [1, 2], after: [1, 3] },
      { path: '$.b.d', change: 'removed', before: 'x' },
      { path: '$["e f"]', change: 'changed', before: 1, after: 2 },
      { path: '$.g', change: 'added', after: true },
    ]);
    expect(diffValues({ a: { b: 1 } }, { a: { b: 1 } })).toEqual([]);
    expect(diffValues({ a: 1 }, { a: '1' })).toEqual([{ path: '$.a', change: 'changed', before: 1, after: '1' }]);
  });

  it('C5 on 500 generated pairs, applying the listed changes to the old values gives the new ones, and an unchanged pair lists nothing', () => {
    const r = rng(42);
    for (let i = 0; i < 500; i++) {
      const before = randomValue(r, 0);
      const after = r() < 0.2 ? structuredClone(before) : randomValue(r, 0);
      const changes = diffValues(before, after);
      expect(apply(before, changes), JSON.stringify({ before, after, changes })).toEqual(after);
      if (JSON.stringify(before) === JSON.stringify(after)) expect(changes).toEqual([]);
    }
  });

  it('C5 bindings: added, removed, and pointed at another secret, by env name', () => {
    expect(
      diffBindings(
        [{ envName: 'A', secretId: 's1' }, { envName: 'B', secretId: 's2' }],
        [{ envName: 'B', secretId: 's3' }, { envName: 'C', secretId: 's1' }],
      ),
    ).toEqual([
      { envName: 'A', change: 'removed', before: 's1' },
      { envName: 'B', change: 'changed', before: 's2', after: 's3' },
      { envName: 'C', change: 'added', after: 's1' },
    ]);
    expect(diffBindings([{ envName: 'A', secretId: 's1' }], [{ envName: 'A', secretId: 's1' }])).toEqual([]);
    expect(shortJson('x'.repeat(100))).toHaveLength(58);
  });

  it('C5 a history entry: generation 1 lists everything as added, a later one its changes against the previous, and one whose previous was never recorded has none known', () => {
    const g1 = { values: { a: 1 }, bindings: [{ envName: 'T', secretId: 's1' }] };
    const g2 = { values: { a: 2, b: true }, bindings: [{ envName: 'T', secretId: 's2' }] };
    expect(generationChanges(1, g1, null)).toEqual({
      values: [{ path: '$.a', change: 'added', after: 1 }],
      bindings: [{ envName: 'T', change: 'added', after: 's1' }],
    });
    expect(generationChanges(2, g2, g1)).toEqual({
      values: [
        { path: '$.a', change: 'changed', before: 1, after: 2 },
        { path: '$.b', change: 'added', after: true },
      ],
      bindings: [{ envName: 'T', change: 'changed', before: 's1', after: 's2' }],
    });
    expect(generationChanges(2, g2, g2)).toEqual({ values: [], bindings: [] });
    expect(generationChanges(3, g2, null)).toBeNull();
  });
});
