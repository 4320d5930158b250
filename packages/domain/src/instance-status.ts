import { canonicalJson } from './content-hash.ts';
import { REVISION_NUMBER_LABEL } from './kubernetes-names.ts';
import { REVISION_ID_ANNOTATION, TEMPLATE_HASH_ANNOTATION, type GatewayRender } from './gateway-render.ts';

// RC2: the instance's observed state, from what the cluster shows of its gateway (the Deployment as
// the deployment controller reports it, the Pods as their kubelet reports them) and nothing the
// reconciler remembers. Pure: the reconciler reads, this decides, the reconciler writes
// status.conditions (Ready, Progressing, Degraded) and which revision and generation the ready Pods
// were rendered from. W5 reads the same status to activate a revision.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface InstanceCondition {
  type: 'Ready' | 'Progressing' | 'Degraded';
  status: ConditionStatus;
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

export interface RunningState {
  /** The revision the ready Pods run (their template's annotation), when a revision made them. */
  revision: { id: string; number: number } | null;
  /** The instance generation whose rendering the ready Pods carry; null for Pods of an older template. */
  generation: number | null;
  readyReplicas: number;
}

export interface InstanceStatus {
  observedGeneration: number;
  phase: 'Running' | 'Progressing' | 'Degraded' | 'Stopped' | 'Missing';
  configMap: string;
  running: RunningState | null;
  conditions: InstanceCondition[];
}

/** Degraded reasons with which the gateway of this generation cannot become ready without a change: W5 fails on them. */
export const BLOCKING_REASONS: readonly string[] = [
  'CreateContainerConfigError',
  'CreateContainerError',
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CrashLoopBackOff',
  'FailedMount',
  'ProgressDeadlineExceeded',
  'ApplyFailed',
];

const WAITING_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CrashLoopBackOff']);

// Loose shapes of what the API server sends.
export interface ObservedDeployment {
  metadata?: { generation?: number; annotations?: Record<string, string> };
  spec?: { replicas?: number; template?: { metadata?: { annotations?: Record<string, string> } } };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    readyReplicas?: number;
    conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string }>;
  };
}

export interface ObservedPod {
  metadata?: { name?: string; annotations?: Record<string, string>; labels?: Record<string, string>; deletionTimestamp?: unknown };
  status?: {
    phase?: string;
    containerStatuses?: Array<{
      name?: string;
      ready?: boolean;
      state?: { waiting?: { reason?: string; message?: string }; running?: unknown };
      lastState?: { terminated?: { exitCode?: number; reason?: string; message?: string } };
    }>;
  };
}

export interface Observed {
  /** The live Deployment (after this reconcile's apply), or null when there is none. */
  deployment: ObservedDeployment | null;
  /** The Pods the Deployment's selector matches. */
  pods: ObservedPod[];
  /** What a Pod of the current template cannot mount, as the kubelet would say it (`secret "x" not found`). */
  missingMounts: string[];
  /** A child the API server refused (422 and the like), in words without values. */
  applyError: string | null;
}

/** How much of a crashing container's termination message the status repeats. */
export const LAST_EXIT_MESSAGE_LIMIT = 512;

/** How a restarting container last ended (its exit code and termination message), as the kubelet reports it. */
function lastExit(terminated: { exitCode?: number; reason?: string; message?: string } | undefined): string {
  if (!terminated) return '';
  const said = (terminated.message ?? '').trim();
  const shown = said.length > LAST_EXIT_MESSAGE_LIMIT ? `${said.slice(0, LAST_EXIT_MESSAGE_LIMIT)}…` : said;
  return `; last exited with code ${terminated.exitCode ?? '?'}${terminated.reason ? ` (${terminated.reason})` : ''}${shown ? `: ${shown}` : ''}`;
}

function podReady(pod: ObservedPod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.length > 0 && statuses.every((c) => c.ready === true);
}

function condition(type: InstanceCondition['type'], status: ConditionStatus, reason: string, message: string, generation: number, now: string, previous: readonly InstanceCondition[]): InstanceCondition {
  const before = previous.find((c) => c.type === type);
  return { type, status, reason, message, observedGeneration: generation, lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now };
}

/**
 * The status of an instance at `generation` whose rendering is `render`, from what is observed.
 * `previous` only carries the conditions' transition times forward (a condition that keeps its
 * status keeps its time); nothing else of the old status is read.
 */
export function instanceStatus(generation: number, render: GatewayRender, observed: Observed, now: string, previous: readonly InstanceCondition[] = []): InstanceStatus {
  const { deployment } = observed;
  const live = observed.pods.filter((p) => !p.metadata?.deletionTimestamp);
  const current = live.filter((p) => p.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] === render.templateHash);
  const readyCurrent = current.filter(podReady);
  const readyOld = live.filter((p) => p.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] !== render.templateHash && podReady(p));

  const degraded: Array<{ reason: string; message: string }> = [];
  if (observed.applyError) degraded.push({ reason: 'ApplyFailed', message: observed.applyError });
  for (const pod of current) {
    for (const c of pod.status?.containerStatuses ?? []) {
      const waiting = c.state?.waiting;
      if (waiting?.reason && WAITING_FAILURES.has(waiting.reason)) degraded.push({ reason: waiting.reason, message: `container ${c.name ?? ''}: ${waiting.message ?? waiting.reason}${lastExit(c.lastState?.terminated)}` });
    }
  }
  if (current.length > 0 && readyCurrent.length === 0) for (const m of observed.missingMounts) degraded.push({ reason: 'FailedMount', message: m });
  const progressing = deployment?.status?.conditions?.find((c) => c.type === 'Progressing');
  const templateCurrent = deployment?.spec?.template?.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] === render.templateHash;
  if (templateCurrent && progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    degraded.push({ reason: 'ProgressDeadlineExceeded', message: progressing.message ?? 'the gateway exceeded its progress deadline' });
  }
  for (const ignored of render.ignoredEnv) {
    const by = ignored.owners.map((o) => `${o.manager} (${o.operation})`).join(', ') || 'an unknown manager';
    degraded.push({
      reason: ignored.reason === 'unadmitted-reference' ? 'UnadmittedReference' : 'ValueAndReference',
      message:
        ignored.reason === 'unadmitted-reference'
          ? `env ${ignored.name} takes its value from a reference no revision admitted (set by ${by}); it is not delivered`
          : `env ${ignored.name} holds both a literal and a reference; the reference is delivered`,
    });
  }
  degraded.sort((a, b) => Number(BLOCKING_REASONS.includes(b.reason)) - Number(BLOCKING_REASONS.includes(a.reason)));

  const status = deployment?.status ?? {};
  const replicas = render.replicas;
  const rolledOut =
    deployment !== null &&
    templateCurrent &&
    (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0) &&
    (status.updatedReplicas ?? 0) >= replicas &&
    (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= replicas &&
    readyCurrent.length >= replicas;

  const conditions: InstanceCondition[] = [];
  let phase: InstanceStatus['phase'];
  const firstDegraded = degraded[0];
  if (!deployment) {
    phase = 'Missing';
    conditions.push(condition('Ready', 'False', 'GatewayMissing', 'the gateway Deployment does not exist', generation, now, previous));
    conditions.push(condition('Progressing', 'True', 'Creating', 'creating the gateway', generation, now, previous));
  } else if (replicas === 0) {
    phase = 'Stopped';
    const stopped = live.length === 0;
    conditions.push(condition('Ready', 'False', 'ScaledToZero', 'the gateway is scaled to zero', generation, now, previous));
    conditions.push(condition('Progressing', stopped ? 'False' : 'True', stopped ? 'Stopped' : 'Stopping', stopped ? 'no gateway Pod runs' : 'the gateway Pods are stopping', generation, now, previous));
  } else if (rolledOut) {
    phase = firstDegraded ? 'Degraded' : 'Running';
    conditions.push(condition('Ready', 'True', 'GatewayReady', `${readyCurrent.length} of ${replicas} gateway Pods ready at generation ${generation}`, generation, now, previous));
    conditions.push(condition('Progressing', 'False', 'RolloutComplete', `the gateway runs generation ${generation}`, generation, now, previous));
  } else {
    phase = firstDegraded && BLOCKING_REASONS.includes(firstDegraded.reason) ? 'Degraded' : 'Progressing';
    const why = firstDegraded ? firstDegraded.message : `${readyCurrent.length} of ${replicas} gateway Pods of generation ${generation} ready`;
    conditions.push(condition('Ready', 'False', firstDegraded?.reason ?? 'RollingOut', why, generation, now, previous));
    const stuck = firstDegraded?.reason === 'ProgressDeadlineExceeded';
    conditions.push(condition('Progressing', stuck ? 'False' : 'True', stuck ? 'ProgressDeadlineExceeded' : 'RollingOut', stuck ? firstDegraded.message : `rolling out generation ${generation}`, generation, now, previous));
  }
  conditions.push(
    firstDegraded
      ? condition('Degraded', 'True', firstDegraded.reason, degraded.map((d) => d.message).join('; '), generation, now, previous)
      : condition('Degraded', 'False', 'AsSpecified', 'the gateway runs as the instance specifies', generation, now, previous),
  );

  let running: RunningState | null = null;
  if (replicas > 0 && readyCurrent.length > 0) {
    running = { revision: render.revision, generation, readyReplicas: readyCurrent.length };
  } else if (replicas > 0 && readyOld.length > 0) {
    const pod = readyOld[0]!;
    const id = pod.metadata?.annotations?.[REVISION_ID_ANNOTATION];
    const number = Number(pod.metadata?.labels?.[REVISION_NUMBER_LABEL]);
    running = { revision: id && Number.isInteger(number) ? { id, number } : null, generation: null, readyReplicas: readyOld.length };
  }
  return { observedGeneration: generation, phase, configMap: render.configMapName, running, conditions };
}

/** Whether two statuses say the same (times aside): the reconciler writes only a change. */
export function sameStatus(a: InstanceStatus, b: unknown): boolean {
  const strip = (s: unknown) => {
    const o = (s ?? {}) as Partial<InstanceStatus>;
    return canonicalJson({
      observedGeneration: o.observedGeneration,
      phase: o.phase,
      configMap: o.configMap,
      running: o.running ?? null,
      conditions: (o.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]),
    });
  };
  return strip(a) === strip(b);
}

/** What W5 reads of an instance: its spec's revision and replicas, and the status the reconciler wrote. */
export interface InstanceReading {
  metadata?: { generation?: number };
  spec?: { revision?: { id?: string }; replicas?: number };
  status?: Partial<Pick<InstanceStatus, 'observedGeneration' | 'running' | 'conditions'>>;
}

export type RevisionReadiness =
  | { state: 'ready'; generation: number }
  | { state: 'progressing'; message: string }
  | { state: 'failed'; reason: string; message: string }
  | { state: 'replaced'; message: string };

/**
 * W5: whether the instance runs revision `revisionId` at `generation` (the one its apply produced)
 * or later: Ready, with ready Pods of that revision and generation. A blocking Degraded reason at
 * that generation or later fails it; another revision's fields, or a stop, replaced it.
 */
export function revisionReadiness(instance: InstanceReading | null, revisionId: string, generation: number): RevisionReadiness {
  if (!instance) return { state: 'failed', reason: 'InstanceMissing', message: 'the OpenClawInstance was deleted' };
  if (instance.spec?.revision?.id !== revisionId) return { state: 'replaced', message: 'the instance holds another revision now' };
  if (instance.spec.replicas === 0) return { state: 'replaced', message: 'the agent was stopped' };
  const status = instance.status ?? {};
  const observed = status.observedGeneration ?? 0;
  if (observed < generation) return { state: 'progressing', message: `the reconciler has not rendered generation ${generation} yet` };
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  const degraded = status.conditions?.find((c) => c.type === 'Degraded');
  const running = status.running;
  if (ready?.status === 'True' && running?.revision?.id === revisionId && (running.generation ?? 0) >= generation) return { state: 'ready', generation: running.generation ?? generation };
  if (degraded?.status === 'True' && BLOCKING_REASONS.includes(degraded.reason) && (degraded.observedGeneration ?? 0) >= generation) {
    return { state: 'failed', reason: degraded.reason, message: degraded.message };
  }
  return { state: 'progressing', message: ready?.message ?? 'waiting for the gateway' };
}

/** What the reconciler does with the status it observed (statusWrite). */
export type StatusWrite = { action: 'none' } | { action: 'write' } | { action: 'hold'; since: number; waitMs: number };

/**
 * RC2: whether to write an observed status now. One that says what is written already: nothing.
 * A settled one (not progressing, or blocked on a reason W5 fails on): at once. One still under
 * way: once it has stood `delayMs` since `heldSince` (when a status under way was first held back),
 * so a rollout that completes sooner writes only its outcome; meanwhile, hold it and look again.
 */
export function statusWrite(status: InstanceStatus, written: unknown, heldSince: number | undefined, now: number, delayMs: number): StatusWrite {
  if (sameStatus(status, written)) return { action: 'none' };
  const progressing = status.conditions.some((c) => c.type === 'Progressing' && c.status === 'True');
  const degraded = status.conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
  const settled = !progressing || (degraded !== undefined && BLOCKING_REASONS.includes(degraded.reason));
  if (settled || delayMs <= 0) return { action: 'write' };
  const since = heldSince ?? now;
  return now - since >= delayMs ? { action: 'write' } : { action: 'hold', since, waitMs: since + delayMs - now };
}
