import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafPaths } from './composition.ts';
import { fieldOwnership } from './field-ownership.ts';
import { fieldElement, pathOf, toFieldsV1, valueElement, keyElement } from './fieldsv1.ts';
import {
  PROTECTED_ENV_NAMES,
  SELF_CONFIG_MANAGER,
  appliedMessage,
  parseSelfConfigSpec,
  releaseEnvBody,
  setAt,
  valueAt,
  planSelfConfig,
  skippedRemovalsStatus,
  type InstanceSnapshot,
  type SelfConfigSpec,
} from './selfconfig.ts';

const ALL = ['skills', 'config', 'workspaceFiles', 'envVars'];

function spec(partial: Partial<SelfConfigSpec> = {}): SelfConfigSpec {
  return { instanceRef: 'agent-1', addSkills: [], removeSkills: [], configPatch: null, addWorkspaceFiles: {}, removeWorkspaceFiles: [], addEnvVars: [], removeEnvVars: [], ...partial };
}

type Owned = { skills?: string[]; env?: string[]; files?: string[]; config?: string[][] };

function entry(manager: string, operation: 'Apply' | 'Update', owned: Owned) {
  const paths: string[] = [];
  for (const s of owned.skills ?? []) paths.push(pathOf(['f:spec', 'f:skills', valueElement(s)]));
  for (const n of owned.env ?? []) {
    const item = ['f:spec', 'f:env', keyElement({ name: n }, ['name'])];
    paths.push(pathOf(item), pathOf([...item, 'f:name']), pathOf([...item, 'f:value']));
  }
  for (const f of owned.files ?? []) paths.push(pathOf(['f:spec', 'f:workspace', 'f:initialFiles', `f:${f}`]));
  for (const p of owned.config ?? []) paths.push(pathOf(['f:spec', 'f:config', 'f:raw', ...p.map(fieldElement)]));
  return { manager, operation, apiVersion: 'openclaw.rocks/v1alpha1', time: '2026-11-30T20:00:00Z', fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(new Set(paths)) };
}

function instance(specFields: Record<string, unknown>, managers: ReturnType<typeof entry>[], selfConfigure = { enabled: true, allowedActions: ALL }): InstanceSnapshot {
  return { name: 'agent-1', namespace: 'ns', resourceVersion: '42', spec: { selfConfigure, ...specFields }, managedFields: managers };
}

const NO_CONTEXT = { secretBoundEnvNames: [] };

describe('SelfConfig spec (SC1)', () => {
  it('SC1 accepts the CRD example and normalizes absent lists to empty', () => {
    const parsed = parseSelfConfigSpec({ instanceRef: 'my-agent', addSkills: ['mcp-server-fetch'], addEnvVars: [{ name: 'MY_CUSTOM_VAR', value: 'hello' }] });
    expect(parsed).toEqual({ spec: spec({ instanceRef: 'my-agent', addSkills: ['mcp-server-fetch'], addEnvVars: [{ name: 'MY_CUSTOM_VAR', value: 'hello' }] }) });
  });

  it.each([
    [{ addSkills: Array.from({ length: 11 }, (_, i) => `s${i}`) }, 'addSkills'],
    [{ removeSkills: Array.from({ length: 11 }, (_, i) => `s${i}`) }, 'removeSkills'],
    [{ addSkills: ['bad skill'] }, 'addSkills[0]'],
    [{ addWorkspaceFiles: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, 'x'])) }, 'addWorkspaceFiles'],
    [{ addWorkspaceFiles: { '../etc/passwd': 'x' } }, 'addWorkspaceFiles[0]'],
    [{ addEnvVars: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }] }, 'addEnvVars[0]'],
    [{ addEnvVars: [{ name: '1A', value: 'x' }] }, 'addEnvVars[0].name'],
    [{ addEnvVars: [{ name: 'A', value: 'x' }, { name: 'A', value: 'y' }] }, 'addEnvVars[1].name'],
    [{ configPatch: ['not', 'an', 'object'] }, 'configPatch'],
    [{ configPatch: { channels: { telegram: { botToken: 'literal' } } } }, 'configPatch.channels.telegram.botToken'],
    [{ addEnvVars: [{ name: 'A', value: 'x\u0000' }] }, 'addEnvVars[0].value'],
    [{ surprise: 1 }, 'spec.surprise'],
    [{ addSkills: ['a'], removeSkills: ['a'] }, 'removeSkills[0]'],
    [{ addEnvVars: [{ name: 'A', value: '1' }], removeEnvVars: ['A'] }, 'removeEnvVars[0]'],
    [{ addWorkspaceFiles: { 'a.md': '' }, removeWorkspaceFiles: ['a.md'] }, 'removeWorkspaceFiles[0]'],
  ])('SC1 refuses %j naming %s', (extra, field) => {
    const parsed = parseSelfConfigSpec({ instanceRef: 'agent-1', ...extra });
    expect('problem' in parsed && parsed.problem.field).toBe(field);
  });

  const many = <T,>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
  it.each([
    [{ instanceRef: 5 }, 'instanceRef', 'INVALID_SPEC', 'instanceRef must be a string.'],
    [{ instanceRef: 'Bad_Name' }, 'instanceRef', 'INVALID_SPEC', 'instanceRef must name an OpenClawInstance (a DNS subdomain).'],
    [{ instanceRef: 'a'.repeat(254) }, 'instanceRef', 'INVALID_SPEC', 'instanceRef is longer than 253 characters.'],
    [{ addSkills: 'x' }, 'addSkills', 'INVALID_SPEC', 'addSkills must be a list.'],
    [{ addSkills: many(11, (i) => `s${i}`) }, 'addSkills', 'TOO_MANY_ITEMS', 'addSkills holds 11 items; at most 10.'],
    [{ addSkills: ['no spaces'] }, 'addSkills[0]', 'INVALID_SKILL', 'addSkills[0] must match ^(npm:|pack:)?[A-Za-z0-9_/.@-]{1,128}$.'],
    [{ addSkills: ['a', 'a'] }, 'addSkills[1]', 'DUPLICATE_ITEM', 'addSkills[1] repeats an earlier item.'],
    [{ removeSkills: many(11, (i) => `s${i}`) }, 'removeSkills', 'TOO_MANY_ITEMS', 'removeSkills holds 11 items; at most 10.'],
    [{ configPatch: 'x' }, 'configPatch', 'INVALID_SPEC', 'configPatch must be an object.'],
    [{ addWorkspaceFiles: ['a.md'] }, 'addWorkspaceFiles', 'INVALID_SPEC', 'addWorkspaceFiles must map paths to contents.'],
    [{ addWorkspaceFiles: Object.fromEntries(many(11, (i) => [`f${i}.md`, ''])) }, 'addWorkspaceFiles', 'TOO_MANY_ITEMS', 'addWorkspaceFiles holds 11 files; at most 10.'],
    [{ addWorkspaceFiles: { '/etc/passwd': '' } }, 'addWorkspaceFiles[0]', 'INVALID_PATH', 'addWorkspaceFiles[0] must be a relative path inside the workspace (no leading /, no empty or .. segments).'],
    [{ addWorkspaceFiles: { 'a//b.md': '' } }, 'addWorkspaceFiles[0]', 'INVALID_PATH', undefined],
    [{ addWorkspaceFiles: { 'a.md': 5 } }, 'addWorkspaceFiles[0].content', 'INVALID_SPEC', 'addWorkspaceFiles[0].content must be a string.'],
    [{ removeWorkspaceFiles: ['x/../../y'] }, 'removeWorkspaceFiles[0]', 'INVALID_PATH', undefined],
    [{ removeWorkspaceFiles: many(51, (i) => `f${i}`) }, 'removeWorkspaceFiles', 'TOO_MANY_ITEMS', 'removeWorkspaceFiles holds 51 items; at most 50.'],
    [{ addEnvVars: {} }, 'addEnvVars', 'INVALID_SPEC', 'addEnvVars must be a list of {name, value}.'],
    [{ addEnvVars: many(65, (i) => ({ name: `V${i}`, value: '' })) }, 'addEnvVars', 'TOO_MANY_ITEMS', 'addEnvVars holds 65 items; at most 64.'],
    [{ addEnvVars: [{ name: 'A', valueFrom: {} }] }, 'addEnvVars[0]', 'LITERAL_VALUES_ONLY', 'addEnvVars[0] must be {name, value} with a literal value; references are not accepted.'],
    [{ addEnvVars: ['A=1'] }, 'addEnvVars[0]', 'LITERAL_VALUES_ONLY', undefined],
    [{ addEnvVars: [{ name: '1A', value: '' }] }, 'addEnvVars[0].name', 'INVALID_ENV_NAME', 'addEnvVars[0].name must match ^[A-Za-z_][A-Za-z0-9_]{0,252}$.'],
    [{ addEnvVars: [{ name: 'A', value: 'x'.repeat(128 * 1024 + 1) }] }, 'addEnvVars[0].value', 'INVALID_SPEC', `addEnvVars[0].value is longer than ${128 * 1024} characters.`],
    [{ addEnvVars: [{ name: 'A', value: 'x' }, { name: 'A', value: 'y' }] }, 'addEnvVars[1].name', 'DUPLICATE_ITEM', 'addEnvVars[1].name repeats an earlier item.'],
    [{ removeEnvVars: ['A-B'] }, 'removeEnvVars[0]', 'INVALID_ENV_NAME', undefined],
    [{ addSkills: ['a'], removeSkills: ['a'] }, 'removeSkills[0]', 'ADDED_AND_REMOVED', 'removeSkills[0] is also added by this request.'],
  ])('SC1 refusal %# names %s with code %s', (extra, field, code, message) => {
    const parsed = parseSelfConfigSpec({ instanceRef: 'agent-1', ...extra });
    expect(parsed).toMatchObject({ problem: { field, code, ...(message ? { message } : {}) } });
  });

  it('SC1 absent and null lists are empty; every list and map is taken as given', () => {
    const empty = { addSkills: null, removeSkills: undefined, configPatch: null, addWorkspaceFiles: null, removeWorkspaceFiles: null, addEnvVars: null, removeEnvVars: null };
    expect(parseSelfConfigSpec({ instanceRef: 'agent-1', ...empty })).toEqual({
      spec: { instanceRef: 'agent-1', addSkills: [], removeSkills: [], configPatch: null, addWorkspaceFiles: {}, removeWorkspaceFiles: [], addEnvVars: [], removeEnvVars: [] },
    });
    const full = parseSelfConfigSpec({
      instanceRef: 'agent-1',
      addSkills: ['npm:x', 'y'],
      removeSkills: ['z'],
      configPatch: { a: { b: 1 } },
      addWorkspaceFiles: { 'notes/a.md': 'hi' },
      removeWorkspaceFiles: ['old.md'],
      addEnvVars: [{ name: 'MY_FLAG', value: 'on' }],
      removeEnvVars: ['OLD'],
    });
    expect(full).toEqual({
      spec: { instanceRef: 'agent-1', addSkills: ['npm:x', 'y'], removeSkills: ['z'], configPatch: { a: { b: 1 } }, addWorkspaceFiles: { 'notes/a.md': 'hi' }, removeWorkspaceFiles: ['old.md'], addEnvVars: [{ name: 'MY_FLAG', value: 'on' }], removeEnvVars: ['OLD'] },
    });
  });

  it('SC1 refuses a request without an instanceRef', () => {
    expect(parseSelfConfigSpec({ addSkills: ['x'] })).toMatchObject({ problem: { field: 'instanceRef' } });
  });
});

describe('SelfConfig decisions in SC3 order', () => {
  it('SC3 a missing instance is Failed, before anything else is looked at', () => {
    expect(planSelfConfig(spec(), null, NO_CONTEXT)).toMatchObject({ phase: 'Failed', reason: 'InstanceNotFound' });
  });

  it('SC3 selfConfigure disabled is Denied, even for a request that asks nothing', () => {
    const live = instance({}, [], { enabled: false, allowedActions: ALL });
    expect(planSelfConfig(spec(), live, NO_CONTEXT)).toMatchObject({ phase: 'Denied', reason: 'SelfConfigureDisabled' });
  });

  it('SC3 a request that asks nothing is Failed', () => {
    expect(planSelfConfig(spec(), instance({}, []), NO_CONTEXT)).toMatchObject({ phase: 'Failed', reason: 'NoAction' });
  });

  it('SC3 a category outside allowedActions is Denied, naming it, before SC4 looks at protected names', () => {
    const live = instance({}, [], { enabled: true, allowedActions: ['skills'] });
    const decision = planSelfConfig(spec({ addSkills: ['a'], addEnvVars: [{ name: 'HOME', value: '/' }] }), live, NO_CONTEXT);
    expect(decision).toMatchObject({ phase: 'Denied', reason: 'ActionNotAllowed' });
    expect(decision.phase !== 'Apply' && decision.message).toContain('envVars');
  });
});

describe('SelfConfig protection (SC4)', () => {
  it('SC4 a configPatch touching gateway is Failed naming the key; gateway deeper down is not the protected key', () => {
    const live = instance({ config: { raw: { gateway: { auth: { mode: 'token' } } } } }, [entry('occ-controller', 'Apply', { config: [['gateway', 'auth', 'mode']] })]);
    const touched = planSelfConfig(spec({ configPatch: { gateway: { auth: { mode: 'none' } } } }), live, NO_CONTEXT);
    expect(touched).toMatchObject({ phase: 'Failed', reason: 'ProtectedConfigKey' });
    expect(touched.phase !== 'Apply' && touched.message).toContain('"gateway"');
    expect(planSelfConfig(spec({ configPatch: { gateway: null } }), live, NO_CONTEXT)).toMatchObject({ phase: 'Failed' });
    const nested = planSelfConfig(spec({ configPatch: { channels: { gateway: 1 } } }), live, NO_CONTEXT);
    expect(nested.phase).toBe('Apply');
    // K2: the document is granular, so the body holds the agent's own keys only, never the gateway block.
    expect(nested.phase === 'Apply' && nested.body.spec).toEqual({ config: { raw: { channels: { gateway: 1 } } } });
  });

  // SC4's names as DESIGN.md lists them, written out: looping over the code's own list would lose
  // a name's test with the name. The list may grow (then its test is here too), never shrink.
  const SC4_NAMES = [
    'HOME', 'PATH', 'OPENCLAW_GATEWAY_TOKEN', 'OPENCLAW_INSTANCE_NAME', 'OPENCLAW_NAMESPACE', 'OPENCLAW_DISABLE_BONJOUR', 'CHROMIUM_URL', 'OLLAMA_HOST',
    'TS_AUTHKEY', 'TS_HOSTNAME', 'TS_SOCKET', 'NODE_EXTRA_CA_CERTS', 'NPM_CONFIG_CACHE', 'NPM_CONFIG_IGNORE_SCRIPTS',
  ];

  it('SC4 the protected list holds every name the rule names', () => {
    expect(PROTECTED_ENV_NAMES).toEqual(expect.arrayContaining(SC4_NAMES));
  });

  it.each([...new Set([...SC4_NAMES, ...PROTECTED_ENV_NAMES])].flatMap((n) => [[n], [n.toLowerCase()]]))('SC4 env name %s is protected, to set and to remove', (name) => {
    for (const s of [spec({ addEnvVars: [{ name, value: 'x' }] }), spec({ removeEnvVars: [name] })]) {
      const decision = planSelfConfig(s, instance({}, []), NO_CONTEXT);
      expect(decision).toMatchObject({ phase: 'Failed', reason: 'ProtectedEnvVar' });
      expect(decision.phase !== 'Apply' && decision.message).toContain(JSON.stringify(name));
    }
  });

  it('SC4 names the platform injects (reserved prefixes) and names bound to a Secret or harnessAuth are protected', () => {
    for (const name of ['OPENCLAW_ANYTHING', 'KUBERNETES_SERVICE_HOST', 'LD_PRELOAD', 'ANTHROPIC_API_KEY', 'TELEGRAM_BOT_TOKEN']) {
      const decision = planSelfConfig(spec({ addEnvVars: [{ name, value: 'x' }] }), instance({}, []), { secretBoundEnvNames: ['TELEGRAM_BOT_TOKEN'] });
      expect(decision, name).toMatchObject({ phase: 'Failed', reason: 'ProtectedEnvVar' });
    }
  });

  it('SC4 a live env var filled from a reference cannot be replaced by a literal, whoever wrote it', () => {
    const live = instance({ env: [{ name: 'SLACK_TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }] }, [entry('occ-controller', 'Apply', { env: ['SLACK_TOKEN'] })]);
    expect(planSelfConfig(spec({ addEnvVars: [{ name: 'SLACK_TOKEN', value: 'x' }] }), live, NO_CONTEXT)).toMatchObject({ phase: 'Failed', reason: 'ProtectedEnvVar' });
  });
});

describe('SelfConfig apply body (SC6) and skipped removals (SC7)', () => {
  const managers = [
    entry('occ-controller', 'Apply', { skills: ['base', 'shared'], env: ['LOG_LEVEL'], files: ['AGENTS.md'], config: [['channels']] }),
    entry(SELF_CONFIG_MANAGER, 'Apply', { skills: ['mine', 'shared'], env: ['MY_VAR'], files: ['notes.md'] }),
    entry('kubectl-edit', 'Update', { skills: ['edited'] }),
  ];
  const live = instance(
    {
      skills: ['base', 'shared', 'mine', 'edited'],
      env: [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'MY_VAR', value: 'v1' },
      ],
      workspace: { initialFiles: { 'AGENTS.md': 'a', 'notes.md': 'n' } },
      config: { raw: { channels: {} } },
    },
    managers,
  );

  it('SC6 a skills-only request re-sends every category this manager owns, and nothing only others own', () => {
    const decision = planSelfConfig(spec({ addSkills: ['new'] }), live, NO_CONTEXT);
    expect(decision.phase).toBe('Apply');
    expect(decision.phase === 'Apply' && decision.body).toEqual({
      apiVersion: 'openclaw.rocks/v1alpha1',
      kind: 'OpenClawInstance',
      metadata: { name: 'agent-1', namespace: 'ns', resourceVersion: '42' },
      spec: { skills: ['shared', 'mine', 'new'], env: [{ name: 'MY_VAR', value: 'v1' }], workspace: { initialFiles: { 'notes.md': 'n' } } },
    });
  });

  it("SC7 removing another manager's item is skipped naming the owner and its operation; removing my own drops it from the body", () => {
    const decision = planSelfConfig(spec({ removeSkills: ['base', 'edited', 'mine', 'ghost'] }), live, NO_CONTEXT);
    if (decision.phase !== 'Apply') throw new Error(decision.message);
    expect(decision.body.spec).toMatchObject({ skills: ['shared'] });
    expect(decision.skipped).toEqual([
      { kind: 'skill', name: 'base', managers: [{ manager: 'occ-controller', operation: 'Apply' }], why: 'not-owned' },
      { kind: 'skill', name: 'edited', managers: [{ manager: 'kubectl-edit', operation: 'Update' }], why: 'not-owned' },
      { kind: 'skill', name: 'ghost', managers: [], why: 'absent' },
    ]);
    const message = appliedMessage(decision.skipped);
    expect(message).toContain('"base"');
    expect(message).toContain('occ-controller (Apply)');
    expect(message).toContain('kubectl-edit (Update)');
    expect(skippedRemovalsStatus(decision.skipped)[0]).toEqual({ kind: 'skill', name: 'base', managers: ['occ-controller (Apply)'] });
  });

  it('SC7 removing an item both managers own releases mine, keeps the item, and says so', () => {
    const decision = planSelfConfig(spec({ removeSkills: ['shared'] }), live, NO_CONTEXT);
    if (decision.phase !== 'Apply') throw new Error(decision.message);
    expect(decision.body.spec).toMatchObject({ skills: ['mine'] });
    expect(decision.skipped).toEqual([{ kind: 'skill', name: 'shared', managers: [{ manager: 'occ-controller', operation: 'Apply' }], why: 'shared' }]);
    expect(appliedMessage(decision.skipped)).toContain('also owned by occ-controller (Apply); kept');
  });

  it('SC7 env vars and workspace files follow the same ownership as skills', () => {
    const decision = planSelfConfig(spec({ removeEnvVars: ['LOG_LEVEL', 'MY_VAR'], removeWorkspaceFiles: ['AGENTS.md', 'notes.md'] }), live, NO_CONTEXT);
    if (decision.phase !== 'Apply') throw new Error(decision.message);
    expect(decision.body.spec).toEqual({ skills: ['shared', 'mine'] });
    expect(decision.skipped.map((s) => [s.kind, s.name, s.why])).toEqual([
      ['envVar', 'LOG_LEVEL', 'not-owned'],
      ['workspaceFile', 'AGENTS.md', 'not-owned'],
    ]);
  });

  it('SC6 an add replaces the value of an env var; config keys are re-sent only by the manager that owns them', () => {
    const decision = planSelfConfig(spec({ addEnvVars: [{ name: 'MY_VAR', value: 'v2' }] }), live, NO_CONTEXT);
    if (decision.phase !== 'Apply') throw new Error(decision.message);
    expect(decision.body.spec).toMatchObject({ env: [{ name: 'MY_VAR', value: 'v2' }] });
    expect(decision.body.spec).not.toHaveProperty('config');
    const owningA = instance({ config: { raw: { a: 1, b: { c: 2 } } } }, [entry(SELF_CONFIG_MANAGER, 'Apply', { config: [['a']] }), entry('occ-controller', 'Apply', { config: [['b', 'c']] })]);
    const again = planSelfConfig(spec({ addSkills: ['x'] }), owningA, NO_CONTEXT);
    expect(again.phase === 'Apply' && again.body.spec).toEqual({ skills: ['x'], config: { raw: { a: 1 } } });
  });

  it('SC6 SC7 K2 a configPatch works on the keys this manager holds: a null removes mine, and is skipped naming the owners for a key only others hold', () => {
    const snapshot = instance({ config: { raw: { tools: { x: 1, y: 2, w: 5 }, model: 'm' } } }, [
      entry(SELF_CONFIG_MANAGER, 'Apply', { config: [['tools', 'x'], ['tools', 'w']] }),
      entry('occ-controller', 'Apply', { config: [['tools', 'y'], ['model'], ['tools', 'w']] }),
    ]);
    const decision = planSelfConfig(spec({ configPatch: { tools: { x: null, y: null, w: null, z: 3 }, model: 'n', absent: null } }), snapshot, NO_CONTEXT);
    if (decision.phase !== 'Apply') throw new Error(decision.message);
    expect(decision.body.spec).toEqual({ config: { raw: { tools: { z: 3 }, model: 'n' } } });
    expect(decision.skipped.map((k) => [k.kind, k.name, k.why, k.managers.map((m) => m.manager)])).toEqual([
      ['config', 'tools.y', 'not-owned', ['occ-controller']],
      ['config', 'tools.w', 'shared', ['occ-controller']],
      ['config', 'absent', 'absent', []],
    ]);
    expect(appliedMessage(decision.skipped)).toContain('config "tools.y"');
  });

  it('SC6 property: a configPatch body holds exactly my kept keys and the patch, never a key only others hold (generated)', () => {
    const key = fc.constantFrom('a', 'b', 'c');
    const paths = fc.uniqueArray(fc.array(key, { minLength: 1, maxLength: 3 }), { maxLength: 5, selector: (p) => p.join('.') });
    fc.assert(
      fc.property(paths, paths, fc.dictionary(key, fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 }))), (mine, theirs, patch) => {
        // A document where no path is a prefix of another (leaves only).
        const raw: Record<string, unknown> = {};
        const leaves = [...mine, ...theirs].filter((p, i, all) => !all.some((q, j) => j !== i && q.length > p.length && p.every((k, n) => q[n] === k)));
        for (const p of leaves) setAt(raw, p, 7);
        const owned = (list: string[][]) => list.filter((p) => leaves.some((l) => l.join('.') === p.join('.')));
        fc.pre(Object.keys(patch).length > 0);
        const snapshot = instance({ config: { raw } }, [entry(SELF_CONFIG_MANAGER, 'Apply', { config: owned(mine) }), entry('other', 'Apply', { config: owned(theirs) })]);
        const decision = planSelfConfig(spec({ configPatch: patch }), snapshot, NO_CONTEXT);
        if (decision.phase !== 'Apply') throw new Error(decision.message);
        const body = ((decision.body.spec as { config?: { raw?: Record<string, unknown> } }).config?.raw ?? {}) as Record<string, unknown>;
        const sent = leafPaths(body).map((p) => p.join('.'));
        const patched = Object.keys(patch).filter((k) => patch[k] !== null);
        const nulled = Object.keys(patch).filter((k) => patch[k] === null);
        for (const p of sent) {
          const top = p.split('.')[0]!;
          expect(patched.includes(top) || (owned(mine).some((m) => m.join('.') === p) && !nulled.includes(top))).toBe(true);
        }
        for (const m of owned(mine)) if (!Object.hasOwn(patch, m[0]!)) expect(valueAt(body, m)).toBe(7);
        for (const k of nulled) {
          const mineBelow = owned(mine).some((m) => m[0] === k);
          const othersBelow = owned(theirs).some((t) => t[0] === k);
          if (othersBelow || !mineBelow) expect(decision.skipped.some((s) => s.kind === 'config' && s.name === k)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('RC3 releasing the agent\'s literal for a name keeps everything else the agent holds', () => {
    const body = releaseEnvBody(live, ['MY_VAR']);
    expect(body.spec).toEqual({ skills: ['shared', 'mine'], workspace: { initialFiles: { 'notes.md': 'n' } } });
    expect(body.metadata).toMatchObject({ resourceVersion: '42' });
  });

  it('SC6 property: the body never holds an item only other managers own, and holds every item this manager keeps', () => {
    const name = fc.constantFrom<string>('a', 'b', 'c', 'd', 'e');
    fc.assert(
      fc.property(fc.uniqueArray(name), fc.uniqueArray(name), fc.uniqueArray(name, { maxLength: 5 }), fc.uniqueArray(name, { maxLength: 5 }), (mine, theirs, adds, removes) => {
        const liveSkills = [...new Set([...theirs, ...mine])];
        const snapshot = instance({ skills: liveSkills }, [entry('other', 'Apply', { skills: theirs }), entry(SELF_CONFIG_MANAGER, 'Apply', { skills: mine })]);
        const removals = removes.filter((r) => !adds.includes(r));
        fc.pre(adds.length + removals.length > 0);
        const decision = planSelfConfig(spec({ addSkills: adds, removeSkills: removals }), snapshot, NO_CONTEXT);
        if (decision.phase !== 'Apply') throw new Error(decision.message);
        const sent = new Set((decision.body.spec as { skills?: string[] }).skills ?? []);
        for (const s of sent) expect(mine.includes(s) || adds.includes(s)).toBe(true);
        for (const s of [...mine, ...adds]) expect(sent.has(s)).toBe(!removals.includes(s));
        for (const s of removals) if (!mine.includes(s)) expect(decision.skipped.some((k) => k.name === s)).toBe(true);
      }),
    );
  });
});

describe('field ownership (item × manager)', () => {
  it('SC7 K2 lists every skill, env var, workspace file and config key with the managers that own it', () => {
    const items = fieldOwnership([
      entry('occ-controller', 'Apply', { skills: ['a'], config: [['tools', 'x'], ['a.b']] }),
      entry(SELF_CONFIG_MANAGER, 'Apply', { skills: ['a', 'b'], env: ['X'], files: ['f.md'] }),
      { manager: 'status-writer', operation: 'Update', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {} } } },
    ]);
    expect(items).toEqual([
      { kind: 'skill', name: 'a', owners: [{ manager: 'occ-controller', operation: 'Apply' }, { manager: SELF_CONFIG_MANAGER, operation: 'Apply' }] },
      { kind: 'skill', name: 'b', owners: [{ manager: SELF_CONFIG_MANAGER, operation: 'Apply' }] },
      { kind: 'envVar', name: 'X', owners: [{ manager: SELF_CONFIG_MANAGER, operation: 'Apply' }] },
      { kind: 'workspaceFile', name: 'f.md', owners: [{ manager: SELF_CONFIG_MANAGER, operation: 'Apply' }] },
      { kind: 'config', name: '"a.b"', path: ['a.b'], owners: [{ manager: 'occ-controller', operation: 'Apply' }] },
      { kind: 'config', name: 'tools.x', path: ['tools', 'x'], owners: [{ manager: 'occ-controller', operation: 'Apply' }] },
    ]);
  });
});
