// What the kubelet and the deployment controller would report for a gateway Deployment, as pure
// functions of the objects and of which Secrets and ConfigMaps (and keys) exist (E3).
//
// Kubelet: a Pod whose volumes do not all mount stays Pending, each container waiting with reason
// ContainerCreating, with a FailedMount event per volume (`MountVolume.SetUp failed for volume
// "config" : configmap "x" not found`); volumes come first, then each container's environment: one
// that cannot resolve waits with CreateContainerConfigError and the kubelet's message (`secret "x"
// not found`, `couldn't find key value in Secret ns/x`) and a `Failed` event `Error: <message>`. A
// container that runs keeps running: what it was started with does not change under it.
//
// The crash hook (a test hook, documented in the README): a container that would start with a
// mounted `openclaw.json` whose top level holds `"x-kubelet-simulator": {"exit": {"code": 1,
// "message": "..."}}` exits at once, as a gateway that rejects its config does. It waits with
// CrashLoopBackOff and the kubelet's back-off message, its lastState.terminated carries the exit
// code and the message (the container's termination message), restartCount is 1 (the simulator
// does not count further restarts), and a `BackOff` event is recorded. The hook is read from the
// rendered config the Pod mounts, so a configuration change makes a gateway fail end to end.
//
// Deployment controller: the ReplicaSet of a template is found by comparing templates without the
// pod-template-hash label (EqualIgnoreHash), named by a hash of the template's canonical form, and
// numbered by the `deployment.kubernetes.io/revision` annotation (SetNewReplicaSetAnnotations); the
// Deployment's conditions are the ones the controller writes.

import { containerConfigError, mountFailures, type ConfigSource, type PodMeta, type PodSpec } from './pod-config.ts';

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface GatewayStatus {
  observedGeneration: number;
  replicas: number;
  updatedReplicas: number | null;
  readyReplicas: number | null;
  availableReplicas: number | null;
  unavailableReplicas: number | null;
  conditions: DeploymentCondition[];
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpec;
}

export interface GatewayDeployment {
  metadata?: { name?: string; namespace?: string; generation?: number; uid?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    replicas?: number;
    progressDeadlineSeconds?: number;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string } };
    template?: PodTemplate;
  };
}

export interface ContainerStatus {
  name: string;
  image: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: { waiting?: { reason: string; message?: string }; running?: { startedAt: string } };
  lastState?: { terminated?: { exitCode: number; reason: string; message: string; startedAt: string; finishedAt: string } };
}

/** The crash hook's key at the top of a mounted openclaw.json. */
export const CRASH_HOOK_KEY = 'x-kubelet-simulator';
export const CRASH_HOOK_FILE = 'openclaw.json';

/** How a container exits at start, by the crash hook. */
export interface ContainerExit {
  code: number;
  message: string;
}

/**
 * The crash hook of a container's mounted files: the exit its `openclaw.json` (any mount path)
 * asks for, or null. A file that is not JSON, or a hook without a message, asks for none.
 */
export function crashHook(files: Readonly<Record<string, string>>): ContainerExit | null {
  for (const [path, content] of Object.entries(files)) {
    if (path !== CRASH_HOOK_FILE && !path.endsWith(`/${CRASH_HOOK_FILE}`)) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      continue;
    }
    const hook = (parsed as Record<string, unknown> | null)?.[CRASH_HOOK_KEY] as { exit?: { code?: unknown; message?: unknown } } | undefined;
    const exit = hook?.exit;
    if (!exit || typeof exit.message !== 'string' || exit.message === '') continue;
    const code = typeof exit.code === 'number' && Number.isInteger(exit.code) && exit.code > 0 && exit.code < 256 ? exit.code : 1;
    return { code, message: exit.message.slice(0, 4096) };
  }
  return null;
}

export interface PodStatus {
  phase: 'Pending' | 'Running';
  conditions: Array<{ type: string; status: 'True' | 'False'; reason?: string; message?: string }>;
  containerStatuses: ContainerStatus[];
}

/** A Warning event the kubelet records on a Pod (fieldPath names a container for container events). */
export interface KubeletEvent {
  reason: 'FailedMount' | 'Failed' | 'BackOff';
  message: string;
  fieldPath?: string;
}

export interface KubeletReport {
  status: PodStatus;
  events: KubeletEvent[];
  /** Containers that start now (not running before): their environment and files are read now. */
  starting: string[];
}

/** The Pod as the kubelet reads it: its spec, and its last status for which containers already run. */
export interface KubeletPod {
  metadata?: PodMeta;
  spec?: PodSpec;
  status?: { containerStatuses?: Array<{ name?: string; state?: { running?: { startedAt?: Date | string } } }> };
}

function timestamp(value: Date | string | undefined, fallback: string): string {
  if (value instanceof Date) return value.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return value ?? fallback;
}

/**
 * A Pod's status as its kubelet reports it, and the events it records on the way. Containers
 * already running stay running. The others wait while a volume does not mount (ContainerCreating),
 * or while their environment does not resolve (CreateContainerConfigError), or start now.
 */
export function kubeletReport(pod: KubeletPod, source: ConfigSource, now: string, exits: ReadonlyMap<string, ContainerExit> = new Map()): KubeletReport {
  const spec = pod.spec ?? {};
  const namespace = pod.metadata?.namespace ?? '';
  const runningSince = new Map<string, string>();
  for (const s of pod.status?.containerStatuses ?? []) if (s.state?.running) runningSince.set(s.name ?? '', timestamp(s.state.running.startedAt, now));
  const containers = spec.containers ?? [];
  const waitingToStart = containers.some((c) => !runningSince.has(c.name ?? ''));
  const mounts = waitingToStart ? mountFailures(spec, namespace, source) : [];
  const events: KubeletEvent[] = mounts.map((m) => ({ reason: 'FailedMount', message: m.message }));
  const starting: string[] = [];
  const containerStatuses = containers.map((c): ContainerStatus => {
    const name = c.name ?? '';
    const base = { name, image: c.image ?? '', restartCount: 0 };
    const since = runningSince.get(name);
    if (since !== undefined) return { ...base, ready: true, started: true, state: { running: { startedAt: since } } };
    if (mounts.length > 0) return { ...base, ready: false, started: false, state: { waiting: { reason: 'ContainerCreating' } } };
    const problem = containerConfigError(c, namespace, source);
    if (problem !== null) {
      events.push({ reason: 'Failed', message: `Error: ${problem}`, fieldPath: `spec.containers{${name}}` });
      return { ...base, ready: false, started: false, state: { waiting: { reason: 'CreateContainerConfigError', message: problem } } };
    }
    const exit = exits.get(name);
    if (exit) {
      // The kubelet's words (kuberuntime: "back-off %s restarting failed container=%s pod=%s").
      const podName = `${pod.metadata?.name ?? ''}_${namespace}(${pod.metadata?.uid ?? ''})`;
      events.push({ reason: 'BackOff', message: `Back-off restarting failed container ${name} in pod ${podName}`, fieldPath: `spec.containers{${name}}` });
      return {
        ...base,
        ready: false,
        started: false,
        restartCount: 1,
        state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=${name} pod=${podName}` } },
        lastState: { terminated: { exitCode: exit.code, reason: 'Error', message: exit.message, startedAt: now, finishedAt: now } },
      };
    }
    starting.push(name);
    return { ...base, ready: true, started: true, state: { running: { startedAt: now } } };
  });
  const ready = containerStatuses.every((s) => s.ready);
  const notReady = containerStatuses.filter((s) => !s.ready).map((s) => s.name);
  const readyCondition = ready
    ? { type: 'Ready', status: 'True' as const }
    : { type: 'Ready', status: 'False' as const, reason: 'ContainersNotReady', message: `containers with unready status: [${notReady.join(' ')}]` };
  return {
    status: {
      // A container that ran and exited (the crash hook) leaves the Pod Running, not ready, as on a real node.
      phase: ready || containerStatuses.some((c) => c.lastState?.terminated) ? 'Running' : 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, readyCondition, { ...readyCondition, type: 'ContainersReady' }],
      containerStatuses,
    },
    events,
    starting,
  };
}

/** What a status write compares: phase and each container's readiness and state. */
export function podStatusKey(status: { phase?: string; containerStatuses?: Array<{ name?: string; ready?: boolean; state?: { running?: unknown; waiting?: { reason?: string; message?: string } } }> } | undefined): string {
  return JSON.stringify([
    status?.phase ?? null,
    (status?.containerStatuses ?? []).map((c) => [c.name, c.ready, c.state?.running ? 'running' : null, c.state?.waiting?.reason ?? null, c.state?.waiting?.message ?? null]),
  ]);
}

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** The controller's --deployment-controller revision history limit in characters (maxRevHistoryLengthInChars). */
const REVISION_HISTORY_LIMIT_CHARS = 2000;

/**
 * JSON with every object's keys sorted and absent values (undefined, null) left out, dates as
 * RFC 3339 seconds: the same template gives the same text however it was read (a typed list or a
 * raw watch event, each with its own key order) and however often it went through a server.
 */
export function canonicalJson(value: unknown): string {
  const normal = (v: unknown): unknown => {
    if (v instanceof Date) return timestamp(v, '');
    if (Array.isArray(v)) return v.map(normal);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) {
        const item = (v as Record<string, unknown>)[key];
        if (item !== undefined && item !== null) out[key] = normal(item);
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(normal(value ?? {}));
}

/** FNV-1a, 32 bits, as Go's hash/fnv New32a. */
function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * The pod-template-hash of a template: controller.ComputeHash's FNV-32a, spelled by
 * rand.SafeEncodeString over its decimal digits (so hashes look like the controller's, e.g.
 * `7c5ddbdf54`). The controller hashes its Go struct; this hashes the canonical JSON.
 */
export function podTemplateHash(template: unknown): string {
  const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from(String(fnv32a(canonicalJson(template))), (digit) => alphanums[digit.charCodeAt(0) % alphanums.length]).join('');
}

function withoutHash(template: PodTemplate | undefined): unknown {
  const labels = { ...(template?.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH_LABEL];
  return { ...(template ?? {}), metadata: { ...(template?.metadata ?? {}), labels } };
}

/** deploymentutil.EqualIgnoreHash: two templates equal but for their pod-template-hash labels. */
export function equalIgnoreHash(a: PodTemplate | undefined, b: PodTemplate | undefined): boolean {
  return canonicalJson(withoutHash(a)) === canonicalJson(withoutHash(b));
}

export interface OwnedReplicaSet {
  metadata?: { name?: string; creationTimestamp?: Date | string; annotations?: Record<string, string> };
  spec?: { template?: PodTemplate };
}

/** deploymentutil.FindNewReplicaSet: the oldest ReplicaSet (then by name) whose template is the Deployment's. */
export function findNewReplicaSet<T extends OwnedReplicaSet>(template: PodTemplate | undefined, sets: readonly T[]): T | undefined {
  const created = (rs: T) => timestamp(rs.metadata?.creationTimestamp, '');
  const ordered = [...sets].sort((a, b) => created(a).localeCompare(created(b)) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  return ordered.find((rs) => equalIgnoreHash(rs.spec?.template, template));
}

/** A ReplicaSet's revision number; 0 without one (deploymentutil.Revision). */
export function revisionOf(annotations: Record<string, string> | undefined): number {
  const value = Number(annotations?.[REVISION_ANNOTATION] ?? '0');
  return Number.isInteger(value) && value >= 0 ? value : 0;
}

/** The largest revision among ReplicaSets (deploymentutil.MaxRevision). */
export function maxRevision(sets: readonly OwnedReplicaSet[]): number {
  return sets.reduce((max, rs) => Math.max(max, revisionOf(rs.metadata?.annotations)), 0);
}

/** deploymentutil.MaxSurge: what a rolling update may add above the desired count (none for Recreate). */
export function maxSurge(deployment: GatewayDeployment): number {
  if (deployment.spec?.strategy?.type === 'Recreate') return 0;
  const desired = deployment.spec?.replicas ?? 1;
  const surge = deployment.spec?.strategy?.rollingUpdate?.maxSurge ?? '25%';
  if (typeof surge === 'number') return surge;
  const percent = /^(\d+)%$/.exec(surge);
  return percent ? Math.ceil((Number(percent[1]) * desired) / 100) : Number(surge) || 0;
}

/** deploymentutil's skipCopyAnnotation: what a Deployment does not hand down to its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

/**
 * The annotations the deployment controller gives the new ReplicaSet (SetNewReplicaSetAnnotations):
 * the Deployment's own (but its revision and kubectl's), the revision `maxOldRevision + 1` unless
 * it already has a larger one, and when it takes a new revision (a rollback to it) its former one
 * appended to the revision history. A ReplicaSet about to be created also gets the desired and
 * maximum replica counts. Answers the whole map.
 */
export function newReplicaSetAnnotations(
  deployment: GatewayDeployment,
  current: Record<string, string> | undefined,
  maxOldRevision: number,
  exists: boolean,
): Record<string, string> {
  const annotations = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(deployment.metadata?.annotations ?? {})) if (!NOT_COPIED.has(key)) annotations[key] = value;
  const oldRevision = annotations[REVISION_ANNOTATION];
  const oldNumber = oldRevision === undefined || oldRevision === '' ? 0 : Number(oldRevision);
  if (!Number.isInteger(oldNumber)) return annotations;
  const newNumber = maxOldRevision + 1;
  if (oldNumber < newNumber) {
    annotations[REVISION_ANNOTATION] = String(newNumber);
    if (oldRevision !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION];
      const revisions = history ? history.split(',') : [];
      revisions.push(oldRevision);
      while (revisions.join(',').length > REVISION_HISTORY_LIMIT_CHARS && revisions.length > 1) revisions.shift();
      annotations[REVISION_HISTORY_ANNOTATION] = revisions.join(',');
    }
  }
  if (!exists) Object.assign(annotations, replicasAnnotations(deployment));
  return annotations;
}

/** deploymentutil.SetReplicasAnnotations: the desired and maximum replica counts a scaled ReplicaSet carries. */
export function replicasAnnotations(deployment: GatewayDeployment): Record<string, string> {
  const desired = deployment.spec?.replicas ?? 1;
  return { [DESIRED_REPLICAS_ANNOTATION]: String(desired), [MAX_REPLICAS_ANNOTATION]: String(desired + maxSurge(deployment)) };
}

export interface RolloutCounts {
  /** The ReplicaSet of the current template. */
  newReplicaSet: string;
  /** Pods of every ReplicaSet of the Deployment. */
  replicas: number;
  /** Pods of the new ReplicaSet. */
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  /** The sum of the ReplicaSets' desired replicas. */
  desiredTotal: number;
}

/**
 * The Deployment's status as the deployment controller writes it (deployment/util, sync.go):
 * Available against maxUnavailable (0 for one replica with the default 25%), Progressing with
 * NewReplicaSetAvailable once the new ReplicaSet is complete, ReplicaSetUpdated while it
 * progresses, and ProgressDeadlineExceeded once `deadlineExceeded`.
 */
export function deploymentStatus(deployment: GatewayDeployment, counts: RolloutCounts, deadlineExceeded: boolean): GatewayStatus {
  const desired = deployment.spec?.replicas ?? 1;
  const maxUnavailable = Math.floor(desired * 0.25);
  const available = counts.availableReplicas >= desired - maxUnavailable;
  const complete = counts.updatedReplicas === desired && counts.replicas === desired && counts.availableReplicas >= desired;
  const count = (n: number): number | null => (n === 0 ? null : n);
  const rs = counts.newReplicaSet;
  return {
    observedGeneration: deployment.metadata?.generation ?? 0,
    replicas: counts.replicas,
    updatedReplicas: count(counts.updatedReplicas),
    readyReplicas: count(counts.readyReplicas),
    availableReplicas: count(counts.availableReplicas),
    unavailableReplicas: count(Math.max(0, counts.desiredTotal - counts.availableReplicas)),
    conditions: [
      available
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
        : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      complete
        ? { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs}" has successfully progressed.` }
        : deadlineExceeded
          ? { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rs}" has timed out progressing.` }
          : { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rs}" is progressing.` },
    ],
  };
}
