// FieldsV1 (metadata.managedFields[].fieldsV1) and the field sets structured-merge-diff keeps:
// sets of paths, each path a list of elements spelled as in FieldsV1 (`f:name`, `k:{"name":"x"}`,
// `v:"x"`, `i:0`). A path is stored as its elements joined by NUL, which no JSON-encoded element
// can contain unescaped, so a set is a plain Set<string> and union, difference and prefix checks
// stay cheap. One implementation, used by the embedded API server (writing managedFields) and the
// SelfConfig controller (reading them, SC6, SC7): the two cannot disagree about a key.
//
// `k:` and `v:` bodies are JSON: `v:"x"` is the string x, `v:1` the number 1, `k:{"name":"A"}` the
// key fields. Reading them without JSON (stripping quotes) confuses "1" with 1 and breaks on
// escapes; parseElement decodes them exactly.

export type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SEP = '\u0000';

export type FieldSet = Set<string>;

export function pathOf(elements: readonly string[]): string {
  return elements.join(SEP);
}

export function elementsOf(path: string): string[] {
  return path === '' ? [] : path.split(SEP);
}

export function child(path: string, element: string): string {
  return path === '' ? element : `${path}${SEP}${element}`;
}

export function fieldElement(name: string): string {
  return `f:${name}`;
}

export function valueElement(value: unknown): string {
  return `v:${JSON.stringify(value)}`;
}

/** `k:` element of a map-list item: the key fields, sorted by name, as compact JSON. */
export function keyElement(item: JsonObject, keys: readonly string[]): string {
  const sorted = [...keys].sort();
  const fields: JsonObject = {};
  for (const key of sorted) fields[key] = item[key];
  return `k:${JSON.stringify(fields)}`;
}

/** True when `set` holds `path` or any path below it. */
export function ownsAtOrBelow(set: FieldSet, path: string): boolean {
  if (set.has(path)) return true;
  const prefix = `${path}${SEP}`;
  for (const owned of set) if (owned.startsWith(prefix)) return true;
  return false;
}

export function union(...sets: FieldSet[]): FieldSet {
  const out = new Set<string>();
  for (const set of sets) for (const path of set) out.add(path);
  return out;
}

export function difference(a: FieldSet, b: FieldSet): FieldSet {
  return new Set([...a].filter((path) => !b.has(path)));
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  return new Set([...a].filter((path) => b.has(path)));
}

// Ordering of path elements, as fieldpath.PathElement.Compare: field names, then keys, then
// values, then indexes; FieldsV1 lists children in this order.
const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function typeRank(value: unknown): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (Array.isArray(value)) return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = typeof a === 'string' ? a : JSON.stringify(a);
  const sb = typeof b === 'string' ? b : JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function compareKeys(a: JsonObject, b: JsonObject): number {
  const ea = Object.entries(a);
  const eb = Object.entries(b);
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
    const [na, va] = ea[i] ?? ['', null];
    const [nb, vb] = eb[i] ?? ['', null];
    if (na !== nb) return na < nb ? -1 : 1;
    const c = compareValues(va, vb);
    if (c !== 0) return c;
  }
  return ea.length - eb.length;
}

export function compareElements(a: string, b: string): number {
  const ra = RANK[a.slice(0, 1)] ?? 4;
  const rb = RANK[b.slice(0, 1)] ?? 4;
  if (ra !== rb) return ra - rb;
  const ba = a.slice(2);
  const bb = b.slice(2);
  if (ra === 0) return ba < bb ? -1 : ba > bb ? 1 : 0;
  if (ra === 3) return Number(ba) - Number(bb);
  const pa = JSON.parse(ba) as unknown;
  const pb = JSON.parse(bb) as unknown;
  if (ra === 1 && isObject(pa) && isObject(pb)) return compareKeys(pa, pb);
  return compareValues(pa, pb);
}

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

function tree(set: FieldSet): Node {
  const root: Node = { member: false, children: new Map() };
  for (const path of set) {
    let node = root;
    for (const element of elementsOf(path)) {
      let next = node.children.get(element);
      if (!next) {
        next = { member: false, children: new Map() };
        node.children.set(element, next);
      }
      node = next;
    }
    node.member = true;
  }
  return root;
}

/** Iterative, as every walk over managedFields (which nest as deep as the object they describe). */
function encode(root: Node): JsonObject {
  const top: JsonObject = {};
  const stack: Array<[Node, JsonObject]> = [[root, top]];
  while (stack.length > 0) {
    const [node, out] = stack.pop()!;
    if (node.member && node.children.size > 0) out['.'] = {};
    for (const element of [...node.children.keys()].sort(compareElements)) {
      const child: JsonObject = {};
      out[element] = child;
      stack.push([node.children.get(element) as Node, child]);
    }
  }
  return top;
}

/** The FieldsV1 document of a set: children in element order, "." when an owned node has owned children. */
export function toFieldsV1(set: FieldSet): JsonObject {
  return encode(tree(set));
}

export function fromFieldsV1(document: unknown): FieldSet {
  const out = new Set<string>();
  // Depth first, in document order, with a stack of open levels instead of recursion.
  const open: Array<{ entries: Array<[string, unknown]>; next: number; path: string }> = [];
  if (isObject(document)) open.push({ entries: Object.entries(document), next: 0, path: '' });
  while (open.length > 0) {
    const level = open[open.length - 1]!;
    if (level.next >= level.entries.length) {
      open.pop();
      continue;
    }
    const [element, value] = level.entries[level.next++]!;
    if (element === '.') {
      out.add(level.path);
      continue;
    }
    const next = child(level.path, element);
    if (isObject(value) && Object.keys(value).length === 0) out.add(next);
    else if (isObject(value)) open.push({ entries: Object.entries(value), next: 0, path: next });
  }
  return out;
}

/** A path as structured-merge-diff prints it in conflicts: `.spec.env[name="A"].value`, `.spec.skills[="x"]`. */
export function pathString(path: string): string {
  return elementsOf(path)
    .map((element) => {
      const body = element.slice(2);
      switch (element.slice(0, 1)) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = JSON.parse(body) as JsonObject;
          return `[${Object.entries(key)
            .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

/** One path element, decoded. */
export type PathElement =
  | { type: 'field'; name: string }
  | { type: 'key'; key: JsonObject }
  | { type: 'value'; value: unknown }
  | { type: 'index'; index: number };

export class FieldsV1Error extends Error {
  readonly code = 'INVALID_FIELDS_V1';
  constructor(message: string) {
    super(message);
    this.name = 'FieldsV1Error';
  }
}

/** Decodes `f:`, `k:`, `v:` and `i:` elements; anything else (or a body that is not JSON) throws. */
export function parseElement(element: string): PathElement {
  const body = element.slice(2);
  if (element[1] !== ':') throw new FieldsV1Error(`not a FieldsV1 path element: ${JSON.stringify(element)}`);
  switch (element[0]) {
    case 'f':
      return { type: 'field', name: body };
    case 'i': {
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw new FieldsV1Error(`index element ${JSON.stringify(element)} is not a whole number`);
      return { type: 'index', index: Number(body) };
    }
    case 'k':
    case 'v': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new FieldsV1Error(`${element[0]}: element ${JSON.stringify(element)} is not JSON`);
      }
      if (element[0] === 'v') return { type: 'value', value: parsed };
      if (!isObject(parsed)) throw new FieldsV1Error(`key element ${JSON.stringify(element)} is not a JSON object`);
      return { type: 'key', key: parsed };
    }
    default:
      throw new FieldsV1Error(`unknown FieldsV1 element type in ${JSON.stringify(element)}`);
  }
}

/** The decoded elements of a path. */
export function parsePath(path: string): PathElement[] {
  return elementsOf(path).map(parseElement);
}

/**
 * The paths of `set` directly below `prefix` (one element further), decoded, each with whether
 * the set holds it itself: a map list's items, a set's values, a granular map's keys.
 */
export function childrenAt(set: FieldSet, prefix: readonly string[]): Array<{ element: PathElement; raw: string }> {
  const base = pathOf(prefix);
  const start = base === '' ? '' : `${base}${SEP}`;
  const seen = new Set<string>();
  const out: Array<{ element: PathElement; raw: string }> = [];
  for (const path of set) {
    if (!path.startsWith(start) || path === base) continue;
    const raw = path.slice(start.length).split(SEP)[0] as string;
    if (seen.has(raw)) continue;
    seen.add(raw);
    out.push({ element: parseElement(raw), raw });
  }
  return out;
}
