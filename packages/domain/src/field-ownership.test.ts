import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foreignDataOwners, isRecordedOutsideChange, managerEntries, outsideChangeMarker } from './field-ownership.ts';

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
