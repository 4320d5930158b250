import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { covers } from './child-drift.ts';
import { leafPaths } from './composition.ts';
import { missingChannelBindings } from './configuration.ts';
import { canonicalJson, canonicalJsonIndented } from './content-hash.ts';
import { fieldOwnership } from './field-ownership.ts';
import { fromFieldsV1, toFieldsV1 } from './fieldsv1.ts';
import { renderGateway } from './gateway-render.ts';
import { planSelfConfig, parseSelfConfigSpec, type SelfConfigSpec } from './selfconfig.ts';

// SG5: no walk of the domain over request or instance JSON recurses, so no document a
// server accepts (a real one takes 10,000 levels) can overflow the stack; and the iterative walks
// say exactly what the recursive ones said, or every gateway's ConfigMap would be renamed.

/** The recursive writers these replaced, kept here as the reference. */
function recursiveCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : recursiveCanonical(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${recursiveCanonical(v)}`).join(',')}}`;
}

const DEEP = 10_000;
const RENDER_DEPTH = 3_000;
function deep(levels: number, leaf: unknown = 1): Record<string, unknown> {
  let node: Record<string, unknown> = { a: leaf };
  for (let i = 1; i < levels; i++) node = { a: node };
  return node;
}

describe('SG5 the domain walks over instance JSON are iterative', () => {
  it('SG5 canonicalJson and its indented form write what the recursive writer and JSON.stringify wrote (generated)', () => {
    const keys = fc.oneof(fc.string(), fc.constantFrom('0', '1', '9', '10', '01', '4294967294', '4294967295', 'a', 'B', '-1'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), fc.array(tie('value')), fc.dictionary(keys, tie('value'))),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(recursiveCanonical(value));
        expect(canonicalJsonIndented(value)).toBe(JSON.stringify(JSON.parse(recursiveCanonical(value)), null, 2));
      }),
      { numRuns: 500 },
    );
  });

  it(`SG5 ${DEEP.toLocaleString('en')} levels: canonical text, FieldsV1 both ways, leaf paths, covers, channel bindings, a gateway rendering and a SelfConfig plan`, () => {
    const doc = deep(DEEP);
    expect(canonicalJson(doc).length).toBe(DEEP * 6 + 1);
    const path = Array.from({ length: DEEP }, () => 'f:a').join('\u0000');
    const fields = toFieldsV1(new Set([path]));
    expect(fromFieldsV1(fields)).toEqual(new Set([path]));
    expect(leafPaths(doc)).toHaveLength(1);
    expect(covers(doc, deep(DEEP))).toBe(true);
    expect(covers(doc, deep(DEEP, 2))).toBe(false);
    expect(missingChannelBindings({ channels: { c: deep(DEEP, { source: 'env', id: 'X' }) } }, [])).toHaveLength(1);
    // The indented openclaw.json grows with the square of the depth (2 spaces a level): a gateway is
    // rendered at a depth whose text still fits in memory, past where JSON.stringify gave up.
    const rendered = deep(RENDER_DEPTH);
    expect(canonicalJsonIndented(rendered).startsWith('{\n  "a": {\n    "a"')).toBe(true);
    const instance = { metadata: { name: 'agent-1', namespace: 'ns', uid: 'u', labels: {} }, spec: { config: { raw: rendered } } };
    expect(renderGateway(instance).configMap).toBeTruthy();
    const managedFields = [{ manager: 'openclaw-selfconfig', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:config': { 'f:raw': fields } } } }];
    expect(fieldOwnership(managedFields)).toBeTruthy();
    const parsed = parseSelfConfigSpec({ instanceRef: 'agent-1', addSkills: ['x'] }) as { spec: SelfConfigSpec };
    const plan = planSelfConfig(parsed.spec, { name: 'agent-1', namespace: 'ns', resourceVersion: '1', spec: { config: { raw: doc }, selfConfigure: { enabled: true, allowedActions: ['skills'] } }, managedFields }, { secretBoundEnvNames: [] });
    expect(plan.phase).toBe('Apply');
  }, 60_000);
});
