import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfigurationValues } from './configuration.ts';
import { renderGateway, type InstanceObject } from './gateway-render.ts';
import { AGENT_ID_LABEL, INSTALLATION_ID_LABEL } from './kubernetes-names.ts';
import { decideSelfConfigAdmission, parseAdmissionReview } from './selfconfig-admission.ts';
import { parseSelfConfigSpec, planSelfConfig, type InstanceSnapshot, type SelfConfigSpec } from './selfconfig.ts';

// The measured faults of deep and credential-like input, each as a class: SC4's
// platform-injected names read from a rendered gateway (not from the code's list); one
// credential-name rule for env names and config keys; nesting around the limit; and SG5, the
// same refusals at admission, before anything is stored.

const ALL = ['skills', 'config', 'workspaceFiles', 'envVars'];
const base: SelfConfigSpec = { instanceRef: 'agent-1', addSkills: [], removeSkills: [], configPatch: null, addWorkspaceFiles: {}, removeWorkspaceFiles: [], addEnvVars: [], removeEnvVars: [] };
const live: InstanceSnapshot = { name: 'agent-1', namespace: 'ns', resourceVersion: '1', spec: { selfConfigure: { enabled: true, allowedActions: ALL } }, managedFields: [] };

/** Every env name a gateway Pod gets from the platform: rendered with every optional part on, spec.env empty. */
function renderedPlatformEnvNames(): string[] {
  const instance: InstanceObject = {
    metadata: { name: 'agent-1', namespace: 'ns', uid: 'u1', generation: 2, labels: { [INSTALLATION_ID_LABEL]: 'i', [AGENT_ID_LABEL]: '00000000-0000-4000-8000-0000000000aa' } },
    spec: {
      image: 'gw:1',
      skills: ['s'],
      config: { raw: { a: 1 } },
      workspace: { initialFiles: { 'AGENTS.md': 'x' } },
      modelAuth: { provider: 'anthropic', secretName: 'model-auth' },
      revision: { id: 'rev_1', number: 1 },
      selfConfigure: { enabled: true, allowedActions: ALL },
    },
  };
  const pod = (renderGateway(instance).deployment as { spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string }> }>; initContainers?: Array<{ env?: Array<{ name: string }> }> } } } }).spec.template.spec;
  return [...new Set([...(pod.initContainers ?? []), ...pod.containers].flatMap((c) => (c.env ?? []).map((e) => e.name)))];
}

function review(spec: unknown, operation = 'CREATE') {
  const parsed = parseAdmissionReview({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u',
      operation,
      namespace: 'ns',
      resource: { group: 'openclaw.rocks', version: 'v1alpha1', resource: 'openclawselfconfigs' },
      userInfo: { username: 'system:serviceaccount:ns:agent-1' },
      object: { metadata: { name: 'r' }, spec },
      oldObject: operation === 'UPDATE' ? { metadata: { name: 'r' }, spec: { instanceRef: 'agent-1' } } : null,
    },
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return decideSelfConfigAdmission(parsed.request, 'agent-1');
}

/** A configPatch of `levels` nested objects: {"a":{"a":…{"a":1}}}, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i++) node = { a: node };
  return node;
}

describe('SC4 every env name the platform injects is refused, read from a rendered gateway', () => {
  const names = renderedPlatformEnvNames();

  it('SC4 the rendering names the model-auth container env (MODEL_PROVIDER, MODEL_CREDENTIAL_FILE) among others', () => {
    expect(names).toEqual(expect.arrayContaining(['MODEL_PROVIDER', 'MODEL_CREDENTIAL_FILE', 'OPENCLAW_CONFIG_PATH']));
  });

  it('SC4 each rendered name, set or removed, fails naming it', () => {
    for (const name of names) {
      for (const spec of [{ ...base, addEnvVars: [{ name, value: '' }] }, { ...base, removeEnvVars: [name] }]) {
        const decision = planSelfConfig(spec, live, { secretBoundEnvNames: [] });
        expect(decision, name).toMatchObject({ phase: 'Failed', reason: 'ProtectedEnvVar' });
        expect((decision as { message: string }).message).toContain(JSON.stringify(name));
      }
    }
  });
});

describe('SC4 SG5 one credential-name rule for env names and config keys', () => {
  const word = fc.constantFrom('my', 'api', 'key', 'token', 'secret', 'password', 'auth', 'max', 'tokens', 'log', 'level', 'bot', 'private', 'id', 'signing', 'url', 'creds', 'keyid');
  const envName = fc
    .array(word, { minLength: 1, maxLength: 4 })
    .chain((words) => fc.constantFrom(words.join('_').toUpperCase(), words.join('_'), words[0]! + words.slice(1).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')));

  it('SC4 a literal env value is refused exactly when the same key in a configPatch is (generated)', () => {
    fc.assert(
      fc.property(envName, (name) => {
        const asEnv = parseSelfConfigSpec({ instanceRef: 'agent-1', addEnvVars: [{ name, value: 'sk-literal' }] });
        const asKey = validateConfigurationValues({ [name]: 'sk-literal' });
        const envRefused = 'problem' in asEnv && asEnv.problem.code === 'LITERAL_CREDENTIAL';
        expect(envRefused, name).toBe(asKey?.code === 'LITERAL_CREDENTIAL');
        if ('problem' in asEnv) expect(asEnv.problem.message).not.toContain('sk-literal');
      }),
      { numRuns: 500 },
    );
  });

  it('SC4 credential-like names x {literal, empty, secretKeyRef}: only the empty value is accepted; a reference is never an agent\'s', () => {
    for (const name of ['MY_API_KEY', 'GITHUB_TOKEN', 'DB_PASSWORD', 'SLACK_SIGNING_SECRET', 'privateKey', 'X_AUTH', 'botToken', 'AWS_SECRET_ACCESS_KEY']) {
      const literal = parseSelfConfigSpec({ instanceRef: 'agent-1', addEnvVars: [{ name, value: 'sk-123' }] });
      expect(literal, name).toMatchObject({ problem: { code: 'LITERAL_CREDENTIAL', field: 'addEnvVars[0].value' } });
      expect(review({ instanceRef: 'agent-1', addEnvVars: [{ name, value: 'sk-123' }] }), name).toMatchObject({ allowed: false, code: 400 });
      expect(parseSelfConfigSpec({ instanceRef: 'agent-1', addEnvVars: [{ name, value: '' }] }), name).toHaveProperty('spec');
      const ref = parseSelfConfigSpec({ instanceRef: 'agent-1', addEnvVars: [{ name, valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }] });
      expect(ref, name).toMatchObject({ problem: { code: 'LITERAL_VALUES_ONLY' } });
    }
    for (const name of ['LOG_LEVEL', 'MAX_TOKENS', 'MY_CUSTOM_VAR', 'KEY_ID']) {
      expect(parseSelfConfigSpec({ instanceRef: 'agent-1', addEnvVars: [{ name, value: 'v' }] }), name).toHaveProperty('spec');
    }
  });
});

describe('SG5 nesting around the limit', () => {
  it('SG5 a configPatch of n levels is accepted up to 64 and refused above, naming the limit, at admission and in the controller\'s parse; no depth throws', () => {
    for (const levels of [1, 63, 64, 65, 66, 101, 127, 128, 129, 1_000, 20_000, 200_000]) {
      const spec = { instanceRef: 'agent-1', configPatch: nested(levels) };
      const parsed = parseSelfConfigSpec(spec);
      const decision = review(spec);
      if (levels <= 64) {
        expect(parsed, String(levels)).toHaveProperty('spec');
        expect(decision, String(levels)).toEqual({ allowed: true });
      } else {
        expect(parsed, String(levels)).toMatchObject({ problem: { code: 'VALUES_TOO_DEEP' } });
        expect((parsed as { problem: { message: string } }).problem.message).toContain('64');
        expect(decision, String(levels)).toMatchObject({ allowed: false, code: 400 });
        expect((decision as { message: string }).message).toContain('deeper than 64');
      }
    }
  });

  it('SG5 an update is judged like a create: a spec changed to one that must never be stored is refused', () => {
    expect(review({ instanceRef: 'agent-1', addEnvVars: [{ name: 'MY_API_KEY', value: 'sk-1' }] }, 'UPDATE')).toMatchObject({ allowed: false, code: 400 });
    expect(review({ instanceRef: 'agent-1', addSkills: ['x'] }, 'UPDATE')).toEqual({ allowed: true });
  });

  it('SG5 too many items are refused at admission naming the limit', () => {
    const skills = Array.from({ length: 11 }, (_, i) => `s${i}`);
    const decision = review({ instanceRef: 'agent-1', addSkills: skills });
    expect(decision).toMatchObject({ allowed: false, code: 400 });
    expect((decision as { message: string }).message).toContain('at most 10');
  });
});
