import { ValidationError } from './errors.ts';
import { describeTextProblem, textProblem } from './text.ts';

// Configurations: the native OpenClaw document (references only) and its secret bindings
// (rules C1, C2, C6). Pure: callers resolve secrets and access separately.

export const MAX_BINDINGS = 64;
export const MAX_VALUES_BYTES = 256 * 1024;
const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,252}$/;

/** The env name each harness provider's model credential is delivered under. */
export const MODEL_CREDENTIAL_ENV: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GEMINI_API_KEY',
  gemini: 'GEMINI_API_KEY',
  mistral: 'MISTRAL_API_KEY',
  groq: 'GROQ_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  xai: 'XAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
};

const RESERVED_NAMES = new Set([
  'PATH', 'HOME', 'USER', 'SHELL', 'PWD', 'HOSTNAME', 'TMPDIR', 'LANG', 'TZ',
  'CHROMIUM_URL', 'OLLAMA_HOST', 'TS_AUTHKEY', 'TS_HOSTNAME', 'TS_SOCKET',
  'NPM_CONFIG_CACHE', 'NPM_CONFIG_IGNORE_SCRIPTS', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY',
]);
const RESERVED_PREFIXES = ['OPENCLAW_', 'OCC_', 'KUBERNETES_', 'NODE_', 'LD_', 'DYLD_', 'NPM_CONFIG_', 'TS_'];
const MODEL_CREDENTIAL_NAMES = new Set([...Object.values(MODEL_CREDENTIAL_ENV), 'AZURE_OPENAI_API_KEY', 'COHERE_API_KEY']);

export const DELIVERY_TYPES = ['env'] as const;
export type DeliveryType = (typeof DELIVERY_TYPES)[number];

export interface SecretRef {
  kind: 'secret';
  namespaceId: string;
  id: string;
}

export interface SecretBindingInput {
  envName: string;
  source: { kind?: string | null; namespaceId?: string | null; id: string };
  delivery?: { type?: string | null } | null;
}

export interface SecretBinding {
  envName: string;
  source: SecretRef;
  delivery: { type: DeliveryType };
}

/** C2: why an env name may not be bound, or null. */
export function reservedEnvName(name: string): string | null {
  const upper = name.toUpperCase();
  if (MODEL_CREDENTIAL_NAMES.has(upper)) return `${name} is reserved for the agent's harnessAuth`;
  if (RESERVED_NAMES.has(upper)) return `${name} is reserved by the platform`;
  const prefix = RESERVED_PREFIXES.find((p) => upper.startsWith(p));
  if (prefix) return `names starting with ${prefix} are reserved by the platform`;
  return null;
}

/**
 * C1, C2, C3 (shape): checks and normalizes bindings for a Configuration in `namespaceId`.
 * Delivery defaults to env; unknown delivery types and source kinds fail closed. A source naming
 * another namespace is reported by the caller as NOT_FOUND (C3), so it is kept here as given.
 */
export function normalizeSecretBindings(namespaceId: string, input: readonly SecretBindingInput[]): SecretBinding[] {
  if (input.length > MAX_BINDINGS) {
    throw new ValidationError('TOO_MANY_BINDINGS', `At most ${MAX_BINDINGS} secret bindings; got ${input.length}.`, 'secretBindings');
  }
  const seen = new Set<string>();
  return input.map((b, i) => {
    const field = `secretBindings[${i}]`;
    if (!BINDING_NAME.test(b.envName)) {
      throw new ValidationError('INVALID_BINDING_NAME', 'Binding names match ^[A-Za-z_][A-Za-z0-9_]{0,252}$.', `${field}.envName`);
    }
    const reserved = reservedEnvName(b.envName);
    if (reserved) throw new ValidationError('RESERVED_BINDING_NAME', reserved, `${field}.envName`);
    if (seen.has(b.envName)) throw new ValidationError('DUPLICATE_BINDING_NAME', `${b.envName} is bound twice.`, `${field}.envName`);
    seen.add(b.envName);
    const kind = b.source.kind ?? 'secret';
    if (kind !== 'secret') throw new ValidationError('UNSUPPORTED_SOURCE', 'This source kind is not supported; only "secret".', `${field}.source.kind`);
    const type = b.delivery?.type ?? 'env';
    if (!(DELIVERY_TYPES as readonly string[]).includes(type)) {
      throw new ValidationError('UNSUPPORTED_DELIVERY', 'This delivery type is not supported; only "env".', `${field}.delivery.type`);
    }
    return {
      envName: b.envName,
      source: { kind: 'secret', namespaceId: b.source.namespaceId ?? namespaceId, id: b.source.id },
      delivery: { type: type as DeliveryType },
    };
  });
}

/** How deep the native document may nest; OpenClaw's own documents stay far below it. */
export const MAX_VALUES_DEPTH = 64;

/** The sources of OpenClaw's native SecretRef `{source, provider, id}`. */
export const SECRET_REF_SOURCES = ['env', 'file', 'exec'] as const;

const CREDENTIAL_WORDS = new Set([
  'token', 'secret', 'secrets', 'password', 'passwords', 'passwd', 'passphrase', 'pwd',
  'credential', 'credentials', 'creds', 'private', 'apikey', 'apikeys', 'privatekey', 'authorization', 'bearer',
]);
/**
 * "auth" names a credential when it holds a literal (`auth: "sk-…"`), but an object under it is a
 * settings block (OpenClaw's `gateway.auth.mode: "token"`) whose children are judged by their own
 * keys (`gateway.auth.token` is a credential key; `mode` is not).
 */
const WEAK_CREDENTIAL_WORDS = new Set(['auth']);
// "tokens" is left out on purpose: maxTokens and contextTokens count model tokens.
/** "key" names a credential as the last word (apiKey, signing_key, KEY), not as a qualifier (keyId). */
const CREDENTIAL_LAST_WORDS = new Set(['key', 'keys']);
/** Words run together without separators (bottoken, clientsecret) still end in one of these. */
const CREDENTIAL_SUFFIXES = ['token', 'secret', 'secrets', 'password', 'passwd', 'apikey', 'privatekey', 'credential', 'credentials'];

/** The words of a key, whatever its spelling: camelCase, PascalCase, snake_case, kebab-case, dotted, UPPER. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * Whether a key of the native document names a credential: `strong` keys hold only references at
 * any depth; `weak` ones (see WEAK_CREDENTIAL_WORDS) only when they hold a literal directly.
 */
export function credentialKeyStrength(key: string): 'strong' | 'weak' | null {
  const words = keyWords(key);
  if (words.length === 0) return null;
  if (words.some((w) => CREDENTIAL_WORDS.has(w)) || CREDENTIAL_LAST_WORDS.has(words[words.length - 1]!)) return 'strong';
  const joined = words.join('');
  if (CREDENTIAL_SUFFIXES.some((s) => joined.endsWith(s))) return 'strong';
  return words.some((w) => WEAK_CREDENTIAL_WORDS.has(w)) ? 'weak' : null;
}

/** Whether a key of the native document names a credential, so its value must be a reference. */
export function isCredentialKey(key: string): boolean {
  return credentialKeyStrength(key) !== null;
}

/** OpenClaw's native SecretRef: exactly `{source, provider?, id}` with a known source and a non-empty id. */
export function isSecretRefValue(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (!Object.keys(v).every((k) => k === 'source' || k === 'provider' || k === 'id')) return false;
  return (
    (SECRET_REF_SOURCES as readonly string[]).includes(v.source as string) &&
    typeof v.id === 'string' &&
    v.id.length > 0 &&
    (v.provider === undefined || typeof v.provider === 'string')
  );
}

function isEnvSecretRef(value: unknown): value is { source: 'env'; provider?: string; id: string } {
  return typeof value === 'object' && value !== null && (value as { source?: unknown }).source === 'env' && typeof (value as { id?: unknown }).id === 'string';
}

interface Frame {
  node: unknown;
  parent: Frame | null;
  /** How this node is reached from its parent: `.key`, `[3]`, or `[key #2]` for a key not shown. */
  segment: string;
  depth: number;
  /** Under a credential-like key: only references (and null, booleans, "") may appear. */
  credential: boolean;
}

const SHOWN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;

function pathOf(frame: Frame): string {
  const segments: string[] = [];
  for (let f: Frame | null = frame; f; f = f.parent) segments.push(f.segment);
  return segments.reverse().join('');
}

/**
 * The native document: a JSON object of at most 256 KiB and 64 levels, holding references only,
 * with text that PostgreSQL can store (P4). Under a credential-like key, at any depth, every value
 * must be a reference `{source, provider, id}`: a string or number there would be a literal
 * credential outside any Secret. The walk is iterative, so no input can overflow the stack, and
 * messages name the path (keys that look like identifiers; others by position), never a value.
 */
export function validateConfigurationValues(values: unknown): ValidationError | null {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    return new ValidationError('INVALID_VALUES', 'values must be a JSON object (the native OpenClaw document).', 'values');
  }
  const stack: Frame[] = [{ node: values, parent: null, segment: 'values', depth: 0, credential: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node } = frame;
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem) return new ValidationError('INVALID_UTF8', `${pathOf(frame)} contains ${describeTextProblem(problem)}, which cannot be stored.`, pathOf(frame));
      if (frame.credential && node.length > 0) return literalCredential(frame);
      continue;
    }
    if (typeof node === 'number' || typeof node === 'bigint') {
      if (frame.credential) return literalCredential(frame);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (frame.depth >= MAX_VALUES_DEPTH) {
      return new ValidationError('VALUES_TOO_DEEP', `values nests deeper than ${MAX_VALUES_DEPTH} levels (at ${pathOf(frame)}).`, pathOf(frame));
    }
    // A reference ends the credential context; its own strings are still checked for storable text.
    const credential = frame.credential && !isSecretRefValue(node);
    const children: Frame[] = [];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) children.push({ node: node[i], parent: frame, segment: `[${i}]`, depth: frame.depth + 1, credential });
    } else {
      const keys = Object.keys(node);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const segment = SHOWN_KEY.test(key) ? `.${key}` : `[key #${i}]`;
        const problem = textProblem(key);
        if (problem) {
          const at = pathOf(frame);
          return new ValidationError('INVALID_UTF8', `A key in ${at} contains ${describeTextProblem(problem)}, which cannot be stored.`, at);
        }
        const child = (node as Record<string, unknown>)[key];
        const strength = credentialKeyStrength(key);
        const holdsLiteral = typeof child !== 'object' || child === null || Array.isArray(child);
        const underCredential = credential || strength === 'strong' || (strength === 'weak' && holdsLiteral);
        children.push({ node: child, parent: frame, segment, depth: frame.depth + 1, credential: underCredential });
      }
    }
    // Reversed, so the walk visits children in document order and reports the first problem.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  // Only now, with the depth bounded, is JSON.stringify safe from deep recursion.
  const bytes = new TextEncoder().encode(JSON.stringify(values)).length;
  if (bytes > MAX_VALUES_BYTES) return new ValidationError('VALUES_TOO_LARGE', `values is ${bytes} bytes; the limit is ${MAX_VALUES_BYTES}.`, 'values');
  return null;
}

function literalCredential(frame: Frame): ValidationError {
  const path = pathOf(frame);
  return new ValidationError(
    'LITERAL_CREDENTIAL',
    `${path} holds a literal value under a credential-like key; use a SecretRef {source: "env", provider, id} and a secret binding.`,
    path,
  );
}

export interface MissingChannelBinding {
  channel: string;
  path: string;
  envName: string;
}

/**
 * C6: every env SecretRef inside an enabled channel of the native document must have a binding
 * of the same name. A channel is enabled unless `enabled: false`; disabled channels need none.
 */
export function missingChannelBindings(values: unknown, boundEnvNames: Iterable<string>): MissingChannelBinding[] {
  const bound = new Set(boundEnvNames);
  const channels = (values as { channels?: unknown } | null)?.channels;
  if (typeof channels !== 'object' || channels === null) return [];
  const missing: MissingChannelBinding[] = [];
  for (const [name, config] of Object.entries(channels)) {
    if ((config as { enabled?: unknown } | null)?.enabled === false) continue;
    // Iterative, in document order (children pushed in reverse): no document can overflow the stack.
    const stack: Array<[unknown, string]> = [[config, `channels.${name}`]];
    while (stack.length > 0) {
      const [node, path] = stack.pop()!;
      if (isEnvSecretRef(node)) {
        if (!bound.has(node.id)) missing.push({ channel: name, path, envName: node.id });
        continue;
      }
      const children: Array<[unknown, string]> = Array.isArray(node)
        ? node.map((child, i) => [child, `${path}[${i}]`])
        : typeof node === 'object' && node !== null
          ? Object.entries(node).map(([k, v]) => [v, `${path}.${k}`])
          : [];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  return missing;
}

export const SELF_CONFIGURE_ACTIONS = ['skills', 'config', 'workspaceFiles', 'envVars'] as const;
export type SelfConfigureAction = (typeof SELF_CONFIGURE_ACTIONS)[number];

export function validateSelfConfigure(input: { enabled: boolean; allowedActions: readonly string[] }): ValidationError | null {
  for (const action of input.allowedActions) {
    if (!(SELF_CONFIGURE_ACTIONS as readonly string[]).includes(action)) {
      return new ValidationError('INVALID_SELF_CONFIGURE_ACTION', `Unknown selfConfigure action; use ${SELF_CONFIGURE_ACTIONS.join(', ')}.`, 'selfConfigure.allowedActions');
    }
  }
  return null;
}

export function modelCredentialEnv(provider: string): string | null {
  return MODEL_CREDENTIAL_ENV[provider] ?? null;
}
