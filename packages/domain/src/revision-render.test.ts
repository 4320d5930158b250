import { describe, expect, it } from 'vitest';
import { AGENT_ID_LABEL, gatewayConfigMapName, harnessSecretName, INSTALLATION_ID_LABEL } from './kubernetes-names.ts';
import { freezeRevision, type FrozenRevision } from './revision.ts';
import {
  GATEWAY_COMPONENT,
  GATEWAY_COMPONENT_LABEL,
  MODEL_AUTH_CONTAINER,
  renderConfigMap,
  renderGatewayDeployment,
  renderInstance,
  renderModelAuthSecret,
  renderSelfConfigRoleBinding,
  renderServiceAccount,
  type RenderContext,
} from './revision-render.ts';

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

describe('render', () => {
  it('W4 the gateway container alone gets secretKeyRef env, exactly the bound names, key value, optional false', () => {
    const d: Any = renderGatewayDeployment(revision(), context);
    const [gateway, modelAuth] = d.spec.template.spec.containers;
    expect(gateway.name).toBe('gateway');
    expect(gateway.env.filter((e: Any) => e.valueFrom)).toEqual([
      { name: 'GITHUB_TOKEN', valueFrom: { secretKeyRef: { name: 'occ-gh', key: 'value', optional: false } } },
      { name: 'TELEGRAM_TOKEN', valueFrom: { secretKeyRef: { name: 'occ-tele', key: 'value', optional: false } } },
    ]);
    expect(modelAuth.name).toBe(MODEL_AUTH_CONTAINER);
    expect(JSON.stringify(modelAuth)).not.toContain('secretKeyRef');
    // No container reads the source of the model key directly: only the revision-owned copy is mounted.
    expect(JSON.stringify(d)).not.toContain('occ-model');
    expect(d.metadata.labels[GATEWAY_COMPONENT_LABEL]).toBe(GATEWAY_COMPONENT);
    expect(d.spec.selector.matchLabels[AGENT_ID_LABEL]).toBe('00000000-0000-4000-8000-0000000000aa');
    expect(d.spec.template.spec.volumes).toContainEqual({ name: 'config', configMap: { name: gatewayConfigMapName(agentId, 5) } });
  });

  it('D5 the model-auth Secret is the revision\'s own, mounted only into the model-auth container', () => {
    const d: Any = renderGatewayDeployment(revision(), context);
    const mountsOf = (c: Any) => (c.volumeMounts ?? []).map((m: Any) => m.name);
    const [gateway, modelAuth] = d.spec.template.spec.containers;
    expect(mountsOf(modelAuth)).toEqual(['model-auth']);
    expect(mountsOf(gateway)).not.toContain('model-auth');
    expect(d.spec.template.spec.volumes).toContainEqual({ name: 'model-auth', secret: { secretName: harnessSecretName(agentId, 5), optional: false } });
    const s: Any = renderModelAuthSecret(revision(), context, 'sk-ü-canary');
    expect(s.metadata.name).toBe(harnessSecretName(agentId, 5));
    expect(Buffer.from(s.data.value, 'base64').toString('utf8')).toBe('sk-ü-canary');
    expect(s.immutable).toBe(true);
  });

  it('D5 without harnessAuth there is no model-auth container, volume or Secret', () => {
    const d: Any = renderGatewayDeployment(revision({ harness: false }), context);
    expect(d.spec.template.spec.containers.map((c: Any) => c.name)).toEqual(['gateway']);
    expect(JSON.stringify(d)).not.toContain('model-auth');
    expect(() => renderModelAuthSecret(revision({ harness: false }), context, 'x')).toThrow();
  });

  it('W4 the OpenClawInstance carries the bindings as secretKeyRef env, skills, workspace files and config.raw from the values', () => {
    const i: Any = renderInstance(revision(), context);
    expect(i).toMatchObject({ apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'agent-00000000-0000-4000-8000-0000000000aa', namespace: 'occ-ns' } });
    expect(i.spec.skills).toEqual(['github', 'weather']);
    expect(i.spec.workspace.initialFiles).toEqual({ 'AGENTS.md': '# be kind' });
    expect(i.spec.config.raw).toEqual({ agents: values.agents, channels: values.channels });
    expect(i.spec.model).toBe('openai/gpt-6-astra');
    expect(i.spec.env).toEqual([
      { name: 'GITHUB_TOKEN', valueFrom: { secretKeyRef: { name: 'occ-gh', key: 'value', optional: false } } },
      { name: 'TELEGRAM_TOKEN', valueFrom: { secretKeyRef: { name: 'occ-tele', key: 'value', optional: false } } },
    ]);
    expect(i.metadata.labels[INSTALLATION_ID_LABEL]).toBe('inst-1');
  });

  it('W4 the ConfigMap is immutable, named per revision, and holds the native document with references only', () => {
    const c: Any = renderConfigMap(revision(), context);
    expect(c.metadata.name).toBe(gatewayConfigMapName(agentId, 5));
    expect(c.immutable).toBe(true);
    expect(JSON.parse(c.data['openclaw.json'])).toEqual(values);
    expect(c.data['openclaw.json']).not.toContain('occ-tele');
  });

  it('W4 the ServiceAccount mounts no token unless selfConfigure is enabled, and shares the instance name (SC5)', () => {
    const off: Any = renderServiceAccount(revision(), context);
    const on: Any = renderServiceAccount(revision({ selfConfigure: true }), context);
    expect(off.automountServiceAccountToken).toBe(false);
    expect(on.automountServiceAccountToken).toBe(true);
    expect(off.metadata.name).toBe((renderInstance(revision(), context) as Any).metadata.name);
    expect((renderGatewayDeployment(revision(), context) as Any).spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it('SC5 with selfConfigure enabled the agent\'s ServiceAccount, and only it, is bound to occ-selfconfig-agent in its own namespace; disabled, no binding', () => {
    expect(renderSelfConfigRoleBinding(revision(), context)).toBeNull();
    const binding: Any = renderSelfConfigRoleBinding(revision({ selfConfigure: true }), context);
    const account: Any = renderServiceAccount(revision({ selfConfigure: true }), context);
    expect(binding.metadata).toMatchObject({ namespace: context.k8sNamespace, labels: account.metadata.labels });
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-selfconfig-agent' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account.metadata.name, namespace: context.k8sNamespace }]);
  });

  it('W3 a secret missing from the run\'s context is a bug, never a guessed name', () => {
    expect(() => renderGatewayDeployment(revision(), { ...context, secretNames: new Map() })).toThrow(/no Secret for/);
  });
});
