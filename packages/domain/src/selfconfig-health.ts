import { BLOCKING_REASONS } from './instance-status.ts';

// SG1 the health gate: after a request is applied, whether the gateway running the new instance
// generation is Ready, cannot become Ready, or is still on its way; the same after a rollback.
// Pure: the controller brings the instance's status (written by the instance reconciler from the
// Deployment and its Pods, RC2) and the time, and acts on the verdict.

/** How long a gate waits when the instance sets no `selfConfigure.healthGate.timeoutSeconds`. */
export const DEFAULT_HEALTH_GATE_SECONDS = 300;
/** The longest gate an instance may ask for (an hour): a gate holds the instance's later requests. */
export const MAX_HEALTH_GATE_SECONDS = 3600;

/** What the gate waits on, kept in the request's status.healthGate while it waits. */
export interface HealthGateState {
  /** Verifying: the request's own generation; RollingBack: the generation of the rollback. */
  stage: 'Verifying' | 'RollingBack';
  generation: number;
  /** RFC 3339; the stage fails when its generation is not Ready by then. */
  deadline: string;
  /** RollingBack: why the request's generation failed (a Degraded reason, or HealthGateTimeout). */
  failure?: { reason: string; message: string };
  /** The generation the request applied (kept through the rollback, for the messages). */
  appliedGeneration: number;
  /** The apply's own message (skipped removals, an approval's note), which Applied ends with. */
  appliedMessage?: string;
}

export type HealthVerdict = { kind: 'ready' } | { kind: 'wait'; untilMs: number } | { kind: 'failed'; reason: string; message: string };

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** The parts of an instance's status the gate reads (InstanceStatus, as JSON from the server). */
export interface GatedInstanceStatus {
  observedGeneration?: number;
  phase?: string;
  running?: { generation?: number | null } | null;
  conditions?: Condition[];
}

/**
 * The instance's gate in seconds (0: not gated), from `spec.selfConfigure.healthGate.timeoutSeconds`,
 * else the installation's default; bounded by MAX_HEALTH_GATE_SECONDS.
 */
export function healthGateSeconds(instanceSpec: unknown, fallback: number = DEFAULT_HEALTH_GATE_SECONDS): number {
  const gate = (instanceSpec as { selfConfigure?: { healthGate?: { timeoutSeconds?: unknown } } } | null | undefined)?.selfConfigure?.healthGate;
  const asked = gate?.timeoutSeconds;
  const seconds = typeof asked === 'number' && Number.isInteger(asked) && asked >= 0 ? asked : fallback;
  return Math.min(Math.max(0, seconds), MAX_HEALTH_GATE_SECONDS);
}

/**
 * Why an applied request is not gated, or null when it is: the gate is off (0 seconds), nothing
 * reports the instance's status (no reconciler runs it: there is no gateway to wait for), or the
 * instance is stopped (no Pods to become Ready).
 */
export function notGatedBecause(seconds: number, status: GatedInstanceStatus | undefined): string | null {
  if (seconds === 0) return 'the health gate is off for this instance (selfConfigure.healthGate.timeoutSeconds: 0)';
  if (!status || typeof status.observedGeneration !== 'number') return 'no reconciler reports this instance\'s status, so there is no gateway to wait for';
  if (status.phase === 'Stopped') return 'the instance is stopped: no gateway runs to become Ready';
  return null;
}

/**
 * The verdict on `generation` at `now`: ready when the Ready condition is True for it (or a later
 * generation) and the ready Pods carry it; failed when Degraded is True for it with a reason the
 * gateway cannot get out of without a change (the kubelet's message as the instance reports it),
 * or when the deadline has passed; otherwise wait.
 */
export function healthVerdict(status: GatedInstanceStatus | undefined, generation: number, deadline: Date, now: Date): HealthVerdict {
  const conditions = status?.conditions ?? [];
  const atLeast = (c: Condition | undefined) => c !== undefined && (c.observedGeneration ?? 0) >= generation;
  const ready = conditions.find((c) => c.type === 'Ready');
  const runningGeneration = status?.running?.generation ?? null;
  if (atLeast(ready) && ready!.status === 'True' && runningGeneration !== null && runningGeneration >= generation) return { kind: 'ready' };
  const degraded = conditions.find((c) => c.type === 'Degraded');
  if (atLeast(degraded) && degraded!.status === 'True' && BLOCKING_REASONS.includes(degraded!.reason ?? '')) {
    return { kind: 'failed', reason: degraded!.reason!, message: degraded!.message ?? degraded!.reason! };
  }
  if (now.getTime() >= deadline.getTime()) {
    const why = ready?.message ? `: ${ready.message}` : '';
    return { kind: 'failed', reason: 'HealthGateTimeout', message: `generation ${generation} was not Ready by ${deadline.toISOString()}${why}` };
  }
  return { kind: 'wait', untilMs: deadline.getTime() - now.getTime() };
}

/** The status.healthGate of a request, or null when it holds none that is well formed. */
export function parseHealthGate(raw: unknown): HealthGateState | null {
  const g = raw as Partial<HealthGateState> | null | undefined;
  if (!g || (g.stage !== 'Verifying' && g.stage !== 'RollingBack')) return null;
  if (typeof g.generation !== 'number' || typeof g.appliedGeneration !== 'number' || typeof g.deadline !== 'string' || Number.isNaN(Date.parse(g.deadline))) return null;
  const failure = g.failure && typeof g.failure.reason === 'string' && typeof g.failure.message === 'string' ? { reason: g.failure.reason, message: g.failure.message } : undefined;
  const appliedMessage = typeof g.appliedMessage === 'string' ? { appliedMessage: g.appliedMessage } : {};
  return { stage: g.stage, generation: g.generation, appliedGeneration: g.appliedGeneration, deadline: g.deadline, ...(failure ? { failure } : {}), ...appliedMessage };
}
