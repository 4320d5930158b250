// A Pod's READY, STATUS and RESTARTS cells by the rules of kube-apiserver's printPod (1.33,
// k8s.io/kubernetes pkg/printers/internalversion/printers.go), so `kubectl get pods` says
// CrashLoopBackOff, CreateContainerConfigError, Init:0/1, Completed or Terminating as a real
// cluster's does. Pure: the objects and `now` come in.

import type { KubeObject } from '../types.ts';
import { humanDuration, int, list, obj, text } from './format.ts';

export interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
  /** Row conditions: a Succeeded or Failed pod's row is marked Completed, as a real server marks it. */
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
}

const later = (a: number, b: unknown): number => {
  const at = typeof b === 'string' ? Date.parse(b) : NaN;
  return Number.isNaN(at) ? a : Math.max(a, at);
};

export function podSummary(pod: KubeObject, now = Date.now()): PodSummary {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const initContainers = list(spec.initContainers);
  const restartable = new Set(initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => text(c.name)));
  const total = list(spec.containers).length + restartable.size;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;

  const phase = text(status.phase);
  let reason = text(status.reason) || phase;
  for (const condition of list(status.conditions)) {
    if (condition.type === 'PodScheduled' && condition.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (const [i, container] of initStatuses.entries()) {
    const state = obj(container.state);
    const terminated = state.terminated === undefined ? undefined : obj(state.terminated);
    const waiting = state.waiting === undefined ? undefined : obj(state.waiting);
    const lastTerminated = obj(obj(container.lastState).terminated);
    restarts += int(container.restartCount);
    lastRestart = later(lastRestart, lastTerminated.finishedAt);
    const sidecar = restartable.has(text(container.name));
    if (sidecar) {
      sidecarRestarts += int(container.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, lastTerminated.finishedAt);
    }
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (sidecar && container.started === true) {
      if (container.ready === true) ready++;
      continue;
    }
    if (terminated) {
      const signal = int(terminated.signal);
      reason = text(terminated.reason) ? `Init:${text(terminated.reason)}` : signal !== 0 ? `Init:Signal:${signal}` : `Init:ExitCode:${int(terminated.exitCode)}`;
    } else if (waiting && text(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') {
      reason = `Init:${text(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  const initialized = list(status.conditions).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = obj(statuses[i]);
      const state = obj(container.state);
      const terminated = state.terminated === undefined ? undefined : obj(state.terminated);
      const waiting = state.waiting === undefined ? undefined : obj(state.waiting);
      restarts += int(container.restartCount);
      lastRestart = later(lastRestart, obj(obj(container.lastState).terminated).finishedAt);
      if (waiting && text(waiting.reason) !== '') reason = text(waiting.reason);
      else if (terminated && text(terminated.reason) !== '') reason = text(terminated.reason);
      else if (terminated) reason = int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      else if (container.ready === true && state.running !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = list(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }

  const deleting = typeof pod.metadata.deletionTimestamp === 'string';
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsCell = restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  const summary: PodSummary = { ready: `${ready}/${total}`, status: reason, restarts: restartsCell };
  if (phase === 'Succeeded') summary.conditions = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') summary.conditions = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return summary;
}

/** The wide cells: the first pod IP, the node, the nominated node, and readiness gates met of those declared. */
export function podWideCells(pod: KubeObject): [string, string, string, string] {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const ip = text(obj(list(status.podIPs)[0]).ip) || '<none>';
  const gates = list(spec.readinessGates);
  let readiness = '<none>';
  if (gates.length > 0) {
    const conditions = list(status.conditions);
    const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
    readiness = `${met}/${gates.length}`;
  }
  return [ip, text(spec.nodeName) || '<none>', text(status.nominatedNodeName) || '<none>', readiness];
}
