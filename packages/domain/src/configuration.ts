import { ValidationError } from './errors.ts';

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
      throw new ValidationError('INVALID_BINDING_NAME', `Binding names match ^[A-Za-z_][A-Za-z0-9_]{0,252}$; ${JSON.stringify(b.envName.slice(0, 40))} does not.`, `${field}.envName`);
    }
    const reserved = reservedEnvName(b.envName);
    if (reserved) throw new ValidationError('RESERVED_BINDING_NAME', reserved, `${field}.envName`);
    if (seen.has(b.envName)) throw new ValidationError('DUPLICATE_BINDING_NAME', `${b.envName} is bound twice.`, `${field}.envName`);
    seen.add(b.envName);
    const kind = b.source.kind ?? 'secret';
    if (kind !== 'secret') throw new ValidationError('UNSUPPORTED_SOURCE', `Source kind ${JSON.stringify(kind)} is not supported; only "secret".`, `${field}.source.kind`);
    const type = b.delivery?.type ?? 'env';
    if (!(DELIVERY_TYPES as readonly string[]).includes(type)) {
      throw new ValidationError('UNSUPPORTED_DELIVERY', `Delivery type ${JSON.stringify(type)} is not supported; only "env".`, `${field}.delivery.type`);
    }
    return {
      envName: b.envName,
      source: { kind: 'secret', namespaceId: b.source.namespaceId ?? namespaceId, id: b.source.id },
      delivery: { type: type as DeliveryType },
    };
  });
}

const LITERAL_CREDENTIAL_KEY = /(token|secret|password|passwd|apikey|api_key|privatekey|private_key)$/i;

function isEnvSecretRef(value: unknown): value is { source: 'env'; provider?: string; id: string } {
  return typeof value === 'object' && value !== null && (value as { source?: unknown }).source === 'env' && typeof (value as { id?: unknown }).id === 'string';
}

/**
 * The native document: a JSON object of at most 256 KiB holding references only. A string under
 * a credential-like key is refused: it would be a literal credential outside any Secret.
 */
export function validateConfigurationValues(values: unknown): ValidationError | null {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    return new ValidationError('INVALID_VALUES', 'values must be a JSON object (the native OpenClaw document).', 'values');
  }
  const bytes = new TextEncoder().encode(JSON.stringify(values)).length;
  if (bytes > MAX_VALUES_BYTES) return new ValidationError('VALUES_TOO_LARGE', `values is ${bytes} bytes; the limit is ${MAX_VALUES_BYTES}.`, 'values');
  const walk = (node: unknown, path: string): ValidationError | null => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const e = walk(node[i], `${path}[${i}]`);
        if (e) return e;
      }
      return null;
    }
    if (typeof node !== 'object' || node === null) return null;
    for (const [key, child] of Object.entries(node)) {
      const childPath = `${path}.${key}`;
      if (LITERAL_CREDENTIAL_KEY.test(key) && typeof child === 'string' && child.length > 0) {
        return new ValidationError('LITERAL_CREDENTIAL', `${childPath} holds a literal value; use a SecretRef {source: "env", provider, id} and a secret binding.`, childPath);
      }
      const e = walk(child, childPath);
      if (e) return e;
    }
    return null;
  };
  return walk(values, 'values');
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
  const walk = (node: unknown, channel: string, path: string) => {
    if (isEnvSecretRef(node)) {
      if (!bound.has(node.id)) missing.push({ channel, path, envName: node.id });
      return;
    }
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, channel, `${path}[${i}]`));
    else if (typeof node === 'object' && node !== null) for (const [k, v] of Object.entries(node)) walk(v, channel, `${path}.${k}`);
  };
  for (const [name, config] of Object.entries(channels)) {
    if ((config as { enabled?: unknown } | null)?.enabled === false) continue;
    walk(config, name, `channels.${name}`);
  }
  return missing;
}

export const SELF_CONFIGURE_ACTIONS = ['skills', 'config', 'workspaceFiles', 'envVars'] as const;
export type SelfConfigureAction = (typeof SELF_CONFIGURE_ACTIONS)[number];

export function validateSelfConfigure(input: { enabled: boolean; allowedActions: readonly string[] }): ValidationError | null {
  for (const action of input.allowedActions) {
    if (!(SELF_CONFIGURE_ACTIONS as readonly string[]).includes(action)) {
      return new ValidationError('INVALID_SELF_CONFIGURE_ACTION', `Unknown selfConfigure action ${JSON.stringify(action)}; use ${SELF_CONFIGURE_ACTIONS.join(', ')}.`, 'selfConfigure.allowedActions');
    }
  }
  return null;
}

export function modelCredentialEnv(provider: string): string | null {
  return MODEL_CREDENTIAL_ENV[provider] ?? null;
}
