import { describe, expect, it } from 'vitest';
import { nextActive } from '../lib/combobox';

describe('the combobox keyboard model', () => {
  it('ArrowDown walks the options and wraps to the first', () => {
    const seen = [];
    let active = -1;
    for (let i = 0; i < 4; i += 1) seen.push((active = nextActive(active, 'ArrowDown', 3)));
    expect(seen).toEqual([0, 1, 2, 0]);
  });

  it('ArrowUp from nothing goes to the last option, then walks back and wraps', () => {
    const seen = [];
    let active = -1;
    for (let i = 0; i < 4; i += 1) seen.push((active = nextActive(active, 'ArrowUp', 3)));
    expect(seen).toEqual([2, 1, 0, 2]);
  });

  it('with no options nothing is active, and an index left over from a longer list is pulled back', () => {
    expect(nextActive(-1, 'ArrowDown', 0)).toBe(-1);
    expect(nextActive(3, 'ArrowUp', 0)).toBe(-1);
    expect(nextActive(7, 'ArrowDown', 3)).toBe(0);
    expect(nextActive(7, 'ArrowUp', 3)).toBe(2);
  });
});
