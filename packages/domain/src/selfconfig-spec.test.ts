// SC1 and SC4 as a table: every refusal a request's spec can meet, with the exact problem (code,
// field, message) an agent reads in the request's status, and the boundaries either side of each
// limit. Written against the survivors of `npx stryker run --mutate src/selfconfig.ts`: a changed
// code, field or message text, or a limit off by one, fails here.

import { describe, expect, it } from 'vitest';
import {
  MAX_ENV_VARS_PER_REQUEST,
  MAX_REMOVALS_PER_LIST,
  MAX_SKILLS_PER_REQUEST,
  MAX_WORKSPACE_FILES_PER_REQUEST,
  appliedMessage,
  describeSkipped,
  ownedBody,
  parseSelfConfigSpec,
  protectedEnvReason,
  protectionProblem,
  planSelfConfig,
  requestedCategories,
  type InstanceSnapshot,
  type SelfConfigSpec,
} from './selfconfig.ts';

const base = { instanceRef: 'agent-1' };
const names = (n: number, prefix = 'S') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.md`, 'x']));
const envs = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `V${i}`, value: 'x' }));

const PATH_RULE = 'must be a relative path inside the workspace (no leading /, no empty or .. segments).';

/** [what, spec, expected problem] */
const REFUSED: [string, unknown, { code: string; field: string; message: string }][] = [
  ['a spec that is not an object', 'x', { code: 'INVALID_SPEC', field: 'spec', message: 'spec must be an object.' }],
  ['a list as the spec', [], { code: 'INVALID_SPEC', field: 'spec', message: 'spec must be an object.' }],
  ['null as the spec', null, { code: 'INVALID_SPEC', field: 'spec', message: 'spec must be an object.' }],
  ['an unknown field, its name cut at 64', { ...base, ['k'.repeat(70)]: 1 }, { code: 'UNKNOWN_FIELD', field: `spec.${'k'.repeat(64)}`, message: 'spec holds a field SelfConfig does not know.' }],
  ['no instanceRef', {}, { code: 'INVALID_SPEC', field: 'instanceRef', message: 'instanceRef must be a string.' }],
  ['an instanceRef of 254 characters', { instanceRef: 'a'.repeat(254) }, { code: 'INVALID_SPEC', field: 'instanceRef', message: 'instanceRef is longer than 253 characters.' }],
  ['an instanceRef with a lone surrogate', { instanceRef: 'a\uD800' }, { code: 'INVALID_UTF8', field: 'instanceRef', message: expect.stringMatching(/^instanceRef contains .+\.$/) as unknown as string }],
  ['an instanceRef that is no DNS name', { instanceRef: 'Agent_1' }, { code: 'INVALID_SPEC', field: 'instanceRef', message: 'instanceRef must name an OpenClawInstance (a DNS subdomain).' }],
  ['skills that are not a list', { ...base, addSkills: 'x' }, { code: 'INVALID_SPEC', field: 'addSkills', message: 'addSkills must be a list.' }],
  [`${MAX_SKILLS_PER_REQUEST + 1} skills`, { ...base, addSkills: names(MAX_SKILLS_PER_REQUEST + 1) }, { code: 'TOO_MANY_ITEMS', field: 'addSkills', message: `addSkills holds ${MAX_SKILLS_PER_REQUEST + 1} items; at most ${MAX_SKILLS_PER_REQUEST}.` }],
  ['a skill of the wrong form', { ...base, addSkills: ['ok', 'no way'] }, { code: 'INVALID_SKILL', field: 'addSkills[1]', message: 'addSkills[1] must match ^(npm:|pack:)?[A-Za-z0-9_/.@-]{1,128}$.' }],
  ['a skill twice', { ...base, addSkills: ['a', 'a'] }, { code: 'DUPLICATE_ITEM', field: 'addSkills[1]', message: 'addSkills[1] repeats an earlier item.' }],
  ['a removed skill that is not a string', { ...base, removeSkills: [1] }, { code: 'INVALID_SPEC', field: 'removeSkills[0]', message: 'removeSkills[0] must be a string.' }],
  [`${MAX_SKILLS_PER_REQUEST + 1} removed skills`, { ...base, removeSkills: names(MAX_SKILLS_PER_REQUEST + 1) }, { code: 'TOO_MANY_ITEMS', field: 'removeSkills', message: `removeSkills holds ${MAX_SKILLS_PER_REQUEST + 1} items; at most ${MAX_SKILLS_PER_REQUEST}.` }],
  ['a configPatch that is a list', { ...base, configPatch: [] }, { code: 'INVALID_SPEC', field: 'configPatch', message: 'configPatch must be an object.' }],
  [
    'a credential literal in the configPatch, named under configPatch',
    { ...base, configPatch: { model: { apiKey: 'x' } } },
    {
      code: 'LITERAL_CREDENTIAL',
      field: 'configPatch.model.apiKey',
      message: 'configPatch.model.apiKey holds a literal value under a credential-like key; use a SecretRef {source: "env", provider, id} and a secret binding.',
    },
  ],
  ['files that are a list', { ...base, addWorkspaceFiles: [] }, { code: 'INVALID_SPEC', field: 'addWorkspaceFiles', message: 'addWorkspaceFiles must map paths to contents.' }],
  [`${MAX_WORKSPACE_FILES_PER_REQUEST + 1} files`, { ...base, addWorkspaceFiles: files(MAX_WORKSPACE_FILES_PER_REQUEST + 1) }, { code: 'TOO_MANY_ITEMS', field: 'addWorkspaceFiles', message: `addWorkspaceFiles holds ${MAX_WORKSPACE_FILES_PER_REQUEST + 1} files; at most ${MAX_WORKSPACE_FILES_PER_REQUEST}.` }],
  ['an empty file path', { ...base, addWorkspaceFiles: { '': 'x' } }, { code: 'INVALID_PATH', field: 'addWorkspaceFiles[0]', message: `addWorkspaceFiles[0] ${PATH_RULE}` }],
  ['an absolute file path', { ...base, addWorkspaceFiles: { 'a.md': 'x', '/etc/passwd': 'x' } }, { code: 'INVALID_PATH', field: 'addWorkspaceFiles[1]', message: `addWorkspaceFiles[1] ${PATH_RULE}` }],
  ['a path with ..', { ...base, addWorkspaceFiles: { 'a/../../b': 'x' } }, { code: 'INVALID_PATH', field: 'addWorkspaceFiles[0]', message: `addWorkspaceFiles[0] ${PATH_RULE}` }],
  ['a path with an empty segment', { ...base, addWorkspaceFiles: { 'a//b': 'x' } }, { code: 'INVALID_PATH', field: 'addWorkspaceFiles[0]', message: `addWorkspaceFiles[0] ${PATH_RULE}` }],
  ['a path ending in /', { ...base, addWorkspaceFiles: { 'a/': 'x' } }, { code: 'INVALID_PATH', field: 'addWorkspaceFiles[0]', message: `addWorkspaceFiles[0] ${PATH_RULE}` }],
  ['file content that is no string', { ...base, addWorkspaceFiles: { 'a.md': 1 } }, { code: 'INVALID_SPEC', field: 'addWorkspaceFiles[0].content', message: 'addWorkspaceFiles[0].content must be a string.' }],
  ['a removed file outside the workspace', { ...base, removeWorkspaceFiles: ['../x'] }, { code: 'INVALID_PATH', field: 'removeWorkspaceFiles[0]', message: `removeWorkspaceFiles[0] ${PATH_RULE}` }],
  [`${MAX_REMOVALS_PER_LIST + 1} removed files`, { ...base, removeWorkspaceFiles: names(MAX_REMOVALS_PER_LIST + 1, 'f') }, { code: 'TOO_MANY_ITEMS', field: 'removeWorkspaceFiles', message: `removeWorkspaceFiles holds ${MAX_REMOVALS_PER_LIST + 1} items; at most ${MAX_REMOVALS_PER_LIST}.` }],
  ['env vars that are not a list', { ...base, addEnvVars: {} }, { code: 'INVALID_SPEC', field: 'addEnvVars', message: 'addEnvVars must be a list of {name, value}.' }],
  [`${MAX_ENV_VARS_PER_REQUEST + 1} env vars`, { ...base, addEnvVars: envs(MAX_ENV_VARS_PER_REQUEST + 1) }, { code: 'TOO_MANY_ITEMS', field: 'addEnvVars', message: `addEnvVars holds ${MAX_ENV_VARS_PER_REQUEST + 1} items; at most ${MAX_ENV_VARS_PER_REQUEST}.` }],
  ['an env reference', { ...base, addEnvVars: [{ name: 'A', valueFrom: {} }] }, { code: 'LITERAL_VALUES_ONLY', field: 'addEnvVars[0]', message: 'addEnvVars[0] must be {name, value} with a literal value; references are not accepted.' }],
  ['an env item that is a string', { ...base, addEnvVars: ['A=1'] }, { code: 'LITERAL_VALUES_ONLY', field: 'addEnvVars[0]', message: 'addEnvVars[0] must be {name, value} with a literal value; references are not accepted.' }],
  ['an env name of the wrong form', { ...base, addEnvVars: [{ name: '1A', value: 'x' }] }, { code: 'INVALID_ENV_NAME', field: 'addEnvVars[0].name', message: 'addEnvVars[0].name must match ^[A-Za-z_][A-Za-z0-9_]{0,252}$.' }],
  ['an env value that is no string', { ...base, addEnvVars: [{ name: 'A', value: 1 }] }, { code: 'INVALID_SPEC', field: 'addEnvVars[0].value', message: 'addEnvVars[0].value must be a string.' }],
  [
    'a credential-named env var with a literal',
    { ...base, addEnvVars: [{ name: 'API_KEY', value: 'x' }] },
    {
      code: 'LITERAL_CREDENTIAL',
      field: 'addEnvVars[0].value',
      message: 'addEnvVars[0]: env var "API_KEY" is named like a credential and holds a literal value; a credential is bound from a Secret by a deploy, never sent in a request.',
    },
  ],
  ['an env var twice', { ...base, addEnvVars: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }, { code: 'DUPLICATE_ITEM', field: 'addEnvVars[1].name', message: 'addEnvVars[1].name repeats an earlier item.' }],
  ['a removed env name of the wrong form', { ...base, removeEnvVars: ['A-B'] }, { code: 'INVALID_ENV_NAME', field: 'removeEnvVars[0]', message: 'removeEnvVars[0] must match ^[A-Za-z_][A-Za-z0-9_]{0,252}$.' }],
  ['a skill added and removed', { ...base, addSkills: ['a', 'b'], removeSkills: ['c', 'b'] }, { code: 'ADDED_AND_REMOVED', field: 'removeSkills[1]', message: 'removeSkills[1] is also added by this request.' }],
  ['a file added and removed', { ...base, addWorkspaceFiles: { 'a.md': 'x' }, removeWorkspaceFiles: ['a.md'] }, { code: 'ADDED_AND_REMOVED', field: 'removeWorkspaceFiles[0]', message: 'removeWorkspaceFiles[0] is also added by this request.' }],
  [
    'an env var added and removed (the second of two added)',
    { ...base, addEnvVars: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], removeEnvVars: ['B'] },
    { code: 'ADDED_AND_REMOVED', field: 'removeEnvVars[0]', message: 'removeEnvVars[0] is also added by this request.' },
  ],
];

/** [what, spec]: the limits themselves, and what is allowed beside each refusal above. */
const ACCEPTED: [string, Record<string, unknown>][] = [
  ['an instanceRef of 253 characters', { instanceRef: `a${'b'.repeat(251)}c` }],
  [`${MAX_SKILLS_PER_REQUEST} skills`, { ...base, addSkills: names(MAX_SKILLS_PER_REQUEST) }],
  [`${MAX_WORKSPACE_FILES_PER_REQUEST} files`, { ...base, addWorkspaceFiles: files(MAX_WORKSPACE_FILES_PER_REQUEST) }],
  [`${MAX_ENV_VARS_PER_REQUEST} env vars`, { ...base, addEnvVars: envs(MAX_ENV_VARS_PER_REQUEST) }],
  [`${MAX_REMOVALS_PER_LIST} removed env names`, { ...base, removeEnvVars: names(MAX_REMOVALS_PER_LIST, 'V') }],
  ['a nested relative path', { ...base, addWorkspaceFiles: { 'notes/a.b/c.md': 'x' } }],
  ['a credential-named env var emptied', { ...base, addEnvVars: [{ name: 'API_KEY', value: '' }] }],
  ['null lists and patch', { ...base, addSkills: null, configPatch: null, addWorkspaceFiles: null, addEnvVars: null }],
];

describe('SC1 a request spec, refused with the problem an agent reads', () => {
  it.each(REFUSED)('SC1 %s', (_what, raw, problem) => {
    expect(parseSelfConfigSpec(raw)).toEqual({ problem });
  });

  it.each(ACCEPTED)('SC1 accepted: %s', (_what, raw) => {
    const parsed = parseSelfConfigSpec(raw);
    expect(parsed).toHaveProperty('spec');
    const spec = (parsed as { spec: SelfConfigSpec }).spec;
    expect(spec.instanceRef).toBe(raw.instanceRef);
    if (Array.isArray(raw.addEnvVars)) expect(spec.addEnvVars).toEqual(raw.addEnvVars);
    if (raw.addWorkspaceFiles) expect(spec.addWorkspaceFiles).toEqual(raw.addWorkspaceFiles);
    if (raw.addSkills === null) expect([spec.addSkills, spec.configPatch, spec.addWorkspaceFiles, spec.addEnvVars]).toEqual([[], null, {}, []]);
  });
});

describe('SC4 protected names, whatever their case', () => {
  it('SC4 a protected name in lower case is still protected; a platform name in lower case is the platform\'s; a secret-bound name is named as such', () => {
    expect(protectedEnvReason('home', new Set())).toBe('home is protected');
    expect(protectedEnvReason('openclaw_config_path', new Set())).toBe('openclaw_config_path is set by the platform in the gateway');
    expect(protectedEnvReason('OPENCLAW_CONFIG_PATH', new Set())).toBe('OPENCLAW_CONFIG_PATH is set by the platform in the gateway');
    expect(protectedEnvReason('MY_TOKEN_NAME', new Set(['MY_TOKEN_NAME']))).toBe('MY_TOKEN_NAME is bound to a Secret');
    expect(protectedEnvReason('MY_SETTING', new Set(['OTHER']))).toBeNull();
  });

  it('SC4 the problem names the list and the name', () => {
    const spec = (parsed: unknown) => (parseSelfConfigSpec(parsed) as { spec: SelfConfigSpec }).spec;
    expect(protectionProblem(spec({ ...base, removeEnvVars: ['PATH'] }), new Set())).toEqual({ reason: 'ProtectedEnvVar', message: 'removeEnvVars: env var "PATH" is protected (PATH is protected)' });
    expect(protectionProblem(spec({ ...base, configPatch: { gateway: { port: 1 } } }), new Set())).toEqual({ reason: 'ProtectedConfigKey', message: 'configPatch touches protected config key "gateway"' });
  });
});

describe('SC7 a skipped removal, described', () => {
  it('SC7 absent, shared with two managers, and owned by others each read as such', () => {
    const managers = [
      { manager: 'occ-controller', operation: 'Apply' as const },
      { manager: 'kubectl', operation: 'Update' as const },
    ];
    expect(describeSkipped({ kind: 'skill', name: 'a', managers: [], why: 'absent' })).toBe('removal of skill "a" skipped: not present');
    expect(describeSkipped({ kind: 'skill', name: 'a', managers, why: 'shared' })).toBe('removal of skill "a" skipped: also owned by occ-controller (Apply), kubectl (Update); kept');
    expect(describeSkipped({ kind: 'envVar', name: 'A', managers, why: 'not-owned' })).toBe('removal of envVar "A" skipped: owned by occ-controller (Apply), kubectl (Update), not by openclaw-selfconfig');
  });
});

describe('SC3 a plan refused before any apply, in the words the request status shows', () => {
  const spec = (extra: Record<string, unknown>) => (parseSelfConfigSpec({ ...base, ...extra }) as { spec: SelfConfigSpec }).spec;
  const instance = (selfConfigure: unknown, extra: Record<string, unknown> = {}): InstanceSnapshot => ({
    name: 'agent-1',
    namespace: 'ns',
    resourceVersion: '42',
    spec: { selfConfigure, ...extra },
    managedFields: [],
  });
  const NO_CONTEXT = { secretBoundEnvNames: [] };

  it.each([
    ['no instance', spec({ addSkills: ['a'] }), null, { phase: 'Failed', reason: 'InstanceNotFound', message: 'OpenClawInstance agent-1 not found' }],
    ['self-configuration off', spec({ addSkills: ['a'] }), instance({ enabled: false, allowedActions: ['skills'] }), { phase: 'Denied', reason: 'SelfConfigureDisabled', message: 'selfConfigure is not enabled on agent-1' }],
    ['selfConfigure that is no object', spec({ addSkills: ['a'] }), instance('yes'), { phase: 'Denied', reason: 'SelfConfigureDisabled', message: 'selfConfigure is not enabled on agent-1' }],
    ['nothing asked', spec({}), instance({ enabled: true, allowedActions: ['skills'] }), { phase: 'Failed', reason: 'NoAction', message: 'the request asks for no change' }],
    [
      'two categories not allowed, named in order',
      spec({ addSkills: ['a'], addWorkspaceFiles: { 'a.md': 'x' }, removeEnvVars: ['A'] }),
      instance({ enabled: true, allowedActions: ['envVars'] }),
      { phase: 'Denied', reason: 'ActionNotAllowed', message: 'not in allowedActions of agent-1: skills, workspaceFiles' },
    ],
    ['allowedActions that is no list', spec({ addSkills: ['a'] }), instance({ enabled: true, allowedActions: 'skills' }), { phase: 'Denied', reason: 'ActionNotAllowed', message: 'not in allowedActions of agent-1: skills' }],
  ] as const)('SC3 %s', (_what, request, live, decision) => {
    expect(planSelfConfig(request, live, NO_CONTEXT)).toEqual(decision);
  });

  it('SC3 only string allowedActions count; a removal of a file counts as workspaceFiles by itself', () => {
    const decided = planSelfConfig(spec({ removeWorkspaceFiles: ['a.md'] }), instance({ enabled: true, allowedActions: [7, 'workspaceFiles'] }), NO_CONTEXT);
    expect(decided.phase).toBe('Apply');
    expect(requestedCategories(spec({ removeWorkspaceFiles: ['a.md'] }))).toEqual(['workspaceFiles']);
    expect(requestedCategories(spec({ addWorkspaceFiles: { 'a.md': 'x' }, removeWorkspaceFiles: ['b.md'] }))).toEqual(['workspaceFiles']);
  });

  it('SG1 the owned body restores what the manager holds, without a resourceVersion precondition', () => {
    const live = instance({ enabled: true, allowedActions: ['skills'] }, { skills: ['a', 'b'] });
    const body = ownedBody(live);
    expect(body.metadata).toEqual({ name: 'agent-1', namespace: 'ns' });
    expect(appliedMessage([])).toBe('applied');
  });
});
