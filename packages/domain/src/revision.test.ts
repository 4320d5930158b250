import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canTransition, freezeRevision, gatewayBindings, REVISION_STATES, revisionSecretIds, TERMINAL_REVISION_STATES, type FreezeInput } from './revision.ts';

const ns = 'ns_00000000-0000-4000-8000-000000000001';
const sec = (n: number) => `sec_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function input(overrides: Partial<FreezeInput> = {}): FreezeInput {
  return {
    agent: {
      id: 'agt_00000000-0000-4000-8000-000000000009',
      namespaceId: ns,
      servicePrincipalId: 'spn_00000000-0000-4000-8000-000000000009',
      harnessProvider: 'openai',
      harnessSecretId: sec(3),
      selfConfigure: { enabled: true, allowedActions: ['skills', 'config'] },
    },
    configuration: {
      id: 'cfg_00000000-0000-4000-8000-000000000005',
      namespaceId: ns,
      generation: 4,
      values: { channels: { telegram: { botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
      bindings: [
        { envName: 'TELEGRAM_TOKEN', secretId: sec(1), deliveryType: 'env' },
        { envName: 'GITHUB_TOKEN', secretId: sec(2), deliveryType: 'env' },
      ],
    },
    secretVersions: new Map([
      [sec(1), 2],
      [sec(2), 1],
      [sec(3), 7],
    ]),
    secretDriverId: 'kubernetes',
    previousNumber: 2,
    createdById: 'prn_00000000-0000-4000-8000-000000000001',
    ...overrides,
  };
}

describe('freezeRevision', () => {
  it('D4 freezes normalized references, versions, the driver identity and the next number', () => {
    const r = freezeRevision(input());
    expect(r.number).toBe(3);
    expect(r.secretDriverId).toBe('kubernetes');
    expect(r.configuration).toEqual({ id: 'cfg_00000000-0000-4000-8000-000000000005', generation: 4, values: input().configuration!.values });
    expect(r.secrets).toEqual([
      { purpose: 'binding', envName: 'GITHUB_TOKEN', source: { kind: 'secret', namespaceId: ns, id: sec(2) }, version: 1 },
      { purpose: 'binding', envName: 'TELEGRAM_TOKEN', source: { kind: 'secret', namespaceId: ns, id: sec(1) }, version: 2 },
      { purpose: 'harnessAuth', envName: 'OPENAI_API_KEY', source: { kind: 'secret', namespaceId: ns, id: sec(3) }, version: 7 },
    ]);
    expect(r.harnessAuth).toEqual({ provider: 'openai', envName: 'OPENAI_API_KEY', source: { kind: 'secret', namespaceId: ns, id: sec(3) } });
    expect(gatewayBindings(r).map((b) => b.envName)).toEqual(['GITHUB_TOKEN', 'TELEGRAM_TOKEN']);
    expect(revisionSecretIds(r)).toEqual([sec(2), sec(1), sec(3)]);
  });

  it('D4 the values snapshot shares nothing with the configuration it was read from', () => {
    const given = input();
    const r = freezeRevision(given);
    (given.configuration!.values as { channels: Record<string, unknown> }).channels.extra = { enabled: true };
    expect(r.configuration!.values).not.toHaveProperty('channels.extra');
  });

  it('D4 a revision holds no locator field, whatever the rows it was frozen from carry', () => {
    const r = freezeRevision(input());
    const text = JSON.stringify(r);
    for (const word of ['backendName', 'backendUid', 'k8sNamespace', 'uid', '"name"']) expect(text).not.toContain(word);
  });

  it('D4 refuses a foreign configuration, an unknown provider and a missing version (bugs, not inputs)', () => {
    expect(() => freezeRevision(input({ configuration: { ...input().configuration!, namespaceId: 'ns_other' } }))).toThrow(/another namespace/);
    expect(() => freezeRevision(input({ agent: { ...input().agent, harnessProvider: 'nobody' } }))).toThrow(/unknown harness provider/);
    expect(() => freezeRevision(input({ secretVersions: new Map() }))).toThrow(/no version/);
  });

  it('D4 no configuration and no harnessAuth freezes an empty reference set', () => {
    const r = freezeRevision(input({ configuration: null, agent: { ...input().agent, harnessProvider: null, harnessSecretId: null } }));
    expect(r.secrets).toEqual([]);
    expect(r.harnessAuth).toBeNull();
    expect(r.configuration).toBeNull();
  });

  it('D4 freezing is deterministic: binding order in the input does not matter', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(input().configuration!.bindings as Array<{ envName: string; secretId: string; deliveryType: string }>, { minLength: 2, maxLength: 2 }), (bindings) => {
        const r = freezeRevision(input({ configuration: { ...input().configuration!, bindings } }));
        expect(r).toEqual(freezeRevision(input()));
      }),
    );
  });
});

describe('revision states', () => {
  it('W1 terminal states have no way out, and the happy path is queued → preparing → prepared → activating → active', () => {
    for (const from of TERMINAL_REVISION_STATES) for (const to of REVISION_STATES) expect(canTransition(from, to)).toBe(false);
    const path = ['queued', 'preparing', 'prepared', 'activating', 'active'] as const;
    for (let i = 0; i + 1 < path.length; i++) expect(canTransition(path[i]!, path[i + 1]!)).toBe(true);
    expect(canTransition('active', 'superseded')).toBe(true);
    expect(canTransition('queued', 'active')).toBe(false);
  });
});
