import { describe, expect, it } from 'vitest';
import { auditExportHref, auditFilterFrom, detailEntries, objectHref } from '../lib/audit';

const uuid = '0b0e6c55-8c1a-4f4e-9a43-6f1d2f0c9b11';
const ns = `ns_${uuid}`;

describe('audit details for people', () => {
  it.each([
    [`ns_${uuid}`, null, `/secrets?namespace=ns_${uuid}`],
    [`sec_${uuid}`, ns, `/secrets?namespace=${ns}&id=sec_${uuid}`],
    [`cfg_${uuid}`, ns, `/configurations?namespace=${ns}&id=cfg_${uuid}`],
    [`agt_${uuid}`, ns, `/agents?namespace=${ns}&id=agt_${uuid}`],
    [`prn_${uuid}`, null, `/audit?actorId=prn_${uuid}`],
    [`spn_${uuid}`, ns, `/audit?actorId=spn_${uuid}`],
    [`sec_${uuid}`, null, null],
    [`rev_${uuid}`, ns, null],
    [`bnd_${uuid}`, ns, null],
    [`sro_${uuid}`, ns, null],
  ])('objectHref(%s, %s) is %s', (id, namespaceId, href) => {
    expect(objectHref(id, namespaceId)).toBe(href);
  });

  it('flattens nested objects by dotted key, lists of plain values on one row, lists of objects by index', () => {
    const entries = detailEntries(
      { k8sName: 'occ-a', window: { from: '2026-12-06T00:00:00Z', seconds: 60 }, agents: [`agt_${uuid}`, 'x'], writers: [{ manager: 'kubectl', paths: ['spec.a', 'spec.b'] }], empty: [], none: {}, gone: null },
      ns,
    );
    expect(entries.map((e) => [e.key, e.values.map((v) => v.text).join(', ')])).toEqual([
      ['k8sName', 'occ-a'],
      ['window.from', '2026-12-06T00:00:00Z'],
      ['window.seconds', '60'],
      ['agents', `agt_${uuid}, x`],
      ['writers[0].manager', 'kubectl'],
      ['writers[0].paths', 'spec.a, spec.b'],
      ['empty', 'none'],
      ['none', 'none'],
      ['gone', '—'],
    ]);
    expect(entries[3]!.values.map((v) => v.href)).toEqual([`/agents?namespace=${ns}&id=agt_${uuid}`, null]);
  });

  it('links only strings that are whole ids: an id inside a sentence, or a name that looks like a prefix, stays text', () => {
    const entries = detailEntries({ a: `see sec_${uuid}`, b: 'sec_not-a-uuid', c: `sec_${uuid}` }, ns);
    expect(entries.map((e) => e.values[0]!.href)).toEqual([null, null, `/secrets?namespace=${ns}&id=sec_${uuid}`]);
  });

  it('is bounded: a huge detail shows 40 rows and counts the rest', () => {
    const details = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const entries = detailEntries(details, null);
    expect(entries).toHaveLength(41);
    expect(entries.at(-1)).toEqual({ key: '…', values: [{ text: '60 more rows (in the export)', href: null }] });
  });

  it('counts the rows it leaves out, not the fields: a nested object past the bound is as many rows as it has leaves', () => {
    const details = { ...Object.fromEntries(Array.from({ length: 39 }, (_, i) => [`k${i}`, i])), nested: { a: 1, b: { c: 2, d: [{ e: 3 }, { f: 4 }] } } };
    const entries = detailEntries(details, null);
    expect(entries.slice(39, 40).map((e) => e.key)).toEqual(['nested.a']);
    expect(entries.at(-1)).toEqual({ key: '…', values: [{ text: '3 more rows (in the export)', href: null }] });
  });

  it.each([[{}], [null], [undefined]])('has no rows for empty details (%j)', (details) => {
    expect(detailEntries(details, null)).toEqual([]);
  });

  it('a detail that is not an object still shows', () => {
    expect(detailEntries('plain', null)).toEqual([{ key: 'value', values: [{ text: 'plain', href: null }] }]);
  });

  it.each([
    ['WORKER', { systemActor: 'WORKER' }],
    ['RECONCILER', { systemActor: 'RECONCILER' }],
    ['worker', {}],
    ['CRON', {}],
    ['toString', {}],
  ])('the systemActor deep link %s is read as %j, and exported as it was read', (value, filter) => {
    const read = auditFilterFrom(new URLSearchParams({ systemActor: value }));
    expect(read).toEqual(filter);
    expect(auditExportHref(read)).toBe(Object.keys(filter).length ? `/audit/events.ndjson?systemActor=${value}` : '/audit/events.ndjson');
  });
});
