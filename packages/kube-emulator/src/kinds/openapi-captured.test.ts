import { describe, expect, it } from 'vitest';
import { BUILT_IN_RESOURCES } from '../registry.ts';
import { CAPTURED, capturedSubset, definitionNameOf, referencesIn } from './openapi-captured.ts';

/** Built-in kinds the emulator serves that kube-apiserver 1.20.2 does not (REAL-SERVER-DIFFERENCES.md, D15 and D17). */
const NEWER_THAN_THE_CAPTURE = ['admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding', 'policy/v1 PodDisruptionBudget'];

describe('the captured built-in schemas', () => {
  it('E6 every built-in kind served has its real definition, except the kinds newer than the captured server', () => {
    const missing = BUILT_IN_RESOURCES.filter((type) => definitionNameOf(CAPTURED.definitions, type) === undefined).map((t) => `${t.group}/${t.version} ${t.kind}`);
    expect(missing.sort()).toEqual(NEWER_THAN_THE_CAPTURE);
    expect(CAPTURED.source).toMatch(/kube-apiserver v1\.20\.2/);
  });

  it('E6 the file is closed under $ref and holds nothing the served kinds do not reach', () => {
    for (const [name, definition] of Object.entries(CAPTURED.definitions)) {
      for (const target of referencesIn(definition)) expect(CAPTURED.definitions[target], `${name} → ${target}`).toBeDefined();
    }
    // Recomputing the subset from the file itself gives the file: no stray definition, none lost.
    expect(Object.keys(capturedSubset(CAPTURED.definitions, BUILT_IN_RESOURCES))).toEqual(Object.keys(CAPTURED.definitions));
  });

  it('E6 the subset follows references transitively and refuses a document that refers to what it does not define', () => {
    const kind = { group: 'x.example', version: 'v1', kind: 'Thing', listKind: 'ThingList' };
    const definitions = {
      'example.Thing': { 'x-kubernetes-group-version-kind': [{ group: 'x.example', version: 'v1', kind: 'Thing' }], properties: { spec: { $ref: '#/definitions/example.Spec' } } },
      'example.Spec': { properties: { items: { type: 'array', items: { $ref: '#/definitions/example.Item' } } } },
      'example.Item': { type: 'object' },
      'example.Unrelated': { type: 'object' },
    };
    expect(Object.keys(capturedSubset(definitions, [kind]))).toEqual(['example.Item', 'example.Spec', 'example.Thing']);
    const { 'example.Item': _dropped, ...dangling } = definitions;
    expect(() => capturedSubset(dangling, [kind])).toThrow(/refers to example.Item but does not define it/);
  });
});
