import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import {
  MAX_VALUES_DEPTH,
  MODEL_CREDENTIAL_ENV,
  isCredentialKey,
  missingChannelBindings,
  modelCredentialEnv,
  normalizeSecretBindings,
  reservedEnvName,
  validateConfigurationValues,
  validateSelfConfigure,
} from './configuration.ts';

const NS = 'ns_00000000-0000-4000-8000-000000000001';
const ref = (id: string) => ({ source: 'env', provider: 'default', id });

describe('normalizeSecretBindings', () => {
  it('C1 defaults delivery to env and the source namespace to the owner', () => {
    expect(normalizeSecretBindings(NS, [{ envName: 'TELEGRAM_BOT_TOKEN', source: { id: 'sec_1' } }])).toEqual([
      { envName: 'TELEGRAM_BOT_TOKEN', source: { kind: 'secret', namespaceId: NS, id: 'sec_1' }, delivery: { type: 'env' } },
    ]);
  });

  it('C1 accepts the grammar boundaries: 253 characters, leading underscore, lowercase', () => {
    const long = 'A' + 'b'.repeat(252);
    expect(normalizeSecretBindings(NS, [{ envName: long, source: { id: 's' } }, { envName: '_x', source: { id: 's' } }])).toHaveLength(2);
    expect(() => normalizeSecretBindings(NS, [{ envName: long + 'c', source: { id: 's' } }])).toThrow(ValidationError);
  });

  it.each(['', '9LIVES', 'WITH-DASH', 'WITH SPACE', 'DOT.TED', 'ÜMLAUT'])('C1 rejects the name %j', (envName) => {
    expect(() => normalizeSecretBindings(NS, [{ envName, source: { id: 's' } }])).toThrow(expect.objectContaining({ code: 'INVALID_BINDING_NAME' }));
  });

  it('C1 allows 64 bindings and refuses 65', () => {
    const make = (n: number) => Array.from({ length: n }, (_, i) => ({ envName: `V_${i}`, source: { id: 's' } }));
    expect(normalizeSecretBindings(NS, make(64))).toHaveLength(64);
    expect(() => normalizeSecretBindings(NS, make(65))).toThrow(expect.objectContaining({ code: 'TOO_MANY_BINDINGS' }));
  });

  it('C1 unknown delivery types and source kinds fail closed; duplicates are refused', () => {
    expect(() => normalizeSecretBindings(NS, [{ envName: 'A', source: { id: 's' }, delivery: { type: 'file' } }])).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_DELIVERY' }));
    expect(() => normalizeSecretBindings(NS, [{ envName: 'A', source: { kind: 'configMap', id: 's' } }])).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_SOURCE' }));
    expect(() => normalizeSecretBindings(NS, [{ envName: 'A', source: { id: 's' } }, { envName: 'A', source: { id: 't' } }])).toThrow(expect.objectContaining({ code: 'DUPLICATE_BINDING_NAME' }));
  });
});

describe('reserved names', () => {
  it.each(['PATH', 'HOME', 'path', 'OPENCLAW_GATEWAY_TOKEN', 'OPENCLAW_ANYTHING', 'KUBERNETES_SERVICE_HOST', 'NODE_OPTIONS', 'LD_PRELOAD', 'TS_AUTHKEY', 'NPM_CONFIG_CACHE'])(
    'C2 %s is reserved',
    (name) => {
      expect(reservedEnvName(name)).not.toBeNull();
      expect(() => normalizeSecretBindings(NS, [{ envName: name, source: { id: 's' } }])).toThrow(expect.objectContaining({ code: 'RESERVED_BINDING_NAME' }));
    },
  );

  it('C2 every model-credential name is reserved for harnessAuth, naming harnessAuth', () => {
    for (const name of Object.values(MODEL_CREDENTIAL_ENV)) expect(reservedEnvName(name)).toMatch(/harnessAuth/);
  });

  it('C2 ordinary channel names are free', () => {
    for (const name of ['TELEGRAM_BOT_TOKEN', 'SLACK_APP_TOKEN', 'DISCORD_TOKEN', 'MY_PATH']) expect(reservedEnvName(name)).toBeNull();
  });
});

describe('missingChannelBindings', () => {
  const values = {
    channels: {
      telegram: { enabled: true, botToken: ref('TELEGRAM_BOT_TOKEN') },
      slack: { appToken: ref('SLACK_APP_TOKEN'), accounts: [{ botToken: ref('SLACK_BOT_TOKEN') }] },
      discord: { enabled: false, token: ref('DISCORD_TOKEN') },
    },
    models: { apiKey: ref('NOT_A_CHANNEL') },
  };

  it('C6 lists every env SecretRef of an enabled channel without a binding, with its path', () => {
    expect(missingChannelBindings(values, ['TELEGRAM_BOT_TOKEN'])).toEqual([
      { channel: 'slack', path: 'channels.slack.appToken', envName: 'SLACK_APP_TOKEN' },
      { channel: 'slack', path: 'channels.slack.accounts[0].botToken', envName: 'SLACK_BOT_TOKEN' },
    ]);
  });

  it('C6 disabled channels need no binding, and refs outside channels are not channel credentials', () => {
    expect(missingChannelBindings(values, ['TELEGRAM_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN'])).toEqual([]);
  });

  it('C6 a channel counts as enabled unless enabled is false', () => {
    expect(missingChannelBindings({ channels: { x: { enabled: 'no', t: ref('X_TOKEN') } } }, [])).toHaveLength(1);
    expect(missingChannelBindings({ channels: { x: { enabled: false, t: ref('X_TOKEN') } } }, [])).toHaveLength(0);
  });

  it('C6 documents without channels need nothing', () => {
    expect(missingChannelBindings({}, [])).toEqual([]);
    expect(missingChannelBindings(null, [])).toEqual([]);
  });

  it('C6 a non-env source is not an env credential', () => {
    expect(missingChannelBindings({ channels: { x: { t: { source: 'file', id: 'X' } } } }, [])).toEqual([]);
  });
});

describe('validateConfigurationValues', () => {
  it('accepts references and plain settings', () => {
    expect(validateConfigurationValues({ channels: { telegram: { botToken: ref('T') } }, agents: { defaults: { model: 'openai/gpt' } } })).toBeNull();
  });

  it('refuses literal credentials under credential-like keys, naming the path', () => {
    const err = validateConfigurationValues({ channels: { slack: { accounts: [{ botToken: 'xoxb-123' }] } } });
    expect(err).toMatchObject({ code: 'LITERAL_CREDENTIAL', field: 'values.channels.slack.accounts[0].botToken' });
    expect(err!.message).not.toContain('xoxb-123');
  });

  it('refuses non-objects and documents over 256 KiB', () => {
    expect(validateConfigurationValues([])).toMatchObject({ code: 'INVALID_VALUES' });
    expect(validateConfigurationValues('x')).toMatchObject({ code: 'INVALID_VALUES' });
    expect(validateConfigurationValues({ a: 'x'.repeat(256 * 1024 - 8) })).toBeNull();
    expect(validateConfigurationValues({ a: 'x'.repeat(256 * 1024) })).toMatchObject({ code: 'VALUES_TOO_LARGE' });
  });
});

describe('agents', () => {
  it('A1 the provider decides the model-credential env name; unknown providers have none', () => {
    expect(modelCredentialEnv('openai')).toBe('OPENAI_API_KEY');
    expect(modelCredentialEnv('anthropic')).toBe('ANTHROPIC_API_KEY');
    expect(modelCredentialEnv('made-up')).toBeNull();
  });

  it('selfConfigure actions are the four categories only', () => {
    expect(validateSelfConfigure({ enabled: true, allowedActions: ['skills', 'config', 'workspaceFiles', 'envVars'] })).toBeNull();
    expect(validateSelfConfigure({ enabled: true, allowedActions: ['everything'] })).toMatchObject({ code: 'INVALID_SELF_CONFIGURE_ACTION' });
  });
});

describe('validateConfigurationValues: literal credentials (generated)', () => {
  // Credential words in every spelling a document may use, at any depth, under any value shape.
  const WORDS = ['token', 'secret', 'password', 'passwd', 'key', 'apiKey', 'privateKey', 'credential', 'credentials', 'private', 'clientSecret', 'botToken', 'signingKey', 'accessToken'];
  const split = (w: string) => w.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(' ');
  const spell = (parts: string[], style: number): string => {
    switch (style) {
      case 0: return parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
      case 1: return parts.join('_');
      case 2: return parts.join('-');
      case 3: return parts.join('_').toUpperCase();
      case 4: return parts.map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');
      default: return parts.join('.');
    }
  };
  const credentialKey = fc
    .tuple(fc.constantFrom(...WORDS), fc.constantFrom([], ['my'], ['slack', 'app'], ['openai']), fc.integer({ min: 0, max: 5 }))
    .map(([word, prefix, style]) => spell([...prefix, ...split(word)], style));
  const literal = fc.oneof(fc.string({ minLength: 1 }).filter((s) => s.isWellFormed() && !s.includes('\u0000')), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
  // A literal wrapped in arrays and non-reference objects, 0 to 3 levels deep.
  const wrapped = fc.tuple(literal, fc.array(fc.constantFrom('array', 'object', 'refLike'), { maxLength: 3 })).map(([value, wrappers]) =>
    wrappers.reduce<unknown>((inner, w) => (w === 'array' ? [inner] : w === 'object' ? { value: inner } : { source: 'env', id: 'X', extra: inner }), value),
  );
  const place = (key: string, value: unknown, depth: number) => {
    let doc: Record<string, unknown> = { [key]: value };
    for (let i = 0; i < depth; i++) doc = { [`level${i}`]: doc };
    return doc;
  };

  it('C6 P4 any literal (string, number, in arrays or objects) under a credential-like key, at any depth, is LITERAL_CREDENTIAL', () => {
    fc.assert(
      fc.property(credentialKey, wrapped, fc.integer({ min: 0, max: 5 }), (key, value, depth) => {
        const err = validateConfigurationValues(place(key, value, depth));
        expect(err, `${key}: ${JSON.stringify(value)}`).toMatchObject({ code: 'LITERAL_CREDENTIAL' });
        expect(err!.field).toMatch(/^values[.[]/);
      }),
      { numRuns: 500 },
    );
  });

  it('C6 P4 native references stay allowed under credential-like keys, alone, in arrays and in maps', () => {
    const reference = fc.record({ source: fc.constantFrom('env', 'file', 'exec'), provider: fc.constantFrom('default', 'vault'), id: fc.constantFrom('TELEGRAM_BOT_TOKEN', 'X') });
    const shape = fc.oneof(reference, fc.array(reference, { maxLength: 3 }), fc.dictionary(fc.constantFrom('openai', 'slack'), reference), fc.constant(null), fc.boolean(), fc.constant(''));
    fc.assert(
      fc.property(credentialKey, shape, fc.integer({ min: 0, max: 5 }), (key, value, depth) => {
        expect(validateConfigurationValues(place(key, value, depth)), `${key}: ${JSON.stringify(value)}`).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('C6 P4 the keys the outside test found are credential-like; ordinary settings are not', () => {
    for (const key of ['key', 'credentials', 'privateKey', 'private_key', 'PRIVATE-KEY', 'apikey', 'API_KEY', 'APIKey', 'bottoken', 'auth', 'Authorization'])
      expect(isCredentialKey(key), key).toBe(true);
    for (const key of ['model', 'enabled', 'keyId', 'monkey', 'turkey', 'name', 'accounts', 'channels', 'tokenizerModel', 'maxTokens', 'contextTokens'])
      expect(isCredentialKey(key), key).toBe(false);
    expect(validateConfigurationValues({ key: 'x' })).toMatchObject({ code: 'LITERAL_CREDENTIAL', field: 'values.key' });
    expect(validateConfigurationValues({ credentials: ['sk-1'] })).toMatchObject({ code: 'LITERAL_CREDENTIAL', field: 'values.credentials[0]' });
    expect(validateConfigurationValues({ privateKey: { pem: 'x' } })).toMatchObject({ code: 'LITERAL_CREDENTIAL', field: 'values.privateKey.pem' });
    expect(validateConfigurationValues({ token: 12345 })).toMatchObject({ code: 'LITERAL_CREDENTIAL' });
    expect(validateConfigurationValues({ agents: { defaults: { model: 'openai/gpt', maxTokensPerTurn: 5 } } })).toBeNull();
  });

  it('C6 P4 "auth" holding a literal is a credential; an object under it is a settings block judged key by key', () => {
    for (const key of ['auth', 'slackAuth', 'AUTH'])
      for (const value of ['sk-1', 42, ['sk-1'], [['sk-1']]]) expect(validateConfigurationValues({ [key]: value }), `${key}: ${JSON.stringify(value)}`).toMatchObject({ code: 'LITERAL_CREDENTIAL' });
    const gateway = (token: unknown) => ({ gateway: { auth: { mode: 'token', token }, bind: 'loopback' } });
    expect(validateConfigurationValues(gateway({ source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_TOKEN' }))).toBeNull();
    expect(validateConfigurationValues(gateway('literal'))).toMatchObject({ code: 'LITERAL_CREDENTIAL', field: 'values.gateway.auth.token' });
    expect(validateConfigurationValues({ auth: { profiles: { work: { password: ['x'] } } } })).toMatchObject({ field: 'values.auth.profiles.work.password[0]' });
  });

  it('C6 P4 the message names the path, never the literal', () => {
    fc.assert(
      fc.property(credentialKey, fc.string({ minLength: 8 }).filter((s) => s.isWellFormed() && !s.includes('\u0000') && !/^[\w$-]*$/.test(s)), (key, value) => {
        const err = validateConfigurationValues({ [key]: value });
        // The message is the one a fixed literal gets, so nothing of the given value can be in it (a
        // substring test would fail on a value that the path's own wording happens to contain).
        const reference = validateConfigurationValues({ [key]: 'canary-literal' })!.message;
        expect(reference).not.toContain('canary-literal');
        expect(err!.message).toBe(reference);
      }),
    );
  });
});

describe('validateConfigurationValues: text and depth PostgreSQL cannot store (P4)', () => {
  it.each([
    ['a NUL in a string', { a: 'x\u0000y' }, 'INVALID_UTF8', 'values.a'],
    ['a NUL in a key', { 'k\u0000': 1 }, 'INVALID_UTF8', 'values'],
    ['a lone high surrogate', { a: '\ud800' }, 'INVALID_UTF8', 'values.a'],
    ['a lone low surrogate deep in an array', { a: [{ b: ['ok', 'x\udc00'] }] }, 'INVALID_UTF8', 'values.a[0].b[1]'],
    ['a lone surrogate in a key', { n: { '\ud83d': true } }, 'INVALID_UTF8', 'values.n'],
    ['a NUL inside a reference', { token: { source: 'env', id: 'A\u0000' } }, 'INVALID_UTF8', 'values.token.id'],
  ])('P4 %s is INVALID_UTF8 naming the path', (_what, values, code, field) => {
    const err = validateConfigurationValues(values);
    expect(err).toMatchObject({ code, field });
    expect(err!.message.includes('\u0000') || !err!.message.isWellFormed()).toBe(false);
  });

  it('P4 nesting past 64 levels is VALUES_TOO_DEEP, for 65 up to 100,000 levels of objects and arrays, without recursion', () => {
    const deep = (n: number, array: boolean) => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = array ? [v] : { a: v };
      return { root: v };
    };
    expect(validateConfigurationValues(deep(MAX_VALUES_DEPTH - 1, false))).toBeNull();
    for (const n of [MAX_VALUES_DEPTH, 1000, 10_000, 100_000]) {
      for (const array of [false, true]) expect(validateConfigurationValues(deep(n, array)), `${n} ${array}`).toMatchObject({ code: 'VALUES_TOO_DEEP' });
    }
  });

  it('P4 generated documents: any string with NUL or a lone surrogate, anywhere, is refused; clean ones pass', () => {
    const bad = fc.tuple(fc.string(), fc.constantFrom('\u0000', '\ud800', '\udfff', '\udbff'), fc.string()).map(([a, b, c]) => a + b + c);
    const clean = fc.string().filter((s) => s.isWellFormed() && !s.includes('\u0000'));
    const plainKey = fc.constantFrom('a', 'b', 'model', 'list');
    const doc = (leaf: fc.Arbitrary<unknown>) =>
      fc.letrec((tie) => ({ node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(plainKey, tie('node'), { maxKeys: 3 })) })).node;
    fc.assert(fc.property(fc.dictionary(plainKey, doc(clean)), (d) => {
      expect(validateConfigurationValues(d)).toBeNull();
    }));
    fc.assert(
      fc.property(fc.dictionary(plainKey, doc(clean)), bad, fc.boolean(), (d, s, asKey) => {
        const values = { ...d, zz: asKey ? { [s]: 1 } : [s] };
        expect(validateConfigurationValues(values)).toMatchObject({ code: 'INVALID_UTF8' });
      }),
    );
  });
});
