import { childrenAt, elementsOf, fromFieldsV1, parseElement, pathOf, type FieldSet, type JsonObject } from './fieldsv1.ts';

// Who owns which item of an OpenClawInstance's spec, read from metadata.managedFields with the one
// FieldsV1 parser (SC6, SC7, RC3). The items are what two managers can hold apart: each skill (a
// set), each env var (a map list keyed by name), each workspace file (a granular map) and each key
// of the native config document at any depth (spec.config.raw, a granular map at every level, K2).
// Lists inside the config document are atomic: such a list is one item.

export type ItemKind = 'skill' | 'envVar' | 'workspaceFile' | 'config';
export type Operation = 'Apply' | 'Update';

export interface FieldOwner {
  manager: string;
  operation: Operation;
}

export interface OwnedItem {
  kind: ItemKind;
  /** The skill, env name or file path; for config, the key path joined by dots (configPathString). */
  name: string;
  /** For config: the key path, one key per element. */
  path?: string[];
  owners: FieldOwner[];
}

/** One managedFields entry of the main resource (status is a subresource, tracked apart). */
export interface ManagerEntry extends FieldOwner {
  /** When the manager last wrote, as the server recorded it (RFC 3339), or null. */
  time: string | null;
  set: FieldSet;
}

export const SKILLS_PATH = ['f:spec', 'f:skills'];
export const ENV_PATH = ['f:spec', 'f:env'];
export const FILES_PATH = ['f:spec', 'f:workspace', 'f:initialFiles'];
export const CONFIG_RAW_PATH = ['f:spec', 'f:config', 'f:raw'];

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A managedFields time as the server wrote it (RFC 3339, whole seconds), whether the object was
 * read as JSON (a string) or through a typed client that made it a Date.
 */
function serverTime(time: unknown): string | null {
  if (typeof time === 'string') return time;
  if (time instanceof Date && !Number.isNaN(time.getTime())) return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return null;
}

export function managerEntries(managedFields: unknown): ManagerEntry[] {
  if (!Array.isArray(managedFields)) return [];
  const out: ManagerEntry[] = [];
  for (const raw of managedFields) {
    if (!isObject(raw) || typeof raw.manager !== 'string' || (typeof raw.subresource === 'string' && raw.subresource !== '')) continue;
    out.push({
      manager: raw.manager,
      operation: raw.operation === 'Apply' ? 'Apply' : 'Update',
      time: serverTime(raw.time),
      set: fromFieldsV1(raw.fieldsV1),
    });
  }
  return out;
}

/** A config key path as people read it: keys joined by dots, a key that holds a dot or is empty quoted. */
export function configPathString(path: readonly string[]): string {
  return path.map((key) => (/^[A-Za-z0-9_\-@$]+$/.test(key) ? key : JSON.stringify(key))).join('.');
}

/** The config key paths a field set holds under spec.config.raw (each one an item, SC7 RC3). */
export function configPaths(set: FieldSet): string[][] {
  const base = pathOf(CONFIG_RAW_PATH);
  const prefix = `${base}\u0000`;
  const out: string[][] = [];
  for (const path of set) {
    if (!path.startsWith(prefix)) continue;
    const elements = elementsOf(path).slice(CONFIG_RAW_PATH.length);
    const keys: string[] = [];
    for (const element of elements) {
      const parsed = parseElement(element);
      if (parsed.type !== 'field') break;
      keys.push(parsed.name);
    }
    if (keys.length === elements.length && keys.length > 0) out.push(keys);
  }
  return out;
}

/** The items one field set owns, at or below each item's path (owning a part keeps the item alive). */
export function itemsOf(set: FieldSet): Array<{ kind: ItemKind; name: string; path?: string[] }> {
  const out: Array<{ kind: ItemKind; name: string; path?: string[] }> = [];
  for (const { element } of childrenAt(set, SKILLS_PATH)) {
    if (element.type === 'value' && typeof element.value === 'string') out.push({ kind: 'skill', name: element.value });
  }
  for (const { element } of childrenAt(set, ENV_PATH)) {
    if (element.type === 'key' && typeof element.key.name === 'string') out.push({ kind: 'envVar', name: element.key.name });
  }
  for (const { element } of childrenAt(set, FILES_PATH)) {
    if (element.type === 'field') out.push({ kind: 'workspaceFile', name: element.name });
  }
  for (const path of configPaths(set)) out.push({ kind: 'config', name: configPathString(path), path });
  return out;
}

const itemKey = (kind: ItemKind, name: string) => `${kind}\u0000${name}`;
const ORDER: ItemKind[] = ['skill', 'envVar', 'workspaceFile', 'config'];

/** Item × manager: for each skill, env var, workspace file and config key, who owns it and how. */
export function fieldOwnership(managedFields: unknown): OwnedItem[] {
  const byItem = new Map<string, OwnedItem>();
  for (const entry of managerEntries(managedFields)) {
    for (const item of itemsOf(entry.set)) {
      const key = itemKey(item.kind, item.name);
      const owned = byItem.get(key) ?? { ...item, owners: [] };
      if (!owned.owners.some((o) => o.manager === entry.manager && o.operation === entry.operation)) owned.owners.push({ manager: entry.manager, operation: entry.operation });
      byItem.set(key, owned);
    }
  }
  return [...byItem.values()].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Who owns each env var's reference (valueFrom, at or below it) and each one's literal (value). */
export function envPartOwners(managedFields: unknown): Map<string, { value: FieldOwner[]; valueFrom: FieldOwner[] }> {
  const out = new Map<string, { value: FieldOwner[]; valueFrom: FieldOwner[] }>();
  const envBase = pathOf(ENV_PATH);
  for (const entry of managerEntries(managedFields)) {
    for (const path of entry.set) {
      if (!path.startsWith(`${envBase}\u0000`)) continue;
      const elements = elementsOf(path).slice(ENV_PATH.length);
      const key = parseElement(elements[0] ?? '');
      if (key.type !== 'key' || typeof key.key.name !== 'string' || elements.length < 2) continue;
      const part = elements[1] === 'f:valueFrom' ? 'valueFrom' : elements[1] === 'f:value' ? 'value' : null;
      if (!part) continue;
      const owners = out.get(key.key.name) ?? { value: [], valueFrom: [] };
      if (!owners[part].some((o) => o.manager === entry.manager && o.operation === entry.operation)) owners[part].push({ manager: entry.manager, operation: entry.operation });
      out.set(key.key.name, owners);
    }
  }
  return out;
}

/**
 * RC4 D3: the managers other than `ours` that own a key of a Secret's data. A manager that changes
 * a field takes it from every other manager, so a foreign owner of the data is one that changed the
 * bytes after the product last wrote them (an identical write changes no owner, and no bytes).
 */
export function foreignDataOwners(managedFields: unknown, ours: string): Array<FieldOwner & { time: string | null }> {
  const data = pathOf(['f:data']);
  return managerEntries(managedFields)
    .filter((e) => e.manager !== ours && [...e.set].some((p) => p === data || p.startsWith(`${data}\u0000`)))
    .map((e) => ({ manager: e.manager, operation: e.operation, time: e.time }));
}

/**
 * RC4: one change made outside the product, named by who made it and when (the managers' entries
 * as the server recorded them): recorded once as a new version, and a later change shows as another.
 * Times have whole seconds: two changes by one manager within a second read as one.
 */
export function outsideChangeMarker(writers: ReadonlyArray<FieldOwner & { time: string | null }>): string {
  return writers
    .map((w) => `${w.manager}/${w.operation}/${w.time ?? ''}`)
    .sort()
    .join(',');
}

/**
 * Whether `recorded` (a secret's outsideChangeSeenAt) names the change these writers made. Markers
 * recorded before times were read from typed clients carry no time; they still name their change
 * (so upgrading records nothing twice), and the next change outside the product replaces them.
 */
export function isRecordedOutsideChange(recorded: string | null, writers: ReadonlyArray<FieldOwner & { time: string | null }>): boolean {
  if (recorded === null) return false;
  return recorded === outsideChangeMarker(writers) || recorded === outsideChangeMarker(writers.map((w) => ({ ...w, time: null })));
}
