import type { JsonObject } from './fieldsv1.ts';
import { configPathString } from './field-ownership.ts';

// SG2: what a request changes, field by field: the instance's spec before, and as a server-side
// dry-run apply of the request's body answers it. Names and key paths only, never a value (an env
// value or a file's content is an agent's literal; history keeps none, SC9), so the same list can
// go to the request's status, its history row and GraphQL.

export type SpecChangeKind = 'skill' | 'envVar' | 'workspaceFile' | 'config' | 'field';

export interface SpecChange {
  op: 'add' | 'change' | 'remove';
  kind: SpecChangeKind;
  /** The skill, env var name, file path, config key path (dotted), or spec field name. */
  name: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function mapDiff(kind: SpecChangeKind, before: Map<string, unknown>, after: Map<string, unknown>): SpecChange[] {
  const out: SpecChange[] = [];
  for (const [name, value] of after) {
    if (!before.has(name)) out.push({ op: 'add', kind, name });
    else if (!same(before.get(name), value)) out.push({ op: 'change', kind, name });
  }
  for (const name of before.keys()) if (!after.has(name)) out.push({ op: 'remove', kind, name });
  return out;
}

/** Every leaf of a config document by its dotted path; lists are leaves (they are atomic, K2). Iterative (SG5). */
function leaves(doc: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const stack: Array<[string[], unknown]> = [[[], doc]];
  while (stack.length > 0) {
    const [path, node] = stack.pop()!;
    if (isObject(node) && (Object.keys(node).length > 0 || path.length === 0)) {
      for (const [key, value] of Object.entries(node)) stack.push([[...path, key], value]);
    } else if (path.length > 0) {
      out.set(configPathString(path), node);
    }
  }
  return out;
}

const skillsOf = (spec: JsonObject) => new Map((Array.isArray(spec.skills) ? spec.skills : []).filter((s): s is string => typeof s === 'string').map((s) => [s, true] as const));
const envOf = (spec: JsonObject) =>
  new Map((Array.isArray(spec.env) ? spec.env : []).filter(isObject).filter((e) => typeof e.name === 'string').map((e) => [e.name as string, e] as const));
const filesOf = (spec: JsonObject) => {
  const ws = isObject(spec.workspace) ? spec.workspace : {};
  return new Map(Object.entries(isObject(ws.initialFiles) ? ws.initialFiles : {}));
};
const configOf = (spec: JsonObject) => leaves(isObject(spec.config) && isObject(spec.config.raw) ? spec.config.raw : {});

/** SG2: the field-level changes from one instance spec to another, in a stable order (kind, then name). */
export function specChanges(before: JsonObject, after: JsonObject): SpecChange[] {
  const changes = [
    ...mapDiff('skill', skillsOf(before), skillsOf(after)),
    ...mapDiff('envVar', envOf(before), envOf(after)),
    ...mapDiff('workspaceFile', filesOf(before), filesOf(after)),
    ...mapDiff('config', configOf(before), configOf(after)),
  ];
  // Anything else in the spec (a request never sets it; if the apply changed it, it is said too).
  const known = new Set(['skills', 'env', 'workspace', 'config']);
  const rest = (spec: JsonObject) => new Map(Object.entries(spec).filter(([k]) => !known.has(k)));
  changes.push(...mapDiff('field', rest(before), rest(after)));
  const order: SpecChangeKind[] = ['skill', 'envVar', 'workspaceFile', 'config', 'field'];
  return changes.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const SIGN = { add: '+', change: '~', remove: '-' } as const;

/** The compact form status carries: one line per change, `+ skill "fetch"`, `~ config "channels.x"`. */
export function describeChange(change: SpecChange): string {
  return `${SIGN[change.op]} ${change.kind} ${JSON.stringify(change.name)}`;
}
