// E10: a Pod's READY, STATUS and RESTARTS as kube-apiserver 1.33's printPod writes them. The
// expected cells are the ones a real cluster shows for these statuses (kubectl get pods), written
// out here rather than taken from the printer.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../types.ts';
import { podSummary, podWideCells } from './pod.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

function pod(spec: Record<string, unknown>, status: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'p', creationTimestamp: ago(600), ...metadata }, spec: { containers: [{ name: 'gateway', image: 'g:1' }], ...spec }, status } as KubeObject;
}

const running = { name: 'gateway', ready: true, restartCount: 0, state: { running: { startedAt: ago(60) } } };

describe('E10 pod STATUS, READY and RESTARTS by the rules of the real printer', () => {
  it('a running, ready container: Running, 1/1, 0', () => {
    expect(podSummary(pod({}, { phase: 'Running', containerStatuses: [running] }), NOW)).toEqual({ ready: '1/1', status: 'Running', restarts: '0' });
  });

  it("a container waiting in CrashLoopBackOff shows that reason, and its restarts with the last one's age", () => {
    const crashing = {
      name: 'gateway',
      ready: false,
      restartCount: 4,
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
      lastState: { terminated: { exitCode: 3, reason: 'Error', finishedAt: ago(90) } },
    };
    expect(podSummary(pod({}, { phase: 'Running', containerStatuses: [crashing] }), NOW)).toEqual({ ready: '0/1', status: 'CrashLoopBackOff', restarts: '4 (90s ago)' });
  });

  it('a container that cannot be configured shows CreateContainerConfigError while the pod is Pending', () => {
    const waiting = { name: 'gateway', ready: false, restartCount: 0, state: { waiting: { reason: 'CreateContainerConfigError', message: 'secret "creds" not found' } } };
    expect(podSummary(pod({}, { phase: 'Pending', containerStatuses: [waiting] }), NOW).status).toBe('CreateContainerConfigError');
  });

  it('of two containers, the first one listed that is not running names the status', () => {
    const first = { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } };
    const second = { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } };
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    expect(podSummary(pod(spec, { phase: 'Pending', containerStatuses: [first, second] }), NOW)).toMatchObject({ ready: '0/2', status: 'ImagePullBackOff' });
  });

  it('a terminated container without a reason prints its exit code or signal', () => {
    const exited = { name: 'gateway', ready: false, restartCount: 0, state: { terminated: { exitCode: 137 } } };
    expect(podSummary(pod({}, { phase: 'Failed', containerStatuses: [exited] }), NOW).status).toBe('ExitCode:137');
    const signalled = { name: 'gateway', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, signal: 9 } } };
    expect(podSummary(pod({}, { phase: 'Failed', containerStatuses: [signalled] }), NOW).status).toBe('Signal:9');
  });

  it('a pod whose containers completed is Completed, and its row is marked Completed', () => {
    const done = { name: 'gateway', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } };
    expect(podSummary(pod({}, { phase: 'Succeeded', containerStatuses: [done] }), NOW)).toEqual({
      ready: '0/1',
      status: 'Completed',
      restarts: '0',
      conditions: [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }],
    });
  });

  it('Completed with another container still running is Running when the pod is Ready, NotReady otherwise', () => {
    const spec = { containers: [{ name: 'gateway' }, { name: 'job' }] };
    const statuses = [running, { name: 'job', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }];
    expect(podSummary(pod(spec, { phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'True' }] }), NOW).status).toBe('Running');
    expect(podSummary(pod(spec, { phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'False' }] }), NOW).status).toBe('NotReady');
  });

  it('a pod being deleted is Terminating, unless it already finished', () => {
    const deleting = { deletionTimestamp: ago(5) };
    expect(podSummary(pod({}, { phase: 'Running', containerStatuses: [running] }, deleting), NOW).status).toBe('Terminating');
    expect(podSummary(pod({}, { phase: 'Succeeded' }, deleting), NOW).status).toBe('Succeeded');
    expect(podSummary(pod({}, { phase: 'Running', reason: 'NodeLost' }, deleting), NOW).status).toBe('Unknown');
  });

  it('init containers: Init:i/n while one runs, Init:<reason> when one waits or fails, then the containers', () => {
    const spec = { initContainers: [{ name: 'migrate' }, { name: 'seed' }] };
    const doneInit = { name: 'migrate', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } };
    const runningInit = { name: 'seed', ready: false, restartCount: 0, state: { running: {} } };
    const pending = { name: 'gateway', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } };
    expect(podSummary(pod(spec, { phase: 'Pending', initContainerStatuses: [doneInit, runningInit], containerStatuses: [pending] }), NOW)).toEqual({
      ready: '0/1',
      status: 'Init:1/2',
      restarts: '0',
    });
    const crashingInit = { name: 'migrate', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } };
    expect(podSummary(pod(spec, { phase: 'Pending', initContainerStatuses: [crashingInit, runningInit], containerStatuses: [pending] }), NOW)).toMatchObject({
      status: 'Init:CrashLoopBackOff',
      restarts: '2',
    });
    const failedInit = { name: 'migrate', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } };
    expect(podSummary(pod(spec, { phase: 'Pending', initContainerStatuses: [failedInit] }), NOW).status).toBe('Init:ExitCode:2');
    expect(podSummary(pod(spec, { phase: 'Running', initContainerStatuses: [doneInit, { ...doneInit, name: 'seed' }], containerStatuses: [running] }), NOW).status).toBe('Running');
  });

  it('a started sidecar (restartable init container) counts among the containers and their readiness', () => {
    const spec = { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] };
    const sidecar = { name: 'proxy', ready: true, started: true, restartCount: 1, state: { running: {} } };
    expect(podSummary(pod(spec, { phase: 'Running', initContainerStatuses: [sidecar], containerStatuses: [running], conditions: [{ type: 'Initialized', status: 'True' }] }), NOW)).toEqual({
      ready: '2/2',
      status: 'Running',
      restarts: '1',
    });
  });

  it('a scheduling-gated pod says SchedulingGated', () => {
    expect(podSummary(pod({}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }), NOW).status).toBe('SchedulingGated');
  });

  it('wide cells: the first pod IP, the node, <none> for what is not set, readiness gates met of declared', () => {
    expect(podWideCells(pod({}, {}))).toEqual(['<none>', '<none>', '<none>', '<none>']);
    const gated = pod(
      { nodeName: 'node-1', readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
      { podIPs: [{ ip: '10.1.0.4' }, { ip: 'fd00::4' }], nominatedNodeName: 'node-2', conditions: [{ type: 'example.com/lb', status: 'True' }] },
    );
    expect(podWideCells(gated)).toEqual(['10.1.0.4', 'node-1', 'node-2', '1/2']);
  });
});
