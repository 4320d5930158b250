import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SECRET_COLUMNS, toPartialSecretView, toSecretView, type SecretRow } from './secrets.ts';

// A list that reads only the columns its selection needs builds partial views: every field the
// columns read make answers as the full view does, and every other field is absent (through
// GraphQL, a non-null field then answers an error; never a value of another row or a stale one).

const row: SecretRow = {
  id: 'sec_1',
  namespaceId: 'ns_1',
  name: 'token',
  version: 3,
  driverId: 'kubernetes',
  backendNamespace: 'occ-a',
  backendName: 'occ-token',
  backendKey: 'value',
  backendUid: 'uid-1',
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-02T00:00:00Z'),
};
const full = toSecretView(row);
const FIELD_COLUMNS: Record<string, Array<keyof SecretRow>> = {
  name: ['name'],
  version: ['version'],
  driverId: ['driverId'],
  backend: ['backendNamespace', 'backendName', 'backendKey', 'backendUid'],
  createdAt: ['createdAt'],
  updatedAt: ['updatedAt'],
};

describe('P3 partial secret views', () => {
  it('P3 the view covers every field of the full view', () => {
    expect(Object.keys(full).sort()).toEqual(['id', 'namespaceId', ...Object.keys(FIELD_COLUMNS)].sort());
  });

  it('P3 for any columns read, a field answers as the full view when its columns were read and is absent otherwise', () => {
    const optional = SECRET_COLUMNS.filter((c) => c !== 'id' && c !== 'namespaceId');
    fc.assert(
      fc.property(fc.subarray(optional), (columns) => {
        const picked = { id: row.id, namespaceId: row.namespaceId, ...Object.fromEntries(columns.map((c) => [c, row[c]])) };
        const view = toPartialSecretView(picked);
        expect(view.id).toBe(row.id);
        expect(view.namespaceId).toBe(row.namespaceId);
        for (const [field, needs] of Object.entries(FIELD_COLUMNS)) {
          const value = (view as unknown as Record<string, unknown>)[field];
          if (needs.every((c) => (columns as Array<keyof SecretRow>).includes(c))) expect(value).toEqual((full as unknown as Record<string, unknown>)[field]);
          else expect(field in view).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
