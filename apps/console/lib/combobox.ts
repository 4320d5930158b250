// The keyboard model of the ARIA 1.2 combobox with a listbox popup, shared by the pickers: focus
// stays in the input and the active option moves (aria-activedescendant), wrapping at both ends.

/** The option index after an arrow key, or -1 when there is none to move to. */
export function nextActive(active: number, key: 'ArrowDown' | 'ArrowUp', count: number): number {
  if (count <= 0) return -1;
  if (key === 'ArrowDown') return active < 0 || active >= count - 1 ? 0 : active + 1;
  return active <= 0 || active >= count ? count - 1 : active - 1;
}
