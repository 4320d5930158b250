import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOCKING_REASONS } from './instance-status.ts';
import { healthGateSeconds, healthVerdict, MAX_HEALTH_GATE_SECONDS, notGatedBecause, parseHealthGate, type GatedInstanceStatus } from './selfconfig-health.ts';

const at = (iso: string) => new Date(iso);
const NOW = at('2026-12-04T12:00:00Z');
const LATER = at('2026-12-04T12:05:00Z');
const EARLIER = at('2026-12-04T11:55:00Z');

function status(parts: { ready?: [string, number]; degraded?: [string, string, number]; running?: number | null; observed?: number }): GatedInstanceStatus {
  const conditions = [];
  if (parts.ready) conditions.push({ type: 'Ready', status: parts.ready[0], reason: 'R', message: 'ready says', observedGeneration: parts.ready[1] });
  if (parts.degraded) conditions.push({ type: 'Degraded', status: parts.degraded[0], reason: parts.degraded[1], message: `container gateway: ${parts.degraded[1]}`, observedGeneration: parts.degraded[2] });
  return { observedGeneration: parts.observed ?? 1, phase: 'Running', running: parts.running === undefined ? null : { generation: parts.running }, conditions };
}

describe('SG1 health verdict', () => {
  it('SG1 ready only when the Ready condition is True at the generation or later and the ready Pods run it', () => {
    expect(healthVerdict(status({ ready: ['True', 5], running: 5 }), 5, LATER, NOW)).toEqual({ kind: 'ready' });
    expect(healthVerdict(status({ ready: ['True', 6], running: 6 }), 5, LATER, NOW)).toEqual({ kind: 'ready' });
    // Ready for the generation before: the old Pods still serve; not the request's.
    expect(healthVerdict(status({ ready: ['True', 4], running: 4 }), 5, LATER, NOW).kind).toBe('wait');
    // Reconciled at 5 but the ready Pods carry 4 (the new ones are not ready yet).
    expect(healthVerdict(status({ ready: ['True', 5], running: 4 }), 5, LATER, NOW).kind).toBe('wait');
    expect(healthVerdict(status({ ready: ['False', 5], running: null }), 5, LATER, NOW).kind).toBe('wait');
  });

  it('SG1 failed on a blocking Degraded reason at the generation, with the message the instance carries from the kubelet', () => {
    expect(healthVerdict(status({ ready: ['False', 5], degraded: ['True', 'CrashLoopBackOff', 5], running: 4 }), 5, LATER, NOW)).toEqual({
      kind: 'failed',
      reason: 'CrashLoopBackOff',
      message: 'container gateway: CrashLoopBackOff',
    });
    // Degraded for an older generation says nothing of this one; a reason that is not blocking neither.
    expect(healthVerdict(status({ degraded: ['True', 'CrashLoopBackOff', 4] }), 5, LATER, NOW).kind).toBe('wait');
    expect(healthVerdict(status({ degraded: ['True', 'UnadmittedReference', 5] }), 5, LATER, NOW).kind).toBe('wait');
  });

  it('SG1 failed with HealthGateTimeout once the deadline passes, naming the generation and what Ready says', () => {
    const verdict = healthVerdict(status({ ready: ['False', 5] }), 5, EARLIER, NOW);
    expect(verdict).toEqual({ kind: 'failed', reason: 'HealthGateTimeout', message: 'generation 5 was not Ready by 2026-12-04T11:55:00.000Z: ready says' });
    expect(healthVerdict(undefined, 5, NOW, NOW).kind).toBe('failed');
  });

  it('SG1 generated statuses: the verdict is ready exactly when Ready is True at >= generation with running >= generation; never failed on conditions of an older generation before the deadline', () => {
    const condStatus = fc.constantFrom('True', 'False', 'Unknown');
    const reason = fc.constantFrom(...BLOCKING_REASONS, 'UnadmittedReference', 'ValueAndReference', 'Progressing');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.tuple(condStatus, fc.integer({ min: 0, max: 9 }))),
        fc.option(fc.tuple(condStatus, reason, fc.integer({ min: 0, max: 9 }))),
        fc.option(fc.integer({ min: 0, max: 9 })),
        fc.boolean(),
        (generation, ready, degraded, running, pastDeadline) => {
          const s = status({ ...(ready ? { ready } : {}), ...(degraded ? { degraded } : {}), running: running ?? null });
          const verdict = healthVerdict(s, generation, pastDeadline ? EARLIER : LATER, NOW);
          const isReady = ready !== null && ready[0] === 'True' && ready[1] >= generation && running !== null && running >= generation;
          expect(verdict.kind === 'ready').toBe(isReady);
          const blocking = degraded !== null && degraded[0] === 'True' && degraded[2] >= generation && BLOCKING_REASONS.includes(degraded[1]);
          if (!isReady && !pastDeadline) expect(verdict.kind).toBe(blocking ? 'failed' : 'wait');
          if (!isReady && pastDeadline) expect(verdict.kind).toBe('failed');
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('SG1 which applies are gated, and for how long', () => {
  it("SG1 the instance's timeoutSeconds, else the default, bounded; 0 turns the gate off", () => {
    expect(healthGateSeconds({ selfConfigure: { healthGate: { timeoutSeconds: 30 } } }, 300)).toBe(30);
    expect(healthGateSeconds({ selfConfigure: {} }, 300)).toBe(300);
    expect(healthGateSeconds({ selfConfigure: { healthGate: { timeoutSeconds: 'x' } } }, 120)).toBe(120);
    expect(healthGateSeconds({ selfConfigure: { healthGate: { timeoutSeconds: 99_999 } } }, 300)).toBe(MAX_HEALTH_GATE_SECONDS);
    expect(healthGateSeconds({ selfConfigure: { healthGate: { timeoutSeconds: 0 } } }, 300)).toBe(0);
  });

  it('SG1 not gated when off, when nothing reports the status, or when the instance is stopped; gated otherwise', () => {
    expect(notGatedBecause(0, status({}))).toContain('off');
    expect(notGatedBecause(60, undefined)).toContain('no reconciler');
    expect(notGatedBecause(60, { conditions: [] })).toContain('no reconciler');
    expect(notGatedBecause(60, { observedGeneration: 3, phase: 'Stopped' })).toContain('stopped');
    expect(notGatedBecause(60, status({}))).toBeNull();
  });

  it("SG1 a request's status.healthGate is read back as written, and anything malformed is none", () => {
    const gate = { stage: 'RollingBack', generation: 7, appliedGeneration: 6, deadline: '2026-12-04T12:00:00.000Z', failure: { reason: 'CrashLoopBackOff', message: 'm' }, appliedMessage: 'applied' };
    expect(parseHealthGate({ ...gate, previous: { spec: {} } })).toEqual(gate);
    for (const bad of [null, {}, { ...gate, stage: 'Other' }, { ...gate, generation: '7' }, { ...gate, deadline: 'soon' }]) expect(parseHealthGate(bad)).toBeNull();
  });
});
