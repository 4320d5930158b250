import fc from 'fast-check';
import { parseGrid } from './lifecycle-grid.test-support.ts';
import { describe, expect, it } from 'vitest';
import {
  freezeRevision,
  gatewayBindings,
  REVISION_EVENTS,
  REVISION_STATES,
  revisionMove,
  revisionSecretIds,
  revisionTransition,
  TERMINAL_REVISION_STATES,
  type FreezeInput,
  type RevisionEvent,
  type RevisionState,
} from './revision.ts';

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

  it('D4 bindings are frozen in env-name order whatever order they come in; approval categories sorted', () => {
    const names = ['DELTA', 'ALPHA', 'CHARLIE', 'BRAVO', 'ECHO'];
    const bindings = names.map((envName, i) => ({ envName, secretId: sec(10 + i), deliveryType: 'env' }));
    const versions = new Map([...bindings.map((b) => [b.secretId, 1] as [string, number]), [sec(3), 7]]);
    for (const order of [bindings, [...bindings].reverse()]) {
      const r = freezeRevision(input({ configuration: { ...input().configuration!, bindings: order }, secretVersions: versions }));
      expect(gatewayBindings(r).map((b) => b.envName)).toEqual(['ALPHA', 'BRAVO', 'CHARLIE', 'DELTA', 'ECHO']);
    }
    const agent = { ...input().agent, selfConfigure: { enabled: true, allowedActions: ['skills'], approval: ['skills', 'config'] } };
    expect(freezeRevision(input({ agent })).selfConfigure).toEqual({ enabled: true, allowedActions: ['skills'], approval: ['config', 'skills'] });
  });

  it('D4 values that are not an object freeze as {}; a delivery other than env and a provider without a secret are handled', () => {
    for (const values of [null, [1, 2], 'text', 7]) {
      expect(freezeRevision(input({ configuration: { ...input().configuration!, values } })).configuration!.values).toEqual({});
    }
    const file = { ...input().configuration!, bindings: [{ envName: 'A', secretId: sec(1), deliveryType: 'file' }] };
    expect(() => freezeRevision(input({ configuration: file }))).toThrow('unsupported delivery file');
    // A provider named without its secret (or a secret without its provider) delivers no model credential.
    for (const harness of [{ harnessProvider: 'openai', harnessSecretId: null }, { harnessProvider: null, harnessSecretId: sec(3) }]) {
      const r = freezeRevision(input({ agent: { ...input().agent, ...harness } }));
      expect(r.harnessAuth).toBeNull();
      expect(r.secrets.filter((x) => x.purpose === 'harnessAuth')).toEqual([]);
    }
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

// The lifecycle written out as a grid, not read from the code's table (a test that loops over the
// code's own table passes whatever it says): a row per state, a column per event, the state the
// event moves a revision to, or "-" where it is refused.
const EVENTS_COLUMNS: RevisionEvent[] = ['checked', 'prepared', 'activationCommitted', 'gatewayReady', 'failed', 'newerDeployed', 'newerActivated', 'stopped'];
const GRID = `
  queued      preparing  -         -          -       failed  superseded  -           stopped
  preparing   -          prepared  -          -       failed  -           -           stopped
  prepared    -          -         activating -       failed  -           -           stopped
  activating  -          -         -          active  failed  -           superseded  stopped
  active      -          -         -          -       -       -           superseded  stopped
  failed      -          -         -          -       -       -           -           -
  superseded  -          -         -          -       -       -           -           -
  stopped     -          -         -          -       -       -           -           -
`;
const EXPECTED = parseGrid<RevisionState>(GRID, EVENTS_COLUMNS);

describe('revision lifecycle', () => {
  it('D4 W1 the grid names every state and every event exactly once', () => {
    expect([...EVENTS_COLUMNS].sort()).toEqual([...REVISION_EVENTS].sort());
    expect(EXPECTED.size).toBe(REVISION_STATES.length * REVISION_EVENTS.length);
  });

  const pairs = REVISION_STATES.flatMap((state) => REVISION_EVENTS.map((event) => [state, event] as const));
  it.each(pairs)('W1 W6 RC8 %s × %s', (state, event) => {
    const expected = EXPECTED.get(`${state} ${event}`);
    expect(expected).not.toBeUndefined();
    const t = revisionTransition(state, event);
    if (expected === null) {
      expect(t).toMatchObject({ ok: false, from: state, code: 'REVISION_STATE_CONFLICT' });
      if (!t.ok) expect(t.message).toContain(`that is ${state} cannot take the event ${event}`);
      expect(revisionMove(event).from).not.toContain(state);
    } else {
      expect(t).toMatchObject({ ok: true, from: state, to: expected });
      expect(revisionMove(event)).toMatchObject({ to: expected });
      expect(revisionMove(event).from).toContain(state);
    }
  });

  it('W1 terminal states take no event; from queued every state is reachable, and every state reaches a terminal one', () => {
    for (const state of TERMINAL_REVISION_STATES) for (const event of REVISION_EVENTS) expect(revisionTransition(state, event).ok).toBe(false);
    const next = (state: RevisionState) => REVISION_EVENTS.map((e) => revisionTransition(state, e)).flatMap((t) => (t.ok ? [t.to] : []));
    const reached = new Set<RevisionState>(['queued']);
    const frontier: RevisionState[] = ['queued'];
    while (frontier.length) {
      for (const to of next(frontier.pop()!)) {
        if (!reached.has(to)) frontier.push(to);
        reached.add(to);
      }
    }
    expect([...reached].sort()).toEqual([...REVISION_STATES].sort());
    for (const state of REVISION_STATES) if (!TERMINAL_REVISION_STATES.includes(state)) expect(next(state).some((to) => TERMINAL_REVISION_STATES.includes(to))).toBe(true);
  });

  it('RC8 W6 each reason says why: a stop, a newer deploy, a newer activation, a failure', () => {
    expect(revisionTransition('queued', 'newerDeployed')).toMatchObject({ reason: 'SupersededBeforePreparation' });
    expect(revisionTransition('active', 'newerActivated')).toMatchObject({ reason: 'SupersededByActivation' });
    expect(revisionTransition('activating', 'stopped')).toMatchObject({ reason: 'AgentStopped' });
    expect(revisionTransition('preparing', 'failed')).toMatchObject({ reason: 'StepFailed' });
    expect(revisionTransition('activating', 'gatewayReady')).toMatchObject({ reason: 'GatewayReady' });
    const refused = revisionTransition('active', 'failed');
    expect(refused.ok ? '' : refused.message).toBe('A revision that is active cannot take the event failed; it applies to one that is queued, preparing, prepared or activating.');
  });
});
