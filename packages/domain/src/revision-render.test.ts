import { describe, expect, it } from 'vitest';
import { harnessSecretName, INSTALLATION_ID_LABEL } from './kubernetes-names.ts';
import { freezeRevision, type FrozenRevision } from './revision.ts';
import { instanceBody, renderModelAuthSecret, type RenderContext } from './revision-render.ts';

const ns = 'ns_00000000-0000-4000-8000-000000000001';
const agentId = 'agt_00000000-0000-4000-8000-0000000000aa';
const sec = (n: number) => `sec_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const values = {
  skills: ['github', 'weather', 'github'],
  workspaceFiles: { 'AGENTS.md': '# be kind' },
  agents: { defaults: { model: 'openai/gpt-6-astra' } },
  channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } },
};

function revision(overrides: { harness?: boolean; selfConfigure?: boolean } = {}): FrozenRevision {
  return freezeRevision({
    agent: {
      id: agentId,
      namespaceId: ns,
      servicePrincipalId: 'spn_00000000-0000-4000-8000-000000000009',
      harnessProvider: overrides.harness === false ? null : 'openai',
      harnessSecretId: overrides.harness === false ? null : sec(3),
      selfConfigure: { enabled: overrides.selfConfigure ?? false, allowedActions: overrides.selfConfigure ? ['skills'] : [] },
    },
    configuration: {
      id: 'cfg_00000000-0000-4000-8000-000000000005',
      namespaceId: ns,
      generation: 2,
      values,
      bindings: [
        { envName: 'TELEGRAM_TOKEN', secretId: sec(1), deliveryType: 'env' },
        { envName: 'GITHUB_TOKEN', secretId: sec(2), deliveryType: 'env' },
      ],
    },
    secretVersions: new Map([
      [sec(1), 1],
      [sec(2), 1],
      [sec(3), 1],
    ]),
    secretDriverId: 'kubernetes-secret/v1',
    previousNumber: 4,
    createdById: 'prn_00000000-0000-4000-8000-000000000001',
  });
}

const context: RenderContext = {
  installationId: 'inst-1',
  k8sNamespace: 'occ-ns',
  revisionId: 'rev_00000000-0000-4000-8000-000000000077',
  secretNames: new Map([
    [sec(1), 'occ-tele'],
    [sec(2), 'occ-gh'],
    [sec(3), 'occ-model'],
  ]),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered objects are loose by design
type Any = any;

describe('a revision\'s fields on the instance (RC1, W4)', () => {
  it('W4 RC1 the OpenClawInstance carries the bindings as secretKeyRef env, skills, workspace files and config keys from the values, and names the revision and its model-auth Secret', () => {
    const i: Any = instanceBody(revision(), context);
    expect(i).toMatchObject({ apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'agent-00000000-0000-4000-8000-0000000000aa', namespace: 'occ-ns' } });
    expect(i.spec.skills).toEqual(['github', 'weather']);
    expect(i.spec.workspace.initialFiles).toEqual({ 'AGENTS.md': '# be kind' });
    expect(i.spec.config.raw).toEqual({ agents: values.agents, channels: values.channels });
    expect(i.spec.model).toBe('openai/gpt-6-astra');
    expect(i.spec.env).toEqual([
      { name: 'GITHUB_TOKEN', valueFrom: { secretKeyRef: { name: 'occ-gh', key: 'value', optional: false } } },
      { name: 'TELEGRAM_TOKEN', valueFrom: { secretKeyRef: { name: 'occ-tele', key: 'value', optional: false } } },
    ]);
    expect(i.spec.revision).toEqual({ id: context.revisionId, number: 5 });
    expect(i.spec.replicas).toBe(1);
    expect(i.spec.modelAuth).toEqual({ provider: 'openai', secretName: harnessSecretName(agentId, 5) });
    expect(i.metadata.labels[INSTALLATION_ID_LABEL]).toBe('inst-1');
    // The model key's source is never named on the instance: only the revision-owned copy is.
    expect(JSON.stringify(i)).not.toContain('occ-model');
  });

  it('RC3 a revision sends only what its configuration sets: no empty list, map or document a manager would then own', () => {
    const bare = freezeRevision({
      agent: { id: agentId, namespaceId: ns, servicePrincipalId: 'spn_00000000-0000-4000-8000-000000000009', harnessProvider: null, harnessSecretId: null, selfConfigure: { enabled: false, allowedActions: [] } },
      configuration: null,
      secretVersions: new Map(),
      secretDriverId: 'kubernetes-secret/v1',
      previousNumber: 0,
      createdById: 'prn_00000000-0000-4000-8000-000000000001',
    });
    const i: Any = instanceBody(bare, context);
    expect(Object.keys(i.spec).sort()).toEqual(['image', 'replicas', 'revision', 'selfConfigure']);
    expect(i.spec.selfConfigure).toEqual({ enabled: false });
  });

  it('D5 the model-auth Secret is the revision\'s own, immutable, and holds the value', () => {
    const s: Any = renderModelAuthSecret(revision(), context, 'sk-ü-canary');
    expect(s.metadata.name).toBe(harnessSecretName(agentId, 5));
    expect(Buffer.from(s.data.value, 'base64').toString('utf8')).toBe('sk-ü-canary');
    expect(s.immutable).toBe(true);
    expect(() => renderModelAuthSecret(revision({ harness: false }), context, 'x')).toThrow();
  });

  it('W3 a secret missing from the run\'s context is a bug, never a guessed name', () => {
    expect(() => instanceBody(revision(), { ...context, secretNames: new Map() })).toThrow(/no Secret for/);
  });
});
