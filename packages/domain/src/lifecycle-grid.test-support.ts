// Test support (not shipped, not mutated): the lifecycle tests write each lifecycle out as a grid
// of whitespace-separated cells, a row per state (its name first), a column per event; a cell is
// the state the event moves to, or "-" where it is refused.

/** The grid as "row column" → the cell's state, or null for "-". */
export function parseGrid<S extends string>(text: string, columns: readonly string[]): Map<string, S | null> {
  return new Map(
    text
      .trim()
      .split('\n')
      .flatMap((line) => {
        const [row, ...cells] = line.trim().split(/\s+/);
        return cells.map((cell, i) => [`${row} ${columns[i]}`, cell === '-' ? null : (cell as S)] as const);
      }),
  );
}
