import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envPartOwners, fieldOwnership, foreignDataOwners, isRecordedOutsideChange, managerEntries, outsideChangeMarker } from './field-ownership.ts';

// RC4 D3: a change made outside the product is named by who made it and when. The same object
// reaches the product as JSON (watch caches, CustomObjectsApi) and through client-node's typed
// clients, which turn managedFields times into Dates: both must name the same change, or one
// change is recorded as two versions (and a typed read once named every change by one manager alike).

const DATA = { 'f:data': { 'f:value': {} } };
const ours = 'occ-controller';

const seconds = fc.integer({ min: Date.UTC(2020, 0, 1) / 1000, max: Date.UTC(2035, 0, 1) / 1000 }).map((s) => new Date(s * 1000));
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const manager = fc.constantFrom('kubectl-edit', 'kubectl-patch', 'kubectl-client-side-apply', 'helm', 'argocd-controller');
const entries = fc.uniqueArray(fc.record({ manager, operation: fc.constantFrom('Apply', 'Update'), time: seconds, data: fc.boolean() }), { selector: (e) => `${e.manager}/${e.operation}`, minLength: 1, maxLength: 4 });

type Entry = { manager: string; operation: string; time: string | Date; fieldsType: string; fieldsV1: Record<string, unknown> };
const asManagedFields = (list: Array<{ manager: string; operation: string; time: Date; data: boolean }>, typed: boolean): Entry[] =>
  [{ manager: ours, operation: 'Update', time: typed ? new Date(0) : '1970-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': {} } } } as Entry].concat(
    list.map((e) => ({ manager: e.manager, operation: e.operation, time: (typed ? e.time : rfc3339(e.time)) as never, fieldsType: 'FieldsV1', fieldsV1: e.data ? DATA : { 'f:metadata': { 'f:annotations': {} } } })),
  );

describe('outside changes (RC4 D3)', () => {
  it('RC4 D3 a Secret read as JSON and the same Secret read through a typed client name the same change (generated managedFields)', () => {
    fc.assert(
      fc.property(entries, (list) => {
        const raw = foreignDataOwners(asManagedFields(list, false), ours);
        const typed = foreignDataOwners(asManagedFields(list, true), ours);
        expect(typed).toEqual(raw);
        expect(outsideChangeMarker(typed)).toBe(outsideChangeMarker(raw));
        expect(raw.map((w) => w.manager).sort()).toEqual(list.filter((e) => e.data).map((e) => e.manager).sort());
        for (const w of typed) expect(w.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      }),
    );
  });

  it('RC4 a second change by the same manager at another second is another change, however the object was read', () => {
    fc.assert(
      fc.property(manager, seconds, fc.integer({ min: 1, max: 86_400 }), fc.boolean(), (m, first, later, typed) => {
        const at = (d: Date) => foreignDataOwners(asManagedFields([{ manager: m, operation: 'Update', time: d, data: true }], typed), ours);
        const one = at(first);
        const two = at(new Date(first.getTime() + later * 1000));
        expect(outsideChangeMarker(two)).not.toBe(outsideChangeMarker(one));
        expect(isRecordedOutsideChange(outsideChangeMarker(one), one)).toBe(true);
        expect(isRecordedOutsideChange(outsideChangeMarker(one), two)).toBe(false);
      }),
    );
  });

  it('RC4 a marker recorded without times (before typed reads kept them) still names its change, and only that one', () => {
    const writers = foreignDataOwners(asManagedFields([{ manager: 'kubectl-edit', operation: 'Update', time: new Date(Date.UTC(2026, 11, 2)), data: true }], true), ours);
    const legacy = 'kubectl-edit/Update/';
    expect(isRecordedOutsideChange(legacy, writers)).toBe(true);
    const other = foreignDataOwners(asManagedFields([{ manager: 'helm', operation: 'Update', time: new Date(Date.UTC(2026, 11, 2)), data: true }], true), ours);
    expect(isRecordedOutsideChange(legacy, other)).toBe(false);
    expect(isRecordedOutsideChange(null, writers)).toBe(false);
  });

  it('managerEntries reads an invalid or missing time as unknown', () => {
    expect(managerEntries([{ manager: 'm', operation: 'Update', time: new Date('x') }, { manager: 'n', operation: 'Apply' }]).map((e) => e.time)).toEqual([null, null]);
  });
});

describe('SC7 RC3 who owns each item and each env part (written out)', () => {
  // One instance's managedFields with every shape the server can record under spec: skills (set
  // values, one not a string), env entries by name (one keyed by something else, one a plain
  // field), workspace files, config keys at depth, an array inside the config; and entries to skip.
  const spec = (fields: Record<string, unknown>) => ({ 'f:spec': fields });
  const managedFields = [
    null,
    'not an entry',
    ['nor', 'this'],
    { operation: 'Apply', fieldsV1: spec({ 'f:skills': { 'v:"nameless"': {} } }) },
    { manager: 'status-writer', operation: 'Update', subresource: 'status', fieldsV1: spec({ 'f:skills': { 'v:"from-status"': {} } }) },
    {
      manager: 'occ-controller',
      operation: 'Apply',
      subresource: '',
      fieldsV1: spec({
        'f:skills': { 'v:"b"': {}, 'v:"a"': {}, 'v:3': {} },
        'f:env': {
          'k:{"name":"B"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { 'f:secretKeyRef': { 'f:name': {} } } },
          'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} },
          'k:{"other":"x"}': { 'f:value': {} },
          'f:plain': {},
        },
        'f:workspace': { 'f:initialFiles': { 'f:b.md': {}, 'f:a.md': {}, 'k:{"x":1}': {} } },
        'f:config': { 'f:raw': { 'f:x': { 'f:y': {} }, 'f:a.b': {}, 'f:arr': { 'i:0': {} } } },
      }),
    },
    { manager: 'occ-controller', operation: 'Update', fieldsV1: spec({ 'f:skills': { 'v:"a"': {} }, 'f:env': { 'k:{"name":"B"}': { 'f:valueFrom': {} } } }) },
    { manager: 'occ-controller', operation: 'Apply', fieldsV1: spec({ 'f:skills': { 'v:"a"': {} }, 'f:env': { 'k:{"name":"B"}': { 'f:valueFrom': {} } } }) },
    { manager: 'kubectl-edit', operation: 'Update', fieldsV1: spec({ 'f:env': { 'k:{"name":"A"}': { 'f:valueFrom': {}, 'f:value': {} }, 'k:{"name":"C"}': { '.': {} } } }) },
    { manager: 'helm', operation: 'Apply', fieldsV1: spec({ 'f:env': { 'k:{"name":"A"}': { 'f:value': {} } } }) },
    // Another list keyed by name, with the same shape below spec: not env.
    { manager: 'kubectl-edit', operation: 'Update', fieldsV1: spec({ 'f:volumes': { 'k:{"name":"V"}': { 'f:value': {}, 'f:valueFrom': {} } } }) },
  ];
  const apply = (manager: string) => ({ manager, operation: 'Apply' });
  const update = (manager: string) => ({ manager, operation: 'Update' });

  it('SC7 fieldOwnership: each item once, ordered by kind then name, each owner once per manager and operation; entries of a subresource, without a manager or not objects are skipped', () => {
    // `x` holds only a child (no '.' of its own), so only x.y is owned; `arr` holds a list element, not a key.
    expect(fieldOwnership(managedFields).map((i) => [i.kind, i.name, i.owners])).toEqual([
      ['skill', 'a', [apply('occ-controller'), update('occ-controller')]],
      ['skill', 'b', [apply('occ-controller')]],
      ['envVar', 'A', [apply('occ-controller'), update('kubectl-edit'), apply('helm')]],
      ['envVar', 'B', [apply('occ-controller'), update('occ-controller')]],
      ['envVar', 'C', [update('kubectl-edit')]],
      ['workspaceFile', 'a.md', [apply('occ-controller')]],
      ['workspaceFile', 'b.md', [apply('occ-controller')]],
      ['config', '"a.b"', [apply('occ-controller')]],
      ['config', 'x.y', [apply('occ-controller')]],
    ]);
  });

  it('RC3 envPartOwners: who owns each env var\'s literal and its reference, at or below it, each owner once', () => {
    expect(Object.fromEntries(envPartOwners(managedFields))).toEqual({
      A: { value: [apply('occ-controller'), update('kubectl-edit'), apply('helm')], valueFrom: [update('kubectl-edit')] },
      B: { value: [], valueFrom: [apply('occ-controller'), update('occ-controller')] },
    });
    expect(envPartOwners('not a list').size).toBe(0);
  });
});

describe('RC4 D3 whose change a Secret\'s data is, exactly', () => {
  const entry = (manager: string, operation: string, fieldsV1: Record<string, unknown>, time = '2026-12-01T10:00:00Z') => ({ manager, operation, time, fieldsV1 });
  it('RC4 D3 a foreign owner is a manager other than ours holding the data map or a key of it, whatever else it holds', () => {
    const owners = foreignDataOwners(
      [
        entry('occ-controller', 'Apply', { 'f:data': { 'f:value': {} } }),
        entry('kubectl-edit', 'Update', { 'f:metadata': { 'f:labels': {} }, 'f:data': { 'f:value': {} } }),
        entry('helm', 'Apply', { 'f:data': {} }),
        entry('kubectl-label', 'Update', { 'f:metadata': { 'f:labels': {} } }),
        entry('datadog', 'Update', { 'f:dataSources': {} }),
      ],
      'occ-controller',
    );
    expect(owners).toEqual([
      { manager: 'kubectl-edit', operation: 'Update', time: '2026-12-01T10:00:00Z' },
      { manager: 'helm', operation: 'Apply', time: '2026-12-01T10:00:00Z' },
    ]);
    expect(outsideChangeMarker(owners)).toBe('helm/Apply/2026-12-01T10:00:00Z,kubectl-edit/Update/2026-12-01T10:00:00Z');
    expect(outsideChangeMarker([{ manager: 'm', operation: 'Update', time: null }])).toBe('m/Update/');
    expect(isRecordedOutsideChange(null, [])).toBe(false);
  });
});
