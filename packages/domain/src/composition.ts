import { canonicalJson } from './content-hash.ts';
import { configPathString, configPaths, ENV_PATH, FILES_PATH, managerEntries, type FieldOwner, type ItemKind } from './field-ownership.ts';
import { childrenAt, type JsonObject } from './fieldsv1.ts';
import { SELF_CONFIG_MANAGER, valueAt } from './selfconfig.ts';

// RC3: a deploy and the agent's own changes compose on one instance. The deploy applies only what
// its Configuration sets; where that would take an item the agent holds (openclaw-selfconfig) and
// change it, the item is a takeover: explainDeploy lists it before the click, the deploy takes it
// with force and records it. Binding an env name the agent set as a literal is a takeover too: the
// literal is released first, so an env item never holds both a value and a reference.

export interface Takeover {
  kind: Exclude<ItemKind, 'skill'>;
  /** The env name, file path, or config key path as people read it. */
  name: string;
  /** For config: the key path. */
  path?: string[];
  /** replace: the deploy sets another value; bind: the agent's literal becomes the bound secret's reference. */
  action: 'replace' | 'bind';
  /** The agent's write that set it, as the server recorded the manager's last write (RFC 3339), or null. */
  setAt: string | null;
  owners: FieldOwner[];
}

export interface LiveInstance {
  spec?: JsonObject;
  managedFields?: unknown;
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/**
 * The leaf key paths of a document: scalars and lists. An empty object sets nothing another
 * manager's keys below it could lose (a granular map merges), so it is no leaf here.
 */
export function leafPaths(doc: JsonObject, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  // Depth first in document order, iterative: an instance's config nests as deep as a server accepts.
  const open: Array<{ entries: Array<[string, unknown]>; next: number; path: string[] }> = [{ entries: Object.entries(doc), next: 0, path: prefix }];
  while (open.length > 0) {
    const level = open[open.length - 1]!;
    if (level.next >= level.entries.length) {
      open.pop();
      continue;
    }
    const [key, value] = level.entries[level.next++]!;
    const path = [...level.path, key];
    if (isObject(value)) open.push({ entries: Object.entries(value), next: 0, path });
    else out.push(path);
  }
  return out;
}

// A prefix longer than the path fails on the path's first missing key (undefined is never a key).
const startsWith = (path: readonly string[], prefix: readonly string[]) => prefix.every((k, i) => path[i] === k);

/** RC3: what applying `body` (occ-controller's spec for a revision) would take from the agent on `live`. */
export function plannedTakeovers(live: LiveInstance | null, body: { spec?: JsonObject }): Takeover[] {
  if (!live) return [];
  const agent = managerEntries(live.managedFields).filter((e) => e.manager === SELF_CONFIG_MANAGER);
  if (agent.length === 0) return [];
  const owners: FieldOwner[] = agent.map((e) => ({ manager: e.manager, operation: e.operation }));
  const setAt = agent.map((e) => e.time).filter((t): t is string => t !== null).sort().pop() ?? null;
  const spec = body.spec ?? {};
  const liveSpec = live.spec ?? {};
  const out: Takeover[] = [];

  // Env: a name the body binds that the agent holds as a literal.
  const agentEnv = new Set(agent.flatMap((e) => childrenAt(e.set, ENV_PATH)).flatMap(({ element }) => (element.type === 'key' && typeof element.key.name === 'string' ? [element.key.name] : [])));
  const liveEnv = Array.isArray(liveSpec.env) ? liveSpec.env.filter(isObject) : [];
  for (const item of Array.isArray(spec.env) ? spec.env.filter(isObject) : []) {
    const name = typeof item.name === 'string' ? item.name : '';
    const current = liveEnv.find((e) => e.name === name);
    if (agentEnv.has(name) && current && typeof current.value === 'string') out.push({ kind: 'envVar', name, action: 'bind', setAt, owners });
  }

  // Workspace files: a path the body sets to other content.
  const agentFiles = new Set(agent.flatMap((e) => childrenAt(e.set, FILES_PATH)).flatMap(({ element }) => (element.type === 'field' ? [element.name] : [])));
  const bodyFiles = isObject(spec.workspace) && isObject(spec.workspace.initialFiles) ? spec.workspace.initialFiles : {};
  const liveFiles = isObject(liveSpec.workspace) && isObject(liveSpec.workspace.initialFiles) ? liveSpec.workspace.initialFiles : {};
  for (const [path, content] of Object.entries(bodyFiles)) {
    if (agentFiles.has(path) && Object.hasOwn(liveFiles, path) && !same(liveFiles[path], content)) out.push({ kind: 'workspaceFile', name: path, action: 'replace', setAt, owners });
  }

  // Config keys: an agent's key the body sets to another value, or whose parent or child the body sets.
  const bodyRaw = isObject(spec.config) && isObject(spec.config.raw) ? spec.config.raw : {};
  const liveRaw = isObject(liveSpec.config) && isObject(liveSpec.config.raw) ? liveSpec.config.raw : {};
  const bodyLeaves = leafPaths(bodyRaw);
  const seen = new Set<string>();
  for (const path of agent.flatMap((e) => configPaths(e.set))) {
    const key = JSON.stringify(path);
    if (seen.has(key)) continue;
    seen.add(key);
    const touched = bodyLeaves.some((leaf) => {
      if (startsWith(path, leaf) && startsWith(leaf, path)) return !same(valueAt(liveRaw, path), valueAt(bodyRaw, path));
      return startsWith(path, leaf) || startsWith(leaf, path);
    });
    if (touched) out.push({ kind: 'config', name: configPathString(path), path, action: 'replace', setAt, owners });
  }
  return out;
}

/** The env names whose agent literal a deploy releases before it binds them (RC3). */
export function literalsToRelease(takeovers: readonly Takeover[]): string[] {
  return takeovers.filter((t) => t.kind === 'envVar' && t.action === 'bind').map((t) => t.name);
}

/**
 * One line per takeover, for explainDeploy (what a deploy will do) and, once done, for events,
 * audit and the request's history: names and times only, never a value.
 */
export function describeTakeover(t: Takeover, done = false): string {
  const what = t.kind === 'config' ? `config.${t.name}` : t.kind === 'envVar' ? `env ${t.name}` : `workspace file ${t.name}`;
  const when = t.setAt ? ` on ${t.setAt}` : '';
  if (t.action === 'bind') return `${what}, set by the agent as a literal${when}, ${done ? 'was bound to its secret instead' : 'will be bound to its secret instead'}`;
  return `${what}, set by the agent${when}, ${done ? 'was replaced' : 'will be replaced'}`;
}


/**
 * RC3 RC4: `body` without the items the agent holds and it would take: what reapplying a revision's
 * fields sends when it must restore the product's fields without undoing the agent's own changes.
 */
export function yieldingToAgent(body: { spec?: JsonObject } & JsonObject, takeovers: readonly Takeover[]): JsonObject {
  const out = JSON.parse(JSON.stringify(body)) as { spec?: JsonObject } & JsonObject;
  const spec = out.spec ?? {};
  for (const t of takeovers) {
    if (t.kind === 'envVar' && Array.isArray(spec.env)) spec.env = spec.env.filter((e) => !(isObject(e) && e.name === t.name));
    if (t.kind === 'workspaceFile' && isObject(spec.workspace) && isObject(spec.workspace.initialFiles)) delete spec.workspace.initialFiles[t.name];
    if (t.kind === 'config' && t.path && isObject(spec.config) && isObject(spec.config.raw)) {
      // Every leaf of the body at, below or above the agent's key: the agent's value stays.
      const raw = spec.config.raw;
      for (const leaf of leafPaths(raw)) if (startsWith(leaf, t.path) || startsWith(t.path, leaf)) removeLeaf(raw, leaf);
    }
  }
  return out;
}

function removeLeaf(doc: JsonObject, path: readonly string[]): void {
  if (path.length === 0) return;
  // Down to the leaf's parent, then back up, removing each object the removal emptied.
  const parents: JsonObject[] = [doc];
  for (const key of path.slice(0, -1)) {
    const next = parents[parents.length - 1]![key];
    if (!isObject(next)) return;
    parents.push(next);
  }
  delete parents[parents.length - 1]![path[path.length - 1]!];
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]!).length > 0) break;
    delete parents[i - 1]![path[i - 1]!];
  }
}
