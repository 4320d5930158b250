import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash, sha256Hex } from './content-hash.ts';
import { fieldElement, keyElement, pathOf, toFieldsV1 } from './fieldsv1.ts';
import {
  GATEWAY_COMPONENT,
  GATEWAY_COMPONENT_LABEL,
  INSTANCE_GENERATION_ANNOTATION,
  isRenderable,
  MODEL_AUTH_CONTAINER,
  PLATFORM_ENV_NAMES,
  renderGateway,
  TEMPLATE_HASH_ANNOTATION,
  workspaceKey,
  type InstanceObject,
} from './gateway-render.ts';
import { reservedEnvName } from './configuration.ts';
import { AGENT_ID_LABEL, FIELD_MANAGER, INSTALLATION_ID_LABEL, MANAGED_BY, MANAGED_BY_LABEL, NAMESPACE_ID_LABEL } from './kubernetes-names.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered objects are loose by design
type Any = any;

const uuid = '00000000-0000-4000-8000-0000000000aa';
const labels = { [MANAGED_BY_LABEL]: MANAGED_BY, [INSTALLATION_ID_LABEL]: 'inst-1', [NAMESPACE_ID_LABEL]: '00000000-0000-4000-8000-000000000001', [AGENT_ID_LABEL]: uuid };

/** A managedFields entry owning these env items' parts ('value' or 'valueFrom'). */
function envEntry(manager: string, operation: 'Apply' | 'Update', parts: Array<[string, 'value' | 'valueFrom']>) {
  const set = new Set<string>();
  for (const [name, part] of parts) {
    const item = [fieldElement('spec'), fieldElement('env'), keyElement({ name }, ['name'])];
    set.add(pathOf([...item, fieldElement('name')]));
    set.add(pathOf(part === 'value' ? [...item, fieldElement('value')] : [...item, fieldElement('valueFrom'), fieldElement('secretKeyRef')]));
  }
  return { manager, operation, apiVersion: 'openclaw.rocks/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(set) };
}

function instance(spec: Record<string, unknown>, managedFields: unknown[] = [], generation = 3): InstanceObject {
  return { metadata: { name: `agent-${uuid}`, namespace: 'occ-ns', uid: 'uid-1', generation, labels, managedFields }, spec };
}

const ref = (name: string) => ({ secretKeyRef: { name, key: 'value', optional: false } });

describe('content hashes', () => {
  it('RC2 sha256Hex is SHA-256: equal to node:crypto for any text (generated)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
      { numRuns: 300 },
    );
    for (const n of [55, 56, 63, 64, 65, 119, 120]) expect(sha256Hex('a'.repeat(n))).toBe(createHash('sha256').update('a'.repeat(n)).digest('hex'));
  });

  it('RC2 canonical JSON ignores key order at every level and nothing else (generated)', () => {
    const shuffle = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(shuffle);
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value as object).reverse().map(([k, v]) => [k, shuffle(v)]));
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(shuffle(value))).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('the gateway rendered from the instance alone (RC2)', () => {
  const spec = {
    image: 'ghcr.io/openclaw/openclaw:1',
    replicas: 1,
    revision: { id: 'rev_1', number: 4 },
    skills: ['weather', 'github'],
    env: [{ name: 'GITHUB_TOKEN', valueFrom: ref('occ-gh') }, { name: 'MY_FLAG', value: 'on' }],
    workspace: { initialFiles: { 'AGENTS.md': '# be kind', 'notes/today.md': 'hi' } },
    config: { raw: { agents: { defaults: { model: 'openai/gpt-6-astra' } }, tools: { x: 1 } } },
    selfConfigure: { enabled: true, allowedActions: ['skills'] },
    modelAuth: { provider: 'openai', secretName: `model-auth-${uuid}-4` },
  };
  const admitted = [envEntry(FIELD_MANAGER, 'Apply', [['GITHUB_TOKEN', 'valueFrom']]), envEntry('openclaw-selfconfig', 'Apply', [['MY_FLAG', 'value']])];

  it('RC2 every child is named from the agent, labelled as the instance, and owned by it (controller)', () => {
    const r: Any = renderGateway(instance(spec, admitted));
    for (const child of [r.configMap, r.deployment, r.serviceAccount, r.roleBinding]) {
      expect(child.metadata.namespace).toBe('occ-ns');
      expect(child.metadata.labels).toMatchObject(labels);
      expect(child.metadata.ownerReferences).toEqual([{ apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', name: `agent-${uuid}`, uid: 'uid-1', controller: true, blockOwnerDeletion: true }]);
    }
    expect(r.deployment.metadata.name).toBe(`gateway-${uuid}`);
    expect(r.serviceAccount.metadata.name).toBe(`agent-${uuid}`);
    expect(r.deployment.metadata.labels[GATEWAY_COMPONENT_LABEL]).toBe(GATEWAY_COMPONENT);
    expect(r.deployment.metadata.annotations[INSTANCE_GENERATION_ANNOTATION]).toBe('3');
    expect(r.deployment.spec.template.metadata.annotations['openclaw.rocks/revision-id']).toBe('rev_1');
  });

  it('RC2 the ConfigMap is immutable and named by its content: key order does not change it, any content change does', () => {
    const r: Any = renderGateway(instance(spec, admitted));
    expect(r.configMap.immutable).toBe(true);
    expect(r.configMap.metadata.name).toBe(`gateway-config-${uuid}-${contentHash(r.configMap.data)}`);
    expect(JSON.parse(r.configMap.data['openclaw.json'])).toEqual(spec.config.raw);
    expect(JSON.parse(r.configMap.data['skills.json'])).toEqual(['github', 'weather']);
    const reordered: Any = renderGateway(instance({ ...spec, skills: ['github', 'weather'], config: { raw: { tools: { x: 1 }, agents: { defaults: { model: 'openai/gpt-6-astra' } } } } }, admitted));
    expect(reordered.configMapName).toBe(r.configMapName);
    for (const change of [{ skills: ['weather'] }, { config: { raw: { tools: { x: 2 } } } }, { workspace: { initialFiles: { 'AGENTS.md': '# be kinder' } } }]) {
      expect(renderGateway(instance({ ...spec, ...change }, admitted)).configMapName).not.toBe(r.configMapName);
    }
    // The workspace files are mounted at their paths, from keys a ConfigMap accepts.
    const workspace = r.deployment.spec.template.spec.volumes.find((v: Any) => v.name === 'workspace');
    expect(workspace.configMap.items.map((i: Any) => i.path).sort()).toEqual(['AGENTS.md', 'notes/today.md']);
    for (const item of workspace.configMap.items) expect(item.key).toMatch(/^[-._a-zA-Z0-9]+$/);
  });

  it('SC10 RC2 a spec change that changes what runs changes the pod template (Pods roll); a generation alone does not', () => {
    const a: Any = renderGateway(instance(spec, admitted, 3));
    const b: Any = renderGateway(instance(spec, admitted, 4));
    expect(b.templateHash).toBe(a.templateHash);
    expect(b.deployment.metadata.annotations[INSTANCE_GENERATION_ANNOTATION]).toBe('4');
    const c: Any = renderGateway(instance({ ...spec, skills: ['weather'] }, admitted, 5));
    expect(c.templateHash).not.toBe(a.templateHash);
    expect(c.deployment.spec.template.metadata.annotations[TEMPLATE_HASH_ANNOTATION]).toBe(c.templateHash);
  });

  it('D5 W4 the model-auth Secret named in the spec is mounted into the model-auth container alone; the gateway gets the admitted references and literals', () => {
    const r: Any = renderGateway(instance(spec, admitted));
    const [gateway, modelAuth] = r.deployment.spec.template.spec.containers;
    expect(modelAuth.name).toBe(MODEL_AUTH_CONTAINER);
    expect(modelAuth.volumeMounts.map((m: Any) => m.name)).toEqual(['model-auth']);
    expect(gateway.volumeMounts.map((m: Any) => m.name)).not.toContain('model-auth');
    expect(r.deployment.spec.template.spec.volumes).toContainEqual({ name: 'model-auth', secret: { secretName: `model-auth-${uuid}-4`, optional: false } });
    expect(gateway.env.filter((e: Any) => !PLATFORM_ENV_NAMES.includes(e.name))).toEqual([
      { name: 'GITHUB_TOKEN', valueFrom: ref('occ-gh') },
      { name: 'MY_FLAG', value: 'on' },
    ]);
    expect(JSON.stringify(modelAuth)).not.toContain('secretKeyRef');
    const none: Any = renderGateway(instance({ ...spec, modelAuth: undefined }, admitted));
    expect(none.deployment.spec.template.spec.containers.map((c: Any) => c.name)).toEqual(['gateway']);
  });

  it('D2 RC4 a secret reference only occ-controller admitted is delivered: one written by anyone else is left out and reported (matrix)', () => {
    const writers: Array<[string, 'Apply' | 'Update']> = [
      ['kubectl-patch', 'Update'],
      ['kubectl', 'Apply'],
      ['openclaw-selfconfig', 'Apply'],
      ['kubectl-edit', 'Update'],
      [FIELD_MANAGER, 'Update'],
      [FIELD_MANAGER, 'Apply'],
    ];
    for (const [manager, operation] of writers) {
      const r = renderGateway(instance({ ...spec, env: [{ name: 'STOLEN', valueFrom: ref('someone-elses') }] }, [envEntry(manager, operation, [['STOLEN', 'valueFrom']])]));
      const env = (r.deployment as Any).spec.template.spec.containers[0].env.map((e: Any) => e.name);
      if (manager === FIELD_MANAGER) {
        expect(env, `${manager} ${operation}`).toContain('STOLEN');
        expect(r.ignoredEnv).toEqual([]);
      } else {
        expect(env, `${manager} ${operation}`).not.toContain('STOLEN');
        expect(r.ignoredEnv).toEqual([{ name: 'STOLEN', reason: 'unadmitted-reference', owners: [{ manager, operation }] }]);
      }
    }
    // No owner recorded at all (managedFields stripped) is not an admission either.
    expect(renderGateway(instance({ ...spec, env: [{ name: 'STOLEN', valueFrom: ref('x') }] }, [])).ignoredEnv).toHaveLength(1);
  });

  it('RC3 an env item holding both a literal and a reference delivers the reference alone, and says so', () => {
    const both = [envEntry(FIELD_MANAGER, 'Apply', [['X', 'valueFrom']]), envEntry('openclaw-selfconfig', 'Apply', [['X', 'value']])];
    const r = renderGateway(instance({ ...spec, env: [{ name: 'X', value: 'lit', valueFrom: ref('occ-x') }] }, both));
    const x = (r.deployment as Any).spec.template.spec.containers[0].env.filter((e: Any) => e.name === 'X');
    expect(x).toEqual([{ name: 'X', valueFrom: ref('occ-x') }]);
    expect(r.ignoredEnv.map((i) => i.reason)).toEqual(['value-and-reference']);
  });

  it('SC5 W6 selfConfigure decides the token and the SelfConfig RoleBinding; spec.replicas the replicas', () => {
    const on: Any = renderGateway(instance(spec, admitted));
    expect(on.serviceAccount.automountServiceAccountToken).toBe(true);
    expect(on.roleBinding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-selfconfig-agent' });
    expect(on.roleBinding.subjects).toEqual([{ kind: 'ServiceAccount', name: `agent-${uuid}`, namespace: 'occ-ns' }]);
    const off: Any = renderGateway(instance({ ...spec, selfConfigure: { enabled: false }, replicas: 0 }, admitted));
    expect(off.roleBinding).toBeNull();
    expect(off.serviceAccount.automountServiceAccountToken).toBe(false);
    expect(off.deployment.spec.replicas).toBe(0);
    expect(off.deployment.spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it('C2 SC4 every env name the platform renders into the gateway is reserved (a binding or an agent can never set it)', () => {
    const r: Any = renderGateway(instance(spec, admitted));
    const names = r.deployment.spec.template.spec.containers.flatMap((c: Any) => c.env.map((e: Any) => e.name));
    for (const name of [...PLATFORM_ENV_NAMES]) expect(names).toContain(name);
    for (const name of PLATFORM_ENV_NAMES) expect(reservedEnvName(name), name).not.toBeNull();
  });
});

describe('isRenderable (RC2: the reconciler renders its own installation\'s instances only)', () => {
  const base = { name: 'agent-x', namespace: 'ns', uid: 'u', generation: 1 };
  it.each([
    [{ [INSTALLATION_ID_LABEL]: 'inst-1', [AGENT_ID_LABEL]: 'a1' }, true],
    [{ [INSTALLATION_ID_LABEL]: 'inst-2', [AGENT_ID_LABEL]: 'a1' }, false],
    [{ [AGENT_ID_LABEL]: 'a1' }, false],
    [{ [INSTALLATION_ID_LABEL]: 'inst-1' }, false],
    [{ [INSTALLATION_ID_LABEL]: 'inst-1', [AGENT_ID_LABEL]: '' }, false],
    [undefined, false],
  ])('RC2 labels %j: rendered by installation inst-1 is %s', (labels, expected) => {
    expect(isRenderable({ metadata: { ...base, ...(labels ? { labels } : {}) }, spec: {} }, 'inst-1')).toBe(expected);
  });
});


describe('RC2 the rendering, exact answers (written out)', () => {
  const gatewayEnv = (r: ReturnType<typeof renderGateway>): Any[] => (r.deployment as Any).spec.template.spec.containers.find((c: Any) => c.name === 'gateway').env;
  const specEnvOf = (r: ReturnType<typeof renderGateway>) => gatewayEnv(r).filter((e) => !String(e.name).startsWith('OPENCLAW_'));

  it('RC2 each child is the kind and version Kubernetes expects; the ServiceAccount mounts a token only with selfConfigure on', () => {
    const off = renderGateway(instance({ image: 'img' }));
    expect([off.configMap.apiVersion, off.configMap.kind, off.configMap.immutable]).toEqual(['v1', 'ConfigMap', true]);
    expect([off.serviceAccount.apiVersion, off.serviceAccount.kind, off.serviceAccount.automountServiceAccountToken]).toEqual(['v1', 'ServiceAccount', false]);
    expect(off.roleBinding).toBeNull();
    for (const selfConfigure of [{}, { enabled: 'yes' }, { enabled: false }]) expect(renderGateway(instance({ selfConfigure })).serviceAccount.automountServiceAccountToken).toBe(false);
    const on = renderGateway(instance({ selfConfigure: { enabled: true } }));
    expect(on.serviceAccount.automountServiceAccountToken).toBe(true);
    expect([on.roleBinding!.apiVersion, on.roleBinding!.kind]).toEqual(['rbac.authorization.k8s.io/v1', 'RoleBinding']);
  });

  it('RC2 skills: strings only, sorted; workspace files: strings only, by path, each under its hashed key; the default image', () => {
    const r = renderGateway(instance({ skills: ['pack:b', 3, 'npm:a', null], workspace: { initialFiles: { 'z/last.md': 'Z', 'a/first.md': 'A', 'bad.md': 7 } } }));
    const data = r.configMap.data as Record<string, string>;
    expect(JSON.parse(data['skills.json']!)).toEqual(['npm:a', 'pack:b']);
    const workspaceKeys = Object.keys(data).filter((k) => k.startsWith('workspace-'));
    expect(workspaceKeys).toEqual([`workspace-${sha256Hex('a/first.md').slice(0, 20)}`, `workspace-${sha256Hex('z/last.md').slice(0, 20)}`]);
    expect(workspaceKeys.map((k) => data[k])).toEqual(['A', 'Z']);
    const gateway = (r.deployment as Any).spec.template.spec.containers.find((c: Any) => c.name === 'gateway');
    expect(gateway.image).toBe('ghcr.io/openclaw/openclaw:latest');
    expect(renderGateway(instance({ image: 42 })).deployment).toMatchObject({ spec: { template: { spec: { containers: expect.arrayContaining([expect.objectContaining({ name: 'gateway', image: 'ghcr.io/openclaw/openclaw:latest' })]) } } } });
  });

  it('RC3 spec.env: an admitted reference is delivered with the default key and optional only when said; a reference that is not one, a nameless or a platform entry is not', () => {
    const admitted = envEntry(FIELD_MANAGER, 'Apply', [
      ['DEFAULTS', 'valueFrom'],
      ['OPTIONAL', 'valueFrom'],
      ['BROKEN', 'valueFrom'],
    ]);
    const r = renderGateway(
      instance(
        {
          env: [
            { name: 'DEFAULTS', valueFrom: { secretKeyRef: { name: 's1' } } },
            { name: 'OPTIONAL', valueFrom: { secretKeyRef: { name: 's2', key: 'k', optional: true } } },
            { name: 'BROKEN', valueFrom: 'not an object' },
            { value: 'nameless' },
            { name: 'OPENCLAW_NAMESPACE', value: 'spoofed' },
            { name: 'PLAIN', value: 'v' },
            { name: 'NUMBER', value: 7 },
          ],
        },
        [admitted],
      ),
    );
    expect(specEnvOf(r)).toEqual([
      { name: 'DEFAULTS', valueFrom: { secretKeyRef: { name: 's1', key: 'value', optional: false } } },
      { name: 'OPTIONAL', valueFrom: { secretKeyRef: { name: 's2', key: 'k', optional: true } } },
      { name: 'PLAIN', value: 'v' },
    ]);
    expect(r.ignoredEnv).toEqual([{ name: 'BROKEN', reason: 'unadmitted-reference', owners: [{ manager: FIELD_MANAGER, operation: 'Apply' }] }]);
    expect(gatewayEnv(r).filter((e) => e.name === 'OPENCLAW_NAMESPACE')).toEqual([{ name: 'OPENCLAW_NAMESPACE', value: 'occ-ns' }]);
  });

  it('RC2 the children carry only the labels of ours the instance has', () => {
    const partial: InstanceObject = { metadata: { name: `agent-${uuid}`, namespace: 'occ-ns', uid: 'u', labels: { [AGENT_ID_LABEL]: uuid, other: 'x' } }, spec: {} };
    expect((renderGateway(partial).configMap as Any).metadata.labels).toEqual({ [AGENT_ID_LABEL]: uuid });
  });
});

describe('the gateway rendering, written out (RC2, D5, W4, SC5, E10)', () => {
  it('RC2 D5 E10 an instance with every part on renders this Deployment, to the last field', () => {
    const admitted = envEntry(FIELD_MANAGER, 'Apply', [['MODEL_KEY', 'valueFrom']]);
    const full: InstanceObject = {
      metadata: { name: `agent-${uuid}`, namespace: 'occ-ns', uid: 'uid-1', generation: 4, labels: { ...labels, other: 'x' }, managedFields: [admitted] },
      spec: {
        image: 'ghcr.io/openclaw/openclaw:1.2',
        replicas: 2,
        resources: { limits: { memory: '1Gi' } },
        revision: { id: 'rev_1', number: 7 },
        modelAuth: { provider: 'anthropic', secretName: 'model-auth-7' },
        selfConfigure: { enabled: true },
        skills: ['b', 'a'],
        workspace: { initialFiles: { 'notes/b.md': 'B', 'a.md': 'A' } },
        config: { raw: { z: 1 } },
        env: [{ name: 'MODEL_KEY', valueFrom: { secretKeyRef: { name: 'sec', key: 'value' } } }],
      },
    };
    const rendered: Any = renderGateway(full, { images: { modelAuth: 'auth:1' } });
    const ours = { ...labels, [GATEWAY_COMPONENT_LABEL]: GATEWAY_COMPONENT };
    const restricted = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
    const configMap = `gateway-config-${uuid}-${rendered.configMap.metadata.name.split('-').at(-1)}`;
    expect(rendered.configMap.metadata.name).toBe(configMap);
    expect(rendered.deployment).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: `gateway-${uuid}`,
        namespace: 'occ-ns',
        labels: ours,
        ownerReferences: [{ apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', name: `agent-${uuid}`, uid: 'uid-1', controller: true, blockOwnerDeletion: true }],
        annotations: { [INSTANCE_GENERATION_ANNOTATION]: '4' },
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: ours },
        template: {
          metadata: {
            labels: { ...ours, 'openclaw.rocks/revision': '7' },
            annotations: { 'openclaw.rocks/revision-id': 'rev_1', [TEMPLATE_HASH_ANNOTATION]: rendered.templateHash },
          },
          spec: {
            serviceAccountName: `agent-${uuid}`,
            automountServiceAccountToken: true,
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'gateway',
                image: 'ghcr.io/openclaw/openclaw:1.2',
                securityContext: restricted,
                env: [
                  { name: 'OPENCLAW_CONFIG_PATH', value: '/etc/openclaw/openclaw.json' },
                  { name: 'OPENCLAW_SKILLS_PATH', value: '/etc/openclaw/skills.json' },
                  { name: 'OPENCLAW_WORKSPACE_DIR', value: '/workspace' },
                  { name: 'OPENCLAW_INSTANCE_NAME', value: `agent-${uuid}` },
                  { name: 'OPENCLAW_NAMESPACE', value: 'occ-ns' },
                  { name: 'MODEL_KEY', valueFrom: { secretKeyRef: { name: 'sec', key: 'value', optional: false } } },
                ],
                volumeMounts: [
                  { name: 'config', mountPath: '/etc/openclaw', readOnly: true },
                  { name: 'workspace', mountPath: '/workspace', readOnly: true },
                ],
                resources: { limits: { memory: '1Gi' } },
              },
              {
                name: MODEL_AUTH_CONTAINER,
                image: 'auth:1',
                env: [
                  { name: 'MODEL_PROVIDER', value: 'anthropic' },
                  { name: 'MODEL_CREDENTIAL_FILE', value: '/var/run/openclaw/model-auth/value' },
                ],
                volumeMounts: [{ name: 'model-auth', mountPath: '/var/run/openclaw/model-auth', readOnly: true }],
                securityContext: restricted,
              },
            ],
            volumes: [
              { name: 'config', configMap: { name: configMap, items: [{ key: 'openclaw.json', path: 'openclaw.json' }, { key: 'skills.json', path: 'skills.json' }] } },
              { name: 'workspace', configMap: { name: configMap, items: [{ key: workspaceKey('a.md'), path: 'a.md' }, { key: workspaceKey('notes/b.md'), path: 'notes/b.md' }] } },
              { name: 'model-auth', secret: { secretName: 'model-auth-7', optional: false } },
            ],
          },
        },
      },
    });
    expect([rendered.modelAuthSecretName, rendered.replicas, rendered.revision]).toEqual(['model-auth-7', 2, { id: 'rev_1', number: 7 }]);
    expect(rendered.configMap.data).toEqual({ 'openclaw.json': JSON.stringify({ z: 1 }, null, 2), 'skills.json': '["a","b"]', [workspaceKey('a.md')]: 'A', [workspaceKey('notes/b.md')]: 'B' });
  });

  it('RC2 without the optional parts: no workspace mount or volume, no model-auth container, one replica, no revision label', () => {
    const bare = renderGateway(instance({ replicas: -1, revision: { id: 'rev_1', number: 1.5 }, modelAuth: { provider: 'x' } }));
    const pod = (bare.deployment.spec as Any).template;
    expect(pod.spec.containers.map((c: Any) => c.name)).toEqual(['gateway']);
    expect(pod.spec.containers[0].volumeMounts).toEqual([{ name: 'config', mountPath: '/etc/openclaw', readOnly: true }]);
    expect(pod.spec.containers[0]).not.toHaveProperty('resources');
    expect(pod.spec.volumes.map((v: Any) => v.name)).toEqual(['config']);
    expect(pod.metadata.labels).not.toHaveProperty('openclaw.rocks/revision');
    expect(pod.metadata.annotations).toEqual({ [TEMPLATE_HASH_ANNOTATION]: bare.templateHash });
    expect([bare.replicas, bare.revision, bare.modelAuthSecretName]).toEqual([1, null, null]);
    expect(renderGateway(instance({ replicas: '3' })).replicas).toBe(1);
    expect((renderGateway(instance({ modelAuth: { secretName: 's' } })).deployment.spec as Any).template.spec.containers[1].env[0]).toEqual({ name: 'MODEL_PROVIDER', value: '' });
  });
});
