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

