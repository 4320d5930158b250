// The columns a viewer chose to hide in one list, kept in this browser (localStorage) under the
// list's name: a choice of view, never sent to the API. What is stored is read defensively (it is
// the browser's, and a release may rename or drop a column): anything but a list of the table's
// own hideable column ids is ignored.

const COLUMN_CHOICE_KEY_PREFIX = 'occ.columns.';

/** The storage key of a list's choice (`table` names the list: "secrets", "agents" …). */
export function columnChoiceKey(table: string): string {
  return COLUMN_CHOICE_KEY_PREFIX + table;
}

/** The hidden columns a stored choice names, keeping only ids of `hideable` and in their order. */
export function hiddenColumnsFrom(stored: string | null, hideable: readonly string[]): string[] {
  if (!stored) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const named = new Set(parsed.filter((id): id is string => typeof id === 'string'));
  return hideable.filter((id) => named.has(id));
}

/** The choice after showing (`visible`) or hiding one column; a column not hideable is never hidden. */
export function withColumn(hidden: readonly string[], hideable: readonly string[], id: string, visible: boolean): string[] {
  if (!hideable.includes(id)) return [...hidden];
  const next = new Set(hidden);
  if (visible) next.delete(id);
  else next.add(id);
  return hideable.filter((c) => next.has(c));
}

/** The table library's visibility state for a choice: every hidden column false, the rest shown. */
export function visibilityState(hidden: readonly string[]): Record<string, boolean> {
  return Object.fromEntries(hidden.map((id) => [id, false]));
}
