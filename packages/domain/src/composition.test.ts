import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './content-hash.ts';
import { describeTakeover, leafPaths, literalsToRelease, plannedTakeovers, yieldingToAgent, type Takeover } from './composition.ts';
import { configPathString } from './field-ownership.ts';
import { fieldElement, keyElement, pathOf, toFieldsV1 } from './fieldsv1.ts';
import { SELF_CONFIG_MANAGER, setAt, valueAt } from './selfconfig.ts';

type Doc = Record<string, unknown>;

const configPath = (path: string[]) => pathOf(['f:spec', 'f:config', 'f:raw', ...path.map(fieldElement)]);
const envPath = (name: string, part: string) => pathOf(['f:spec', 'f:env', keyElement({ name }, ['name']), fieldElement(part)]);
const filePath = (path: string) => pathOf(['f:spec', 'f:workspace', 'f:initialFiles', fieldElement(path)]);

function entry(manager: string, paths: string[], time = '2026-12-01T10:00:00Z') {
  return { manager, operation: 'Apply', time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(new Set(paths)) };
}

describe('what a deploy takes from the agent (RC3)', () => {
  const live = {
    spec: {
      env: [{ name: 'X', value: 'lit' }, { name: 'Y', value: 'keep' }],
      workspace: { initialFiles: { 'a.md': 'agent', 'b.md': 'same' } },
      config: { raw: { tools: { x: 2, y: 3 }, model: 'm', list: [1, 2] } },
    },
    managedFields: [
      entry(SELF_CONFIG_MANAGER, [envPath('X', 'name'), envPath('X', 'value'), envPath('Y', 'name'), envPath('Y', 'value'), filePath('a.md'), filePath('b.md'), configPath(['tools', 'x']), configPath(['list'])]),
      entry('occ-controller', [configPath(['tools', 'y']), configPath(['model'])]),
    ],
  };

  it('RC3 a key the agent set and the revision sets to another value is replaced; one set to the same value, or one the agent does not hold, is not', () => {
    const body = { spec: { config: { raw: { tools: { x: 1, y: 9 }, model: 'm2', list: [1, 2] } } } };
    const t = plannedTakeovers(live, body);
    expect(t.map((x) => [x.kind, x.name, x.action])).toEqual([['config', 'tools.x', 'replace']]);
    expect(t[0]!.setAt).toBe('2026-12-01T10:00:00Z');
    expect(describeTakeover(t[0]!)).toBe('config.tools.x, set by the agent on 2026-12-01T10:00:00Z, will be replaced');
  });

  it('RC3 binding a name the agent set as a literal is a takeover that releases the literal first', () => {
    const body = { spec: { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }] } };
    const t = plannedTakeovers(live, body);
    expect(t.map((x) => [x.kind, x.name, x.action])).toEqual([['envVar', 'X', 'bind']]);
    expect(literalsToRelease(t)).toEqual(['X']);
    expect(describeTakeover(t[0]!)).toContain('env X, set by the agent as a literal');
  });

  it('RC3 a workspace file the agent wrote is replaced only when the revision writes other content', () => {
    const t = plannedTakeovers(live, { spec: { workspace: { initialFiles: { 'a.md': 'revision', 'b.md': 'same', 'c.md': 'new' } } } });
    expect(t.map((x) => [x.kind, x.name])).toEqual([['workspaceFile', 'a.md']]);
  });

  it('RC3 a takeover names every write of the agent as its owners and the newest time among them; env lists with items that are not objects are read past', () => {
    const agentWrites = [
      { ...entry(SELF_CONFIG_MANAGER, [envPath('X', 'name'), envPath('X', 'value')], '2026-12-03T09:00:00Z'), operation: 'Apply' },
      { ...entry(SELF_CONFIG_MANAGER, [filePath('a.md')], '2026-12-01T10:00:00Z'), operation: 'Update' },
      { ...entry(SELF_CONFIG_MANAGER, [configPath(['tools', 'x'])]), time: undefined },
      entry('occ-controller', [configPath(['model'])], '2026-12-09T00:00:00Z'),
    ];
    const messy = { spec: { ...live.spec, env: ['junk', null, { name: 'X', value: 'lit' }, 7] }, managedFields: agentWrites };
    const body = { spec: { env: [null, 'junk', { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }, { value: 'no name' }], workspace: { initialFiles: { 'a.md': 'other' } } } };
    const owners = [
      { manager: SELF_CONFIG_MANAGER, operation: 'Apply' },
      { manager: SELF_CONFIG_MANAGER, operation: 'Update' },
      { manager: SELF_CONFIG_MANAGER, operation: 'Apply' },
    ];
    expect(plannedTakeovers(messy as never, body as never)).toEqual([
      { kind: 'envVar', name: 'X', action: 'bind', setAt: '2026-12-03T09:00:00Z', owners },
      { kind: 'workspaceFile', name: 'a.md', action: 'replace', setAt: '2026-12-03T09:00:00Z', owners },
    ]);
    // A name the agent holds, bound by the body, but not a literal on the instance: nothing to release.
    const referenced = { ...messy, spec: { ...messy.spec, env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'other', key: 'value' } } }] } };
    expect(plannedTakeovers(referenced as never, { spec: { env: body.spec.env.slice(2, 3) } } as never)).toEqual([]);
    // A literal the agent does not hold (the controller's Z, the file z.md), bound or rewritten by the
    // body, is no takeover; nor is the agent's X when the instance holds it as a reference behind Z.
    const others = {
      spec: { env: [{ name: 'Z', value: 'controller literal' }, { name: 'X', valueFrom: { secretKeyRef: { name: 'old', key: 'value' } } }], workspace: { initialFiles: { 'z.md': 'controller' } } },
      managedFields: agentWrites,
    };
    const bindBoth = { spec: { env: [{ name: 'Z', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }, { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'value' } } }], workspace: { initialFiles: { 'z.md': 'revision' } } } };
    expect(plannedTakeovers(others as never, bindBoth as never)).toEqual([]);
    // Without a time on any write, setAt is null.
    const timeless = { ...messy, managedFields: agentWrites.slice(0, 2).map((e) => ({ ...e, time: undefined })) };
    expect(plannedTakeovers(timeless as never, body as never).map((t) => t.setAt)).toEqual([null, null]);
  });

  it.each([
    [{ kind: 'config', name: 'tools.x', action: 'replace', setAt: '2026-12-01T10:00:00Z' }, false, 'config.tools.x, set by the agent on 2026-12-01T10:00:00Z, will be replaced'],
    [{ kind: 'config', name: 'tools.x', action: 'replace', setAt: null }, true, 'config.tools.x, set by the agent, was replaced'],
    [{ kind: 'envVar', name: 'X', action: 'bind', setAt: null }, false, 'env X, set by the agent as a literal, will be bound to its secret instead'],
    [{ kind: 'envVar', name: 'X', action: 'bind', setAt: '2026-12-02T00:00:00Z' }, true, 'env X, set by the agent as a literal on 2026-12-02T00:00:00Z, was bound to its secret instead'],
    [{ kind: 'workspaceFile', name: 'a.md', action: 'replace', setAt: null }, false, 'workspace file a.md, set by the agent, will be replaced'],
  ] as const)('RC3 describeTakeover(%j, done %s) says %j', (takeover, done, line) => {
    expect(describeTakeover({ ...takeover, owners: [] } as Takeover, done)).toBe(line);
  });

  it('RC3 only env bindings release literals; a config key held by two of the agent\'s writes is one takeover', () => {
    const t = (kind: Takeover['kind'], action: Takeover['action'], name: string): Takeover => ({ kind, name, action, setAt: null, owners: [] });
    expect(literalsToRelease([t('config', 'replace', 'A'), t('envVar', 'bind', 'X'), t('workspaceFile', 'replace', 'B'), t('envVar', 'replace', 'Y'), t('config', 'bind', 'C')])).toEqual(['X']);
    const twice = { spec: live.spec, managedFields: [entry(SELF_CONFIG_MANAGER, [configPath(['tools', 'x'])]), { ...entry(SELF_CONFIG_MANAGER, [configPath(['tools', 'x'])]), operation: 'Update' }] };
    expect(plannedTakeovers(twice, { spec: { config: { raw: { tools: { x: 9 } } } } }).map((x) => x.name)).toEqual(['tools.x']);
  });

  it('RC3 no instance yet, or an agent that changed nothing, takes nothing', () => {
    expect(plannedTakeovers(null, { spec: { config: { raw: { a: 1 } } } })).toEqual([]);
    expect(plannedTakeovers({ spec: live.spec, managedFields: [live.managedFields[1]] }, { spec: { config: { raw: { tools: { x: 1 } } } } })).toEqual([]);
  });

  it('RC3 a takeover is exactly an agent key whose value the apply changes or removes (generated documents)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'tools', 'x.y');
    const leaf = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('s', 't'), fc.constant([1, 2]));
    const doc: fc.Arbitrary<Doc> = fc.letrec<{ doc: Doc }>((tie) => ({
      doc: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, tie('doc')), { maxKeys: 3 }) as fc.Arbitrary<Doc>,
    })).doc;
    fc.assert(
      fc.property(doc, doc, (agentDoc, revisionDoc) => {
        const agentPaths = leafPaths(agentDoc);
        const liveRaw: Doc = {};
        for (const p of agentPaths) setAt(liveRaw, p, valueAt(agentDoc, p));
        const instance = { spec: { config: { raw: liveRaw } }, managedFields: [entry(SELF_CONFIG_MANAGER, agentPaths.map(configPath))] };
        // What the instance holds after the revision's apply, forced: each of its leaves wins.
        const after = JSON.parse(JSON.stringify(liveRaw)) as Doc;
        for (const p of leafPaths(revisionDoc)) setAt(after, p, valueAt(revisionDoc, p));
        const lost = agentPaths.filter((p) => canonicalJson(valueAt(after, p)) !== canonicalJson(valueAt(liveRaw, p))).map(configPathString).sort();
        const taken = plannedTakeovers(instance, { spec: { config: { raw: revisionDoc } } }).map((t) => t.name).sort();
        expect(taken).toEqual(lost);
      }),
      { numRuns: 400 },
    );
  });
});

describe('yieldingToAgent (RC3 RC4: reapplying a revision leaves what the agent holds)', () => {
  const take = (kind: Takeover['kind'], name: string, path?: string[]): Takeover => ({ kind, name, ...(path ? { path } : {}), action: 'replace', setAt: null, owners: [] });
  const related = (a: readonly string[], b: readonly string[]) => a.slice(0, b.length).every((k, i) => k === b[i]) || b.slice(0, a.length).every((k, i) => k === a[i]);

  it('RC3 without takeovers the body is sent as it is, and the body passed in is never changed', () => {
    const body = { apiVersion: 'v', spec: { env: [{ name: 'A', value: '1' }], workspace: { initialFiles: { 'a.md': 'x' } }, config: { raw: { a: { b: 1 } } } } };
    const before = structuredClone(body);
    const out = yieldingToAgent(body, []);
    expect(out).toEqual(before);
    expect(out).not.toBe(body);
    yieldingToAgent(body, [take('envVar', 'A'), take('workspaceFile', 'a.md'), take('config', 'a.b', ['a', 'b'])]);
    expect(body).toEqual(before);
  });

  it('RC3 a takeover removes only items of its own kind: a config key, an env name and a file path that share a name stay apart', () => {
    const body = { spec: { env: [{ name: 'X', value: 'v' }], workspace: { initialFiles: { X: 'f' } }, config: { raw: { X: 1, Y: 2 } } } };
    const t = (kind: Takeover['kind'], extra: Partial<Takeover> = {}): Takeover => ({ kind, name: 'X', action: 'replace', setAt: null, owners: [], ...extra });
    expect(yieldingToAgent(body, [t('config', { path: ['X'] })])).toEqual({ spec: { env: [{ name: 'X', value: 'v' }], workspace: { initialFiles: { X: 'f' } }, config: { raw: { Y: 2 } } } });
    expect(yieldingToAgent(body, [t('envVar', { path: ['X'] })])).toEqual({ spec: { env: [], workspace: { initialFiles: { X: 'f' } }, config: { raw: { X: 1, Y: 2 } } } });
    expect(yieldingToAgent(body, [t('workspaceFile', { path: ['X'] })])).toEqual({ spec: { env: [{ name: 'X', value: 'v' }], workspace: { initialFiles: {} }, config: { raw: { X: 1, Y: 2 } } } });
  });

  it('RC3 an env or workspace-file takeover removes exactly that item; a body without env, files or config is left alone', () => {
    const body = { spec: { env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: {} }, 'odd'], workspace: { initialFiles: { 'a.md': 'x', 'b.md': 'y' } } } };
    expect(yieldingToAgent(body, [take('envVar', 'A'), take('workspaceFile', 'b.md')])).toEqual({ spec: { env: [{ name: 'B', valueFrom: {} }, 'odd'], workspace: { initialFiles: { 'a.md': 'x' } } } });
    for (const bare of [{}, { spec: {} }, { spec: { env: 'x', workspace: [], config: { raw: 'y' } } }]) {
      expect(yieldingToAgent(bare as never, [take('envVar', 'A'), take('workspaceFile', 'a.md'), take('config', 'a', ['a'])])).toEqual(bare);
    }
    // A config takeover without its path names nothing to remove.
    expect(yieldingToAgent({ spec: { config: { raw: { a: 1 } } } }, [take('config', 'a')])).toEqual({ spec: { config: { raw: { a: 1 } } } });
  });

  it('RC3 RC4 a config takeover removes every leaf at, below or above its key, and the objects that removal empties; every other leaf stays as it was (generated)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd');
    const raw = fc.letrec((tie) => ({ doc: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string(), tie('doc')), { maxKeys: 4 }) })).doc as fc.Arbitrary<Record<string, unknown>>;
    fc.assert(
      fc.property(raw, fc.array(key, { minLength: 1, maxLength: 4 }), (doc, path) => {
        const out = yieldingToAgent({ spec: { config: { raw: doc as never } } }, [take('config', path.join('.'), path)]);
        const kept = (out.spec as { config: { raw: Record<string, unknown> } }).config.raw;
        const before = leafPaths(doc as never);
        const after = leafPaths(kept as never);
        expect(after).toEqual(before.filter((leaf) => !related(leaf, path)));
        for (const leaf of after) expect(valueAt(kept as never, leaf)).toEqual(valueAt(doc as never, leaf));
        // No object left empty by the removal (one empty in the body stays: it held no leaf).
        const emptied = (node: unknown, orig: unknown): boolean =>
          typeof node === 'object' && node !== null && !Array.isArray(node)
            ? (Object.keys(node).length === 0 && Object.keys(orig as object).length > 0) || Object.entries(node).some(([k, v]) => emptied(v, (orig as Record<string, unknown>)[k]))
            : false;
        expect(Object.entries(kept).some(([k, v]) => emptied(v, doc[k]))).toBe(false);
      }),
    );
  });
});

