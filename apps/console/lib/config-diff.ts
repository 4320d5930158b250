// What an edit of a configuration changes, shown before it is saved: the values' paths that are added,
// removed or changed (a scalar or an array is one value; objects are walked key by key), and the
// bindings added, removed or pointed at another secret. Pure: tested in test/config-diff.test.ts.

export type ValueChange = { path: string; change: 'added' | 'removed' | 'changed'; before?: unknown; after?: unknown };
export type BindingChange = { envName: string; change: 'added' | 'removed' | 'changed'; before?: string; after?: string };

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON path segment: `.key` when it reads as an identifier, `["key"]` otherwise. */
function child(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function same(a: unknown, b: unknown): boolean {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => key in a && key in b && same(a[key], b[key]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  return Object.is(a, b);
}

export function diffValues(before: unknown, after: unknown, path = '$'): ValueChange[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const out: ValueChange[] = [];
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const at = child(path, key);
      if (!(key in after)) out.push({ path: at, change: 'removed', before: before[key] });
      else if (!(key in before)) out.push({ path: at, change: 'added', after: after[key] });
      else out.push(...diffValues(before[key], after[key], at));
    }
    return out;
  }
  return same(before, after) ? [] : [{ path, change: 'changed', before, after }];
}

export function diffBindings(before: ReadonlyArray<{ envName: string; secretId: string }>, after: ReadonlyArray<{ envName: string; secretId: string }>): BindingChange[] {
  const was = new Map(before.map((b) => [b.envName, b.secretId]));
  const now = new Map(after.map((b) => [b.envName, b.secretId]));
  const out: BindingChange[] = [];
  for (const envName of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const b = was.get(envName);
    const a = now.get(envName);
    if (b === undefined && a !== undefined) out.push({ envName, change: 'added', after: a });
    else if (a === undefined && b !== undefined) out.push({ envName, change: 'removed', before: b });
    else if (a !== b) out.push({ envName, change: 'changed', before: b, after: a });
  }
  return out;
}

/** A value as one short line for the diff (configuration values hold no secret: C6 refuses literals). */
export function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** A configuration as the diff reads it: its values and its bindings as references. */
export type ConfigurationContent = { values: unknown; bindings: ReadonlyArray<{ envName: string; secretId: string }> };

export type ConfigurationChanges = { values: ValueChange[]; bindings: BindingChange[] };

/**
 * What a generation changed against the one before it. The first generation (1) is compared with an
 * empty configuration, so everything it holds is listed as added; a later generation whose previous
 * one was never recorded (history began after it) has no known changes: null.
 */
export function generationChanges(generation: number, current: ConfigurationContent, previous: ConfigurationContent | null): ConfigurationChanges | null {
  const before = previous ?? (generation === 1 ? { values: {}, bindings: [] } : null);
  if (!before) return null;
  return { values: diffValues(before.values, current.values), bindings: diffBindings(before.bindings, current.bindings) };
}
