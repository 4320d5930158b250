import { describe, expect, it } from 'vitest';
import { columnChoiceKey, hiddenColumnsFrom, visibilityState, withColumn } from '../lib/column-choice';

const HIDEABLE = ['id', 'version', 'usedBy', 'updated', 'reference'];

describe('a list column choice, as the browser keeps it', () => {
  it('is kept per list', () => {
    expect(columnChoiceKey('secrets')).not.toBe(columnChoiceKey('agents'));
  });

  // What localStorage may hold: nothing, garbage, another shape, ids of a column since renamed or of
  // a column that may not be hidden (the row's name). Only the table's own hideable ids survive.
  it.each([
    [null, []],
    ['', []],
    ['not json', []],
    ['{"id":false}', []],
    ['"id"', []],
    ['[1, null, {"id": true}]', []],
    ['["id"]', ['id']],
    ['["reference", "id", "id"]', ['id', 'reference']],
    ['["name", "renamedLongAgo", "updated"]', ['updated']],
  ])('reads %j as hiding %j', (stored, hidden) => {
    expect(hiddenColumnsFrom(stored, HIDEABLE)).toEqual(hidden);
  });

  it('hides and shows one column at a time, never one that is not hideable', () => {
    const one = withColumn([], HIDEABLE, 'updated', false);
    expect(one).toEqual(['updated']);
    const two = withColumn(one, HIDEABLE, 'id', false);
    expect(two).toEqual(['id', 'updated']);
    expect(withColumn(two, HIDEABLE, 'updated', true)).toEqual(['id']);
    expect(withColumn(two, HIDEABLE, 'name', false)).toEqual(two);
    expect(withColumn(two, HIDEABLE, 'id', false)).toEqual(two);
  });

  it("becomes the table library's visibility state: hidden ones false, the rest not named", () => {
    expect(visibilityState(['id', 'updated'])).toEqual({ id: false, updated: false });
    expect(visibilityState([])).toEqual({});
  });

  // Generated: any sequence of toggles keeps the choice a subset of the hideable ids, in their
  // order, and a stored choice read back is the same choice.
  it('round-trips through storage after any sequence of toggles', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let run = 0; run < 200; run++) {
      let hidden: string[] = [];
      for (let step = 0; step < 12; step++) {
        const id = [...HIDEABLE, 'name', 'bogus'][next() % (HIDEABLE.length + 2)]!;
        hidden = withColumn(hidden, HIDEABLE, id, next() % 2 === 0);
        expect(hidden.every((h) => HIDEABLE.includes(h))).toBe(true);
        expect(hidden).toEqual(HIDEABLE.filter((h) => hidden.includes(h)));
        expect(hiddenColumnsFrom(JSON.stringify(hidden), HIDEABLE)).toEqual(hidden);
      }
    }
  });
});
