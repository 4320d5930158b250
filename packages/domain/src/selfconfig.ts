import { isCredentialKey, reservedEnvName, validateConfigurationValues } from './configuration.ts';
import { configPathString, configPaths, fieldOwnership, managerEntries, type FieldOwner, type ItemKind } from './field-ownership.ts';
import type { JsonObject } from './fieldsv1.ts';
import { platformInjectedEnvNames } from './gateway-render.ts';
import { textProblem, describeTextProblem } from './text.ts';

// SelfConfig planning (rules SC1, SC3, SC4, SC6, SC7): what a request asks, whether it may, and
// the Server-Side Apply body that does it. Pure: the controller brings the request, a fresh read
// of the instance (with its managedFields) and the agent's secret-bound names, and carries out
// the decision.

export const SELF_CONFIG_MANAGER = 'openclaw-selfconfig';
export const OPENCLAW_API_VERSION = 'openclaw.rocks/v1alpha1';
export const INSTANCE_KIND = 'OpenClawInstance';
export const SELF_CONFIG_KIND = 'OpenClawSelfConfig';

export const SELF_CONFIG_CATEGORIES = ['skills', 'config', 'workspaceFiles', 'envVars'] as const;
export type SelfConfigCategory = (typeof SELF_CONFIG_CATEGORIES)[number];
/**
 * SG3: AwaitingApproval waits for an administrator; Rejected and Expired end such a wait. SG1:
 * Verifying waits, after the apply, for the gateway of the new generation to be Ready; it ends
 * Applied, or RolledBack when that gateway failed and what the agent owned before was restored.
 */
export const SELF_CONFIG_PHASES = ['Pending', 'AwaitingApproval', 'Verifying', 'Applied', 'Failed', 'Denied', 'Rejected', 'Expired', 'RolledBack'] as const;
export type SelfConfigPhase = (typeof SELF_CONFIG_PHASES)[number];
export type TerminalPhase = Exclude<SelfConfigPhase, 'Pending' | 'AwaitingApproval' | 'Verifying'>;
export const TERMINAL_PHASES: ReadonlySet<string> = new Set<TerminalPhase>(['Applied', 'Failed', 'Denied', 'Rejected', 'Expired', 'RolledBack']);

export const MAX_SKILLS_PER_REQUEST = 10;
export const MAX_WORKSPACE_FILES_PER_REQUEST = 10;
/** Not capped by SC1; bounded so one request stays one small apply (the instance holds at most 50 files). */
export const MAX_REMOVALS_PER_LIST = 50;
export const MAX_ENV_VARS_PER_REQUEST = 64;
const SKILL = /^(npm:|pack:)?[A-Za-z0-9_/.@-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,252}$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** SC4: config keys a request may not touch, each with its whole subtree. */
export const PROTECTED_CONFIG_KEYS: readonly string[] = ['gateway'];
/** SC4: env names a request may neither set nor remove (beyond platform-reserved and secret-bound names). */
export const PROTECTED_ENV_NAMES: readonly string[] = [
  'HOME', 'PATH', 'OPENCLAW_GATEWAY_TOKEN', 'OPENCLAW_INSTANCE_NAME', 'OPENCLAW_NAMESPACE', 'OPENCLAW_DISABLE_BONJOUR',
  'CHROMIUM_URL', 'OLLAMA_HOST', 'TS_AUTHKEY', 'TS_HOSTNAME', 'TS_SOCKET', 'NODE_EXTRA_CA_CERTS', 'NPM_CONFIG_CACHE',
  'NPM_CONFIG_IGNORE_SCRIPTS',
];

export interface SelfConfigEnvVar {
  name: string;
  value: string;
}

/** SC1: a request, checked and normalized (absent lists are empty). */
export interface SelfConfigSpec {
  instanceRef: string;
  addSkills: string[];
  removeSkills: string[];
  configPatch: JsonObject | null;
  addWorkspaceFiles: Record<string, string>;
  removeWorkspaceFiles: string[];
  addEnvVars: SelfConfigEnvVar[];
  removeEnvVars: string[];
}

export interface SpecProblem {
  code: string;
  field: string;
  message: string;
}

const SPEC_KEYS = new Set(['instanceRef', 'addSkills', 'removeSkills', 'configPatch', 'addWorkspaceFiles', 'removeWorkspaceFiles', 'addEnvVars', 'removeEnvVars']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, field: string, max: number): SpecProblem | null {
  if (typeof value !== 'string') return { code: 'INVALID_SPEC', field, message: `${field} must be a string.` };
  const problem = textProblem(value);
  if (problem) return { code: 'INVALID_UTF8', field, message: `${field} contains ${describeTextProblem(problem)}.` };
  if (value.length > max) return { code: 'INVALID_SPEC', field, message: `${field} is longer than ${max} characters.` };
  return null;
}

function stringList(raw: unknown, field: string, max: number, each: (v: string, f: string) => SpecProblem | null): { list: string[] } | { problem: SpecProblem } {
  if (raw === undefined || raw === null) return { list: [] };
  if (!Array.isArray(raw)) return { problem: { code: 'INVALID_SPEC', field, message: `${field} must be a list.` } };
  if (raw.length > max) return { problem: { code: 'TOO_MANY_ITEMS', field, message: `${field} holds ${raw.length} items; at most ${max}.` } };
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const f = `${field}[${i}]`;
    const problem = text(raw[i], f, 253) ?? each(raw[i] as string, f);
    if (problem) return { problem };
    if (seen.has(raw[i] as string)) return { problem: { code: 'DUPLICATE_ITEM', field: f, message: `${f} repeats an earlier item.` } };
    seen.add(raw[i] as string);
  }
  return { list: [...(raw as string[])] };
}

/**
 * A workspace file path: relative, no `..` segment, so it names a file inside the workspace. An
 * empty segment covers the empty path, a leading / and a trailing one alike.
 */
function workspacePathProblem(path: string, field: string): SpecProblem | null {
  if (path.split('/').some((s) => s === '..' || s === '')) {
    return { code: 'INVALID_PATH', field, message: `${field} must be a relative path inside the workspace (no leading /, no empty or .. segments).` };
  }
  return null;
}

const envNameProblem = (name: string, field: string): SpecProblem | null =>
  ENV_NAME.test(name) ? null : { code: 'INVALID_ENV_NAME', field, message: `${field} must match ^[A-Za-z_][A-Za-z0-9_]{0,252}$.` };

/** SC1: checks a request's spec as the CRD describes it, naming the first field at fault. */
export function parseSelfConfigSpec(raw: unknown): { spec: SelfConfigSpec } | { problem: SpecProblem } {
  if (!isObject(raw)) return { problem: { code: 'INVALID_SPEC', field: 'spec', message: 'spec must be an object.' } };
  for (const key of Object.keys(raw)) {
    if (!SPEC_KEYS.has(key)) return { problem: { code: 'UNKNOWN_FIELD', field: `spec.${key.slice(0, 64)}`, message: 'spec holds a field SelfConfig does not know.' } };
  }
  const ref = text(raw.instanceRef, 'instanceRef', 253);
  if (ref) return { problem: ref };
  if (!DNS_SUBDOMAIN.test(raw.instanceRef as string)) return { problem: { code: 'INVALID_SPEC', field: 'instanceRef', message: 'instanceRef must name an OpenClawInstance (a DNS subdomain).' } };

  const addSkills = stringList(raw.addSkills, 'addSkills', MAX_SKILLS_PER_REQUEST, (v, f) =>
    SKILL.test(v) ? null : { code: 'INVALID_SKILL', field: f, message: `${f} must match ^(npm:|pack:)?[A-Za-z0-9_/.@-]{1,128}$.` },
  );
  if ('problem' in addSkills) return addSkills;
  const removeSkills = stringList(raw.removeSkills, 'removeSkills', MAX_SKILLS_PER_REQUEST, () => null);
  if ('problem' in removeSkills) return removeSkills;

  let configPatch: JsonObject | null = null;
  if (raw.configPatch !== undefined && raw.configPatch !== null) {
    if (!isObject(raw.configPatch)) return { problem: { code: 'INVALID_SPEC', field: 'configPatch', message: 'configPatch must be an object.' } };
    const invalid = validateConfigurationValues(raw.configPatch);
    if (invalid) {
      const field = (invalid.field ?? 'values').replace(/^values/, 'configPatch');
      return { problem: { code: invalid.code, field, message: invalid.message.replace(/\bvalues\b/g, 'configPatch') } };
    }
    configPatch = raw.configPatch;
  }

  const addWorkspaceFiles: Record<string, string> = {};
  if (raw.addWorkspaceFiles !== undefined && raw.addWorkspaceFiles !== null) {
    if (!isObject(raw.addWorkspaceFiles)) return { problem: { code: 'INVALID_SPEC', field: 'addWorkspaceFiles', message: 'addWorkspaceFiles must map paths to contents.' } };
    const entries = Object.entries(raw.addWorkspaceFiles);
    if (entries.length > MAX_WORKSPACE_FILES_PER_REQUEST) {
      return { problem: { code: 'TOO_MANY_ITEMS', field: 'addWorkspaceFiles', message: `addWorkspaceFiles holds ${entries.length} files; at most ${MAX_WORKSPACE_FILES_PER_REQUEST}.` } };
    }
    for (let i = 0; i < entries.length; i++) {
      const [path, content] = entries[i]!;
      const f = `addWorkspaceFiles[${i}]`;
      const problem = text(path, f, 253) ?? workspacePathProblem(path, f) ?? text(content, `${f}.content`, 256 * 1024);
      if (problem) return { problem };
      addWorkspaceFiles[path] = content as string;
    }
  }
  const removeWorkspaceFiles = stringList(raw.removeWorkspaceFiles, 'removeWorkspaceFiles', MAX_REMOVALS_PER_LIST, workspacePathProblem);
  if ('problem' in removeWorkspaceFiles) return removeWorkspaceFiles;

  const addEnvVars: SelfConfigEnvVar[] = [];
  if (raw.addEnvVars !== undefined && raw.addEnvVars !== null) {
    if (!Array.isArray(raw.addEnvVars)) return { problem: { code: 'INVALID_SPEC', field: 'addEnvVars', message: 'addEnvVars must be a list of {name, value}.' } };
    if (raw.addEnvVars.length > MAX_ENV_VARS_PER_REQUEST) {
      return { problem: { code: 'TOO_MANY_ITEMS', field: 'addEnvVars', message: `addEnvVars holds ${raw.addEnvVars.length} items; at most ${MAX_ENV_VARS_PER_REQUEST}.` } };
    }
    const seen = new Set<string>();
    for (let i = 0; i < raw.addEnvVars.length; i++) {
      const item: unknown = raw.addEnvVars[i];
      const f = `addEnvVars[${i}]`;
      // Literal values only: a reference (valueFrom) would let an agent point at any secret.
      if (!isObject(item) || Object.keys(item).some((k) => k !== 'name' && k !== 'value')) {
        return { problem: { code: 'LITERAL_VALUES_ONLY', field: f, message: `${f} must be {name, value} with a literal value; references are not accepted.` } };
      }
      const problem = text(item.name, `${f}.name`, 253) ?? envNameProblem(item.name as string, `${f}.name`) ?? text(item.value, `${f}.value`, 128 * 1024);
      if (problem) return { problem };
      // The rule a config key obeys (C1), for an env name: a credential never arrives as a literal.
      if (isCredentialKey(item.name as string) && (item.value as string) !== '') {
        return {
          problem: {
            code: 'LITERAL_CREDENTIAL',
            field: `${f}.value`,
            message: `${f}: env var ${JSON.stringify(item.name)} is named like a credential and holds a literal value; a credential is bound from a Secret by a deploy, never sent in a request.`,
          },
        };
      }
      if (seen.has(item.name as string)) return { problem: { code: 'DUPLICATE_ITEM', field: `${f}.name`, message: `${f}.name repeats an earlier item.` } };
      seen.add(item.name as string);
      addEnvVars.push({ name: item.name as string, value: item.value as string });
    }
  }
  const removeEnvVars = stringList(raw.removeEnvVars, 'removeEnvVars', MAX_REMOVALS_PER_LIST, envNameProblem);
  if ('problem' in removeEnvVars) return removeEnvVars;

  // One request adding and removing the same item says two things; neither is taken.
  const conflicts: Array<[string, string[], (item: string) => boolean]> = [
    ['removeSkills', removeSkills.list, (s) => addSkills.list.includes(s)],
    ['removeWorkspaceFiles', removeWorkspaceFiles.list, (p) => Object.hasOwn(addWorkspaceFiles, p)],
    ['removeEnvVars', removeEnvVars.list, (n) => addEnvVars.some((e) => e.name === n)],
  ];
  for (const [field, list, added] of conflicts) {
    const i = list.findIndex(added);
    if (i >= 0) return { problem: { code: 'ADDED_AND_REMOVED', field: `${field}[${i}]`, message: `${field}[${i}] is also added by this request.` } };
  }

  return {
    spec: {
      instanceRef: raw.instanceRef as string,
      addSkills: addSkills.list,
      removeSkills: removeSkills.list,
      configPatch,
      addWorkspaceFiles,
      removeWorkspaceFiles: removeWorkspaceFiles.list,
      addEnvVars,
      removeEnvVars: removeEnvVars.list,
    },
  };
}

/** The categories a request acts on (SC3): a category counts when it adds or removes anything. */
export function requestedCategories(spec: SelfConfigSpec): SelfConfigCategory[] {
  const out: SelfConfigCategory[] = [];
  if (spec.addSkills.length + spec.removeSkills.length > 0) out.push('skills');
  if (spec.configPatch !== null) out.push('config');
  if (Object.keys(spec.addWorkspaceFiles).length + spec.removeWorkspaceFiles.length > 0) out.push('workspaceFiles');
  if (spec.addEnvVars.length + spec.removeEnvVars.length > 0) out.push('envVars');
  return out;
}

// ---- planning (SC3, SC4, SC6, SC7) ------------------------------------------------------------

/** What the controller reads of the instance: a fresh GET, managedFields included. */
export interface InstanceSnapshot {
  name: string;
  namespace: string;
  resourceVersion: string;
  spec: JsonObject;
  managedFields: unknown;
}

export interface PlanContext {
  /** SC4: names bound to a Secret by the agent's Configuration, and its harnessAuth env name. */
  secretBoundEnvNames: Iterable<string>;
}

export interface SkippedRemoval {
  kind: ItemKind;
  name: string;
  /** The managers that keep the item; empty when the item is not there at all. */
  managers: FieldOwner[];
  /** not-owned: this manager never owned it; shared: released here, others still own it; absent: nothing to remove. */
  why: 'not-owned' | 'shared' | 'absent';
}

export type SelfConfigDecision =
  | { phase: 'Failed' | 'Denied'; reason: string; message: string }
  | { phase: 'Apply'; body: JsonObject; skipped: SkippedRemoval[]; categories: SelfConfigCategory[] };

/** SC4: why a request may not set or remove an env name, or null. */
export function protectedEnvReason(name: string, secretBound: ReadonlySet<string>): string | null {
  if (PROTECTED_ENV_NAMES.includes(name.toUpperCase())) return `${name} is protected`;
  if (platformInjectedEnvNames().has(name) || platformInjectedEnvNames().has(name.toUpperCase())) return `${name} is set by the platform in the gateway`;
  if (secretBound.has(name)) return `${name} is bound to a Secret`;
  // What the platform injects into a gateway (C2's reserved names and prefixes) is never an agent's.
  return reservedEnvName(name);
}

/** SC4: the protected config keys a patch touches (set, change or delete, at any depth below). */
export function protectedConfigKeys(patch: JsonObject | null): string[] {
  if (!patch) return [];
  return Object.keys(patch).filter((key) => PROTECTED_CONFIG_KEYS.includes(key));
}


/**
 * SC4: the first protected config key or env name a request touches, or null. `secretBound` holds
 * the names bound to a Secret; admission, which cannot know them, passes none (SG5).
 */
export function protectionProblem(spec: SelfConfigSpec, secretBound: ReadonlySet<string>): { reason: 'ProtectedConfigKey' | 'ProtectedEnvVar'; message: string } | null {
  const touchedKeys = protectedConfigKeys(spec.configPatch);
  if (touchedKeys.length > 0) return { reason: 'ProtectedConfigKey', message: `configPatch touches protected config key ${touchedKeys.map((k) => JSON.stringify(k)).join(', ')}` };
  for (const [field, names] of [['addEnvVars', spec.addEnvVars.map((e) => e.name)], ['removeEnvVars', spec.removeEnvVars]] as const) {
    for (const name of names) {
      const reason = protectedEnvReason(name, secretBound);
      if (reason) return { reason: 'ProtectedEnvVar', message: `${field}: env var ${JSON.stringify(name)} is protected (${reason})` };
    }
  }
  return null;
}

function selfConfigureOf(spec: JsonObject): { enabled: boolean; allowedActions: string[] } {
  const sc = isObject(spec.selfConfigure) ? spec.selfConfigure : {};
  return {
    enabled: sc.enabled === true,
    allowedActions: Array.isArray(sc.allowedActions) ? sc.allowedActions.filter((a): a is string => typeof a === 'string') : [],
  };
}

function describeOwners(owners: FieldOwner[]): string {
  return owners.map((o) => `${o.manager} (${o.operation})`).join(', ');
}

/** SC7: one line per skipped removal, for the status message and the events. */
export function describeSkipped(s: SkippedRemoval): string {
  const what = `${s.kind} ${JSON.stringify(s.name)}`;
  if (s.why === 'absent') return `removal of ${what} skipped: not present`;
  if (s.why === 'shared') return `removal of ${what} skipped: also owned by ${describeOwners(s.managers)}; kept`;
  return `removal of ${what} skipped: owned by ${describeOwners(s.managers)}, not by ${SELF_CONFIG_MANAGER}`;
}

const itemKey = (kind: ItemKind, name: string) => `${kind}\u0000${name}`;

/** The value at a key path of a document, or undefined. */
export function valueAt(doc: unknown, path: readonly string[]): unknown {
  let node: unknown = doc;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Sets a key path, making (or replacing non-objects with) objects on the way. */
export function setAt(doc: JsonObject, path: readonly string[], value: unknown): void {
  let node = doc;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as JsonObject;
  }
  node[path[path.length - 1]!] = value;
}

function deleteAt(doc: JsonObject, path: readonly string[]): void {
  const parent = valueAt(doc, path.slice(0, -1));
  if (isObject(parent)) delete parent[path[path.length - 1]!];
}

/** Removes empty objects at every level: an applied empty map would be owned as a node of its own. */
function pruneEmpty(doc: JsonObject): void {
  // Iterative (SG5: no walk over request or instance JSON may recurse): parents are listed before
  // their children, so visiting the list backwards empties children before their parents are judged.
  const order: Array<[JsonObject, string, JsonObject]> = [];
  const stack: JsonObject[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const [key, value] of Object.entries(node)) {
      if (!isObject(value)) continue;
      order.push([node, key, value]);
      stack.push(value);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const [parent, key, value] = order[i]!;
    if (Object.keys(value).length === 0) delete parent[key];
  }
}

/**
 * SC3 then SC4 then SC6/SC7, in that order: the instance must exist; selfConfigure must be
 * enabled; the request must ask something; every category it touches must be allowed; no
 * protected key or name may be touched. Then the apply body: everything this manager owns today,
 * in every category, plus the adds, minus the removes; items only others own are never sent.
 */
export function planSelfConfig(spec: SelfConfigSpec, instance: InstanceSnapshot | null, context: PlanContext): SelfConfigDecision {
  if (!instance) return { phase: 'Failed', reason: 'InstanceNotFound', message: `OpenClawInstance ${spec.instanceRef} not found` };
  const selfConfigure = selfConfigureOf(instance.spec);
  if (!selfConfigure.enabled) return { phase: 'Denied', reason: 'SelfConfigureDisabled', message: `selfConfigure is not enabled on ${instance.name}` };
  const categories = requestedCategories(spec);
  if (categories.length === 0) return { phase: 'Failed', reason: 'NoAction', message: 'the request asks for no change' };
  const disallowed = categories.filter((c) => !selfConfigure.allowedActions.includes(c));
  if (disallowed.length > 0) {
    return { phase: 'Denied', reason: 'ActionNotAllowed', message: `not in allowedActions of ${instance.name}: ${disallowed.join(', ')}` };
  }

  const liveEnv = Array.isArray(instance.spec.env) ? instance.spec.env.filter(isObject) : [];
  // A name the live instance fills from a reference is secret-bound too, whoever wrote it.
  const bound = new Set<string>(context.secretBoundEnvNames);
  for (const item of liveEnv) if (typeof item.name === 'string' && item.valueFrom !== undefined) bound.add(item.name);
  const problem = protectionProblem(spec, bound);
  if (problem) return { phase: 'Failed', ...problem };

  const { body, skipped } = applyBody(spec, instance, liveEnv);
  return { phase: 'Apply', body, skipped, categories };
}

/**
 * SC6: the apply body of openclaw-selfconfig: everything it owns today, in every category, plus the
 * adds, minus the removes; items only others own are never sent, and their removal is skipped
 * (SC7). With a resourceVersion precondition: a concurrent writer makes the apply a 409.
 */
function applyBody(spec: SelfConfigSpec, instance: InstanceSnapshot, liveEnv: JsonObject[]): { body: JsonObject; skipped: SkippedRemoval[] } {
  const ownership = fieldOwnership(instance.managedFields);
  const ownersOf = new Map(ownership.map((o) => [itemKey(o.kind, o.name), o.owners]));
  const isMe = (o: FieldOwner) => o.manager === SELF_CONFIG_MANAGER && o.operation === 'Apply';
  const mine = (kind: ItemKind, name: string) => (ownersOf.get(itemKey(kind, name)) ?? []).some(isMe);
  const others = (kind: ItemKind, name: string) => (ownersOf.get(itemKey(kind, name)) ?? []).filter((o) => !isMe(o));
  const skipped: SkippedRemoval[] = [];
  const removal = (kind: SkippedRemoval['kind'], name: string, present: boolean): boolean => {
    const rest = others(kind, name);
    if (mine(kind, name)) {
      if (rest.length > 0) skipped.push({ kind, name, managers: rest, why: 'shared' });
      return true;
    }
    skipped.push({ kind, name, managers: rest, why: present || rest.length > 0 ? 'not-owned' : 'absent' });
    return false;
  };

  const specOut: JsonObject = {};

  // Skills (a set): mine, in the live order, then the adds; the removes leave the body.
  const liveSkills = Array.isArray(instance.spec.skills) ? instance.spec.skills.filter((s): s is string => typeof s === 'string') : [];
  const removeSkills = new Set(spec.removeSkills.filter((s) => removal('skill', s, liveSkills.includes(s))));
  const skills = new Set<string>();
  for (const s of liveSkills) if ((mine('skill', s) || spec.addSkills.includes(s)) && !removeSkills.has(s)) skills.add(s);
  for (const s of spec.addSkills) if (!removeSkills.has(s)) skills.add(s);
  if (skills.size > 0) specOut.skills = [...skills];

  // Env vars (a map list keyed by name): mine with their live literal values, then the adds.
  const liveNames = liveEnv.map((e) => e.name).filter((n): n is string => typeof n === 'string');
  const removeEnv = new Set(spec.removeEnvVars.filter((n) => removal('envVar', n, liveNames.includes(n))));
  const adds = new Map(spec.addEnvVars.map((e) => [e.name, e.value]));
  const env: JsonObject[] = [];
  for (const item of liveEnv) {
    const name = item.name as string;
    if (removeEnv.has(name)) continue;
    if (adds.has(name)) env.push({ name, value: adds.get(name) });
    else if (mine('envVar', name) && typeof item.value === 'string') env.push({ name, value: item.value });
  }
  for (const [name, value] of adds) if (!removeEnv.has(name) && !liveNames.includes(name)) env.push({ name, value });
  if (env.length > 0) specOut.env = env;

  // Workspace files (a granular map): mine with their live content, then the adds.
  const workspace = isObject(instance.spec.workspace) ? instance.spec.workspace : {};
  const liveFiles = isObject(workspace.initialFiles) ? workspace.initialFiles : {};
  const removeFiles = new Set(spec.removeWorkspaceFiles.filter((p) => removal('workspaceFile', p, Object.hasOwn(liveFiles, p))));
  const files: JsonObject = {};
  for (const [path, content] of Object.entries(liveFiles)) if (mine('workspaceFile', path) && !removeFiles.has(path) && typeof content === 'string') files[path] = content;
  for (const [path, content] of Object.entries(spec.addWorkspaceFiles)) if (!removeFiles.has(path)) files[path] = content;
  if (Object.keys(files).length > 0) specOut.workspace = { initialFiles: files };

  // The config document (granular at every level, K2): the keys this manager owns today with their
  // live values, then the patch (RFC 7386): a null removes a key this manager holds, and is skipped,
  // naming the owners, for a key only others hold (SC7).
  const config = isObject(instance.spec.config) ? instance.spec.config : {};
  const liveRaw = isObject(config.raw) ? config.raw : {};
  const entries = managerEntries(instance.managedFields);
  const minePaths = entries.filter(isMe).flatMap((e) => configPaths(e.set));
  const otherPaths = entries.filter((e) => !isMe(e)).flatMap((e) => configPaths(e.set).map((path) => ({ path, owner: { manager: e.manager, operation: e.operation } })));
  const raw: JsonObject = {};
  for (const path of minePaths) {
    const value = valueAt(liveRaw, path);
    if (value !== undefined) setAt(raw, path, value);
  }
  if (spec.configPatch !== null) {
    const walk = (patch: JsonObject, prefix: string[]) => {
      for (const [key, value] of Object.entries(patch)) {
        const path = [...prefix, key];
        if (value === null) {
          const below = (p: string[]) => p.length >= path.length && path.every((k, i) => p[i] === k);
          const mineHere = minePaths.some(below);
          const owners: FieldOwner[] = [];
          for (const o of otherPaths) if (below(o.path) && !owners.some((x) => x.manager === o.owner.manager && x.operation === o.owner.operation)) owners.push(o.owner);
          if (mineHere) deleteAt(raw, path);
          if (owners.length > 0) skipped.push({ kind: 'config', name: configPathString(path), managers: owners, why: mineHere ? 'shared' : 'not-owned' });
          else if (!mineHere) skipped.push({ kind: 'config', name: configPathString(path), managers: [], why: valueAt(liveRaw, path) === undefined ? 'absent' : 'not-owned' });
        } else if (isObject(value)) {
          if (!isObject(valueAt(raw, path))) setAt(raw, path, {});
          walk(value, path);
        } else {
          setAt(raw, path, value);
        }
      }
    };
    walk(spec.configPatch, []);
  }
  pruneEmpty(raw);
  if (Object.keys(raw).length > 0) specOut.config = { raw };

  const body: JsonObject = {
    apiVersion: OPENCLAW_API_VERSION,
    kind: INSTANCE_KIND,
    // SC6: the precondition; a concurrent writer makes the apply a 409 and the controller re-plans.
    metadata: { name: instance.name, namespace: instance.namespace, resourceVersion: instance.resourceVersion },
    spec: specOut,
  };
  return { body, skipped };
}

/**
 * RC3: the openclaw-selfconfig body that lets go of the agent's literal env values for `envNames`
 * (a deploy is about to bind them) and keeps everything else the agent holds.
 */
export function releaseEnvBody(instance: InstanceSnapshot, envNames: readonly string[]): JsonObject {
  const liveEnv = Array.isArray(instance.spec.env) ? instance.spec.env.filter(isObject) : [];
  const none: SelfConfigSpec = { instanceRef: instance.name, addSkills: [], removeSkills: [], configPatch: null, addWorkspaceFiles: {}, removeWorkspaceFiles: [], addEnvVars: [], removeEnvVars: [...envNames] };
  return applyBody(none, instance, liveEnv).body;
}

/**
 * SG1: the openclaw-selfconfig body of everything it owns in `instance` now, without a
 * resourceVersion precondition: applied after a failed request, it restores what the agent held
 * before it (items it added go, items it removed or changed come back).
 */
export function ownedBody(instance: InstanceSnapshot): JsonObject {
  const body = releaseEnvBody(instance, []);
  const metadata = { ...(body.metadata as JsonObject) };
  delete metadata.resourceVersion;
  return { ...body, metadata };
}

/** SC7: the status message of an applied request, listing every skipped removal. */
export function appliedMessage(skipped: readonly SkippedRemoval[]): string {
  if (skipped.length === 0) return 'applied';
  return `applied; ${skipped.length} removal(s) skipped: ${skipped.map(describeSkipped).join('; ')}`;
}

/** `status.skippedRemovals`: {kind, name, managers}, managers as "name (Operation)". */
export function skippedRemovalsStatus(skipped: readonly SkippedRemoval[]): Array<{ kind: string; name: string; managers: string[] }> {
  return skipped.map((s) => ({ kind: s.kind, name: s.name, managers: s.managers.map((m) => `${m.manager} (${m.operation})`) }));
}
