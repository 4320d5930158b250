import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import {
  MODEL_CREDENTIAL_ENV,
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
