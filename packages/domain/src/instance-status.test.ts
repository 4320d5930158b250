import { describe, expect, it } from 'vitest';
import { renderGateway, REVISION_ID_ANNOTATION, TEMPLATE_HASH_ANNOTATION, type InstanceObject } from './gateway-render.ts';
import { BLOCKING_REASONS, instanceStatus, LAST_EXIT_MESSAGE_LIMIT, revisionReadiness, sameStatus, statusWrite, type InstanceStatus, type ObservedDeployment, type ObservedPod } from './instance-status.ts';
import { AGENT_ID_LABEL, INSTALLATION_ID_LABEL, REVISION_NUMBER_LABEL } from './kubernetes-names.ts';

const uuid = '00000000-0000-4000-8000-0000000000aa';
const now = '2026-12-02T18:00:00Z';

function instance(spec: Record<string, unknown>, generation = 2): InstanceObject {
  return { metadata: { name: `agent-${uuid}`, namespace: 'ns', uid: 'u', generation, labels: { [AGENT_ID_LABEL]: uuid, [INSTALLATION_ID_LABEL]: 'i' } }, spec };
}

const spec = { image: 'img', replicas: 1, revision: { id: 'rev_b', number: 2 } };
const render = renderGateway(instance(spec));

function deployment(overrides: { hash?: string; available?: boolean; progressing?: { status: string; reason: string } } = {}): ObservedDeployment {
  const ok = overrides.available ?? true;
  return {
    metadata: { generation: 5 },
    spec: { replicas: 1, template: { metadata: { annotations: { [TEMPLATE_HASH_ANNOTATION]: overrides.hash ?? render.templateHash } } } },
    status: {
      observedGeneration: 5,
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: ok ? 1 : 0,
      conditions: [
        { type: 'Available', status: ok ? 'True' : 'False' },
        { type: 'Progressing', status: overrides.progressing?.status ?? 'True', reason: overrides.progressing?.reason ?? 'NewReplicaSetAvailable' },
      ],
    },
  };
}

function pod(hash: string, state: 'running' | { reason: string; message: string }, revision = { id: 'rev_b', number: 2 }): ObservedPod {
  return {
    metadata: { name: `p-${Math.random()}`, annotations: { [TEMPLATE_HASH_ANNOTATION]: hash, [REVISION_ID_ANNOTATION]: revision.id }, labels: { [REVISION_NUMBER_LABEL]: String(revision.number) } },
    status: { containerStatuses: [state === 'running' ? { name: 'gateway', ready: true, state: { running: {} } } : { name: 'gateway', ready: false, state: { waiting: state } }] },
  };
}

const condition = (s: ReturnType<typeof instanceStatus>, type: string) => s.conditions.find((c) => c.type === type)!;

describe('the instance status the reconciler writes (RC2)', () => {
  it('RC2 W5 a rolled-out gateway with its Pods ready reports Ready, the generation and the revision they run', () => {
    const s = instanceStatus(2, render, { deployment: deployment(), pods: [pod(render.templateHash, 'running')], missingMounts: [], applyError: null }, now);
    expect(s).toMatchObject({ observedGeneration: 2, phase: 'Running', configMap: render.configMapName, running: { revision: { id: 'rev_b', number: 2 }, generation: 2, readyReplicas: 1 } });
    expect(condition(s, 'Ready')).toMatchObject({ status: 'True', reason: 'GatewayReady', observedGeneration: 2 });
    expect(condition(s, 'Degraded')).toMatchObject({ status: 'False' });
    expect(revisionReadiness({ metadata: { generation: 2 }, spec, status: s }, 'rev_b', 2)).toEqual({ state: 'ready', generation: 2 });
  });

  it('SC10 RC2 while the new template rolls out, the old Pods still serve: running names their revision, not the new generation', () => {
    const s = instanceStatus(2, render, { deployment: deployment({ available: true }), pods: [pod('old-hash', 'running', { id: 'rev_a', number: 1 }), pod(render.templateHash, { reason: 'ContainerCreating', message: '' })], missingMounts: [], applyError: null }, now);
    expect(s.phase).toBe('Progressing');
    expect(s.running).toEqual({ revision: { id: 'rev_a', number: 1 }, generation: null, readyReplicas: 1 });
    expect(condition(s, 'Ready')).toMatchObject({ status: 'False', reason: 'RollingOut' });
    expect(revisionReadiness({ spec, status: s }, 'rev_b', 2).state).toBe('progressing');
  });

  it('W5 RC2 a current Pod that cannot start is Degraded with the kubelet reason, and fails the revision at that generation (each blocking reason)', () => {
    for (const reason of ['CreateContainerConfigError', 'ImagePullBackOff', 'CrashLoopBackOff', 'ErrImagePull', 'InvalidImageName', 'CreateContainerError']) {
      const s = instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [pod(render.templateHash, { reason, message: `the kubelet says ${reason}` })], missingMounts: [], applyError: null }, now);
      expect(condition(s, 'Degraded')).toMatchObject({ status: 'True', reason });
      expect(BLOCKING_REASONS).toContain(reason);
      expect(revisionReadiness({ spec, status: s }, 'rev_b', 2)).toEqual({ state: 'failed', reason, message: `container gateway: the kubelet says ${reason}` });
      // The same status said of an older generation does not fail a newer revision's apply.
      expect(revisionReadiness({ spec, status: s }, 'rev_b', 3).state).toBe('progressing');
    }
  });

  it("SG1 RC2 a crashing container's Degraded message carries its last exit code and termination message, bounded; a status without lastState says only the kubelet's words", () => {
    const crashing = (terminated: Record<string, unknown> | undefined): ObservedPod => ({
      metadata: { name: 'p', annotations: { [TEMPLATE_HASH_ANNOTATION]: render.templateHash } },
      status: { containerStatuses: [{ name: 'gateway', ready: false, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=gateway' } }, ...(terminated ? { lastState: { terminated } } : {}) }] },
    });
    const degraded = (p: ObservedPod) => condition(instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [p], missingMounts: [], applyError: null }, now), 'Degraded');
    expect(degraded(crashing({ exitCode: 3, reason: 'Error', message: 'Invalid config: agents.x: unknown key\n' }))).toMatchObject({
      status: 'True',
      reason: 'CrashLoopBackOff',
      message: 'container gateway: back-off 10s restarting failed container=gateway; last exited with code 3 (Error): Invalid config: agents.x: unknown key',
    });
    expect(degraded(crashing(undefined)).message).toBe('container gateway: back-off 10s restarting failed container=gateway');
    const long = degraded(crashing({ exitCode: 1, message: 'x'.repeat(5000) })).message;
    expect(long).toContain(`last exited with code 1: ${'x'.repeat(LAST_EXIT_MESSAGE_LIMIT)}…`);
    expect(long).not.toContain('x'.repeat(LAST_EXIT_MESSAGE_LIMIT + 1));
  });

  it('RC4 W5 a volume that cannot mount, a refused child and an exceeded deadline are blocking; an unadmitted reference is shown but not blocking', () => {
    const mount = instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [pod(render.templateHash, { reason: 'ContainerCreating', message: '' })], missingMounts: ['MountVolume.SetUp failed for volume "model-auth" : secret "m" not found'], applyError: null }, now);
    expect(condition(mount, 'Degraded')).toMatchObject({ status: 'True', reason: 'FailedMount' });
    const refused = instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [], missingMounts: [], applyError: 'the API server refused the Deployment' }, now);
    expect(condition(refused, 'Degraded').reason).toBe('ApplyFailed');
    const stuck = instanceStatus(2, render, { deployment: deployment({ available: false, progressing: { status: 'False', reason: 'ProgressDeadlineExceeded' } }), pods: [], missingMounts: [], applyError: null }, now);
    expect(condition(stuck, 'Degraded').reason).toBe('ProgressDeadlineExceeded');
    expect(condition(stuck, 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    const foreign = renderGateway({ ...instance({ ...spec, env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'n', key: 'value' } } }] }), metadata: { ...instance(spec).metadata, managedFields: [] } });
    const shown = instanceStatus(2, foreign, { deployment: deployment({ hash: foreign.templateHash }), pods: [pod(foreign.templateHash, 'running')], missingMounts: [], applyError: null }, now);
    expect(condition(shown, 'Ready').status).toBe('True');
    expect(condition(shown, 'Degraded')).toMatchObject({ status: 'True', reason: 'UnadmittedReference' });
    expect(revisionReadiness({ spec, status: shown }, 'rev_b', 2).state).toBe('ready');
  });

  it('RC4 RC5 no Deployment is GatewayMissing; zero replicas is ScaledToZero; neither is Ready', () => {
    const missing = instanceStatus(2, render, { deployment: null, pods: [], missingMounts: [], applyError: null }, now);
    expect(missing.phase).toBe('Missing');
    expect(condition(missing, 'Ready')).toMatchObject({ status: 'False', reason: 'GatewayMissing' });
    const stopped = renderGateway(instance({ ...spec, replicas: 0 }));
    const s = instanceStatus(2, stopped, { deployment: deployment({ hash: stopped.templateHash }), pods: [], missingMounts: [], applyError: null }, now);
    expect(s.phase).toBe('Stopped');
    expect(condition(s, 'Ready').reason).toBe('ScaledToZero');
    expect(revisionReadiness({ spec: { ...spec, replicas: 0 }, status: s }, 'rev_b', 2).state).toBe('replaced');
  });

  it('W5 another revision on the instance, or no instance, ends the wait', () => {
    expect(revisionReadiness({ spec: { revision: { id: 'rev_c' } } }, 'rev_b', 2).state).toBe('replaced');
    expect(revisionReadiness(null, 'rev_b', 2)).toMatchObject({ state: 'failed', reason: 'InstanceMissing' });
  });

  it('RC2 a condition that keeps its status keeps its transition time; the reconciler writes only a change', () => {
    const observed = { deployment: deployment(), pods: [pod(render.templateHash, 'running')], missingMounts: [], applyError: null };
    const first = instanceStatus(2, render, observed, now);
    const second = instanceStatus(2, render, observed, '2026-12-02T19:00:00Z', first.conditions);
    expect(second.conditions.map((c) => c.lastTransitionTime)).toEqual(first.conditions.map((c) => c.lastTransitionTime));
    expect(sameStatus(second, JSON.parse(JSON.stringify(first)))).toBe(true);
    const changed = instanceStatus(2, render, { ...observed, pods: [] }, '2026-12-02T19:00:00Z', first.conditions);
    expect(sameStatus(changed, first)).toBe(false);
    expect(changed.conditions.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe('2026-12-02T19:00:00Z');
  });
});

describe('when the reconciler writes the status (RC2 statusWrite)', () => {
  // Every kind of status instanceStatus produces, from the observations that make it. Made inside
  // each test (not while the file is collected), so a mutation run's changes to instanceStatus reach it.
  const statuses = (): Record<string, InstanceStatus> => ({
    running: instanceStatus(2, render, { deployment: deployment(), pods: [pod(render.templateHash, 'running')], missingMounts: [], applyError: null }, now),
    'rolling out': instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [pod('old', 'running', { id: 'rev_a', number: 1 })], missingMounts: [], applyError: null }, now),
    missing: instanceStatus(2, render, { deployment: null, pods: [], missingMounts: [], applyError: null }, now),
    stopped: instanceStatus(2, renderGateway(instance({ ...spec, replicas: 0 })), { deployment: deployment(), pods: [], missingMounts: [], applyError: null }, now),
    stopping: instanceStatus(2, renderGateway(instance({ ...spec, replicas: 0 })), { deployment: deployment(), pods: [pod('old', 'running')], missingMounts: [], applyError: null }, now),
    ...Object.fromEntries(
      BLOCKING_REASONS.filter((r) => !['FailedMount', 'ProgressDeadlineExceeded', 'ApplyFailed'].includes(r)).map((reason) => [
        `blocked: ${reason}`,
        instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [pod(render.templateHash, { reason, message: 'x' })], missingMounts: [], applyError: null }, now),
      ]),
    ),
    'blocked: FailedMount': instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [pod(render.templateHash, { reason: 'ContainerCreating', message: '' })], missingMounts: ['secret "m" not found'], applyError: null }, now),
    'blocked: ApplyFailed': instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [], missingMounts: [], applyError: 'refused' }, now),
  });
  const underWay = new Set(['rolling out', 'missing', 'stopping']);

  it('RC2 the matrix of statuses: a settled or blocked one is written at once, one under way only once it has stood the delay, one already written never', () => {
    const observed = statuses();
    expect(Object.keys(observed).length).toBeGreaterThan(8);
    for (const [name, status] of Object.entries(observed)) {
      const progressing = status.conditions.find((c) => c.type === 'Progressing')?.status === 'True';
      expect(progressing && !name.startsWith('blocked'), name).toBe(underWay.has(name));
      expect(statusWrite(status, status, undefined, 10_000, 1_000), name).toEqual({ action: 'none' });
      expect(statusWrite(status, {}, undefined, 10_000, 0), `${name}, no delay`).toEqual({ action: 'write' });
      if (underWay.has(name)) {
        expect(statusWrite(status, {}, undefined, 10_000, 1_000), name).toEqual({ action: 'hold', since: 10_000, waitMs: 1_000 });
        expect(statusWrite(status, {}, 10_000, 10_400, 1_000), name).toEqual({ action: 'hold', since: 10_000, waitMs: 600 });
        expect(statusWrite(status, {}, 10_000, 11_000, 1_000), name).toEqual({ action: 'write' });
      } else {
        expect(statusWrite(status, {}, undefined, 10_000, 1_000), name).toEqual({ action: 'write' });
        expect(statusWrite(status, observed['rolling out'], 9_999, 10_000, 1_000), `${name} after a held status`).toEqual({ action: 'write' });
      }
    }
  });

  it('RC2 W5 a rollout that completes within the delay writes only its outcome, which W5 reads as ready', () => {
    const observed = statuses();
    let written: unknown = { ...observed.running!, observedGeneration: 1, running: { revision: { id: 'rev_a', number: 1 }, generation: 1, readyReplicas: 1 } };
    let held: number | undefined;
    const writes: string[] = [];
    const sequence: Array<[number, InstanceStatus]> = [[0, observed['rolling out']!], [150, observed['rolling out']!], [400, observed.running!]];
    for (const [at, status] of sequence) {
      const d = statusWrite(status, written, held, at, 1_000);
      if (d.action === 'hold') held = d.since;
      else held = undefined;
      if (d.action === 'write') {
        written = status;
        writes.push(status.phase);
      }
    }
    expect(writes).toEqual(['Running']);
    expect(revisionReadiness({ metadata: { generation: 2 }, spec: { revision: { id: 'rev_b' }, replicas: 1 }, status: written as InstanceStatus }, 'rev_b', 2)).toEqual({ state: 'ready', generation: 2 });
  });
});

describe('RC2 the status, exact answers (written out)', () => {
  const observe = (over: Partial<Parameters<typeof instanceStatus>[2]> = {}) => ({ deployment: deployment({ available: false }), pods: [] as ObservedPod[], missingMounts: [] as string[], applyError: null, ...over });
  const crash = (terminated: Record<string, unknown>, name: string | null = 'gateway'): ObservedPod => ({
    metadata: { name: 'p', annotations: { [TEMPLATE_HASH_ANNOTATION]: render.templateHash } },
    status: { containerStatuses: [{ ...(name === null ? {} : { name }), ready: false, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } }, lastState: { terminated } }] },
  });
  const degradedMessage = (p: ObservedPod) => condition(instanceStatus(2, render, observe({ pods: [p] }), now), 'Degraded').message;

  it.each<[string, Record<string, unknown>, string]>([
    ['a message of exactly the limit, whole', { exitCode: 1, message: 'x'.repeat(LAST_EXIT_MESSAGE_LIMIT) }, `container gateway: back-off; last exited with code 1: ${'x'.repeat(LAST_EXIT_MESSAGE_LIMIT)}`],
    ['a message one over the limit, cut with an ellipsis', { exitCode: 1, message: 'y'.repeat(LAST_EXIT_MESSAGE_LIMIT + 1) }, `container gateway: back-off; last exited with code 1: ${'y'.repeat(LAST_EXIT_MESSAGE_LIMIT)}…`],
    ['no exit code, no reason, no message', {}, 'container gateway: back-off; last exited with code ?'],
    ['a reason and a blank message', { exitCode: 137, reason: 'OOMKilled', message: '  \n' }, 'container gateway: back-off; last exited with code 137 (OOMKilled)'],
  ])('SG1 RC2 a last exit with %s', (_name, terminated, message) => {
    expect(degradedMessage(crash(terminated))).toBe(message);
  });

  it('SG1 RC2 a container without a name is still named as a container', () => {
    expect(degradedMessage(crash({ exitCode: 2 }, null))).toBe('container : back-off; last exited with code 2');
  });

  it('RC3 RC4 an ignored env entry says who set it (or that nobody known did) and what is delivered; neither is blocking', () => {
    const withIgnored = {
      ...render,
      ignoredEnv: [
        { name: 'A', reason: 'unadmitted-reference' as const, owners: [{ manager: 'kubectl-edit', operation: 'Update' }, { manager: 'helm', operation: 'Apply' }] },
        { name: 'B', reason: 'unadmitted-reference' as const, owners: [] },
        { name: 'C', reason: 'value-and-reference' as const, owners: [] },
      ],
    } as typeof render;
    const s = instanceStatus(2, withIgnored, { deployment: deployment(), pods: [pod(render.templateHash, 'running')], missingMounts: [], applyError: null }, now);
    expect(condition(s, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'UnadmittedReference',
      message:
        'env A takes its value from a reference no revision admitted (set by kubectl-edit (Update), helm (Apply)); it is not delivered; ' +
        'env B takes its value from a reference no revision admitted (set by an unknown manager); it is not delivered; ' +
        'env C holds both a literal and a reference; the reference is delivered',
    });
    expect(s.phase).toBe('Degraded');
    expect(condition(s, 'Ready').status).toBe('True');
    const valueOnly = instanceStatus(2, { ...withIgnored, ignoredEnv: [withIgnored.ignoredEnv[2]!] } as typeof render, { deployment: deployment(), pods: [pod(render.templateHash, 'running')], missingMounts: [], applyError: null }, now);
    expect(condition(valueOnly, 'Degraded').reason).toBe('ValueAndReference');
  });

  it('RC4 an exceeded deadline is the template\'s only when the Deployment holds the current one; its message defaults', () => {
    const stuck = (hash: string) => instanceStatus(2, render, observe({ deployment: deployment({ hash, available: false, progressing: { status: 'False', reason: 'ProgressDeadlineExceeded' } }) }), now);
    expect(condition(stuck(render.templateHash), 'Degraded')).toMatchObject({ reason: 'ProgressDeadlineExceeded', message: 'the gateway exceeded its progress deadline' });
    expect(condition(stuck('an-older-template'), 'Degraded').status).toBe('False');
    const other = instanceStatus(2, render, observe({ deployment: deployment({ available: false, progressing: { status: 'False', reason: 'Something' } }) }), now);
    expect(condition(other, 'Degraded').status).toBe('False');
  });

  it('RC4 a missing mount is Degraded only while current Pods exist and none of them is ready', () => {
    const mounts = ['MountVolume.SetUp failed: secret "m" not found'];
    const reasonWith = (pods: ObservedPod[]) => condition(instanceStatus(2, render, observe({ pods, missingMounts: mounts }), now), 'Degraded');
    expect(reasonWith([pod(render.templateHash, { reason: 'ContainerCreating', message: '' })])).toMatchObject({ status: 'True', reason: 'FailedMount', message: mounts[0] });
    expect(reasonWith([]).status).toBe('False');
    expect(reasonWith([pod(render.templateHash, 'running')]).status).toBe('False');
    expect(reasonWith([pod('old-hash', { reason: 'ContainerCreating', message: '' })]).status).toBe('False');
  });

  it('RC2 Pods being deleted, and Pods without container statuses, are not ready replicas', () => {
    const leaving = { ...pod(render.templateHash, 'running'), metadata: { ...pod(render.templateHash, 'running').metadata, deletionTimestamp: now } } as ObservedPod;
    const empty: ObservedPod = { metadata: { name: 'e', annotations: { [TEMPLATE_HASH_ANNOTATION]: render.templateHash } }, status: { containerStatuses: [] } };
    const bare: ObservedPod = { metadata: { name: 'b', annotations: { [TEMPLATE_HASH_ANNOTATION]: render.templateHash } } };
    for (const pods of [[leaving], [empty], [bare]]) {
      const s = instanceStatus(2, render, { deployment: deployment(), pods, missingMounts: [], applyError: null }, now);
      expect(s.phase).toBe('Progressing');
      expect(s.running).toBeNull();
      expect(condition(s, 'Ready')).toMatchObject({ status: 'False', reason: 'RollingOut', message: '0 of 1 gateway Pods of generation 2 ready' });
    }
  });

  it('RC2 a Deployment is rolled out only when its controller saw its generation and no old replica is left', () => {
    const base = deployment();
    const ready = [pod(render.templateHash, 'running')];
    const phase = (d: ObservedDeployment) => instanceStatus(2, render, { deployment: d, pods: ready, missingMounts: [], applyError: null }, now).phase;
    expect(phase(base)).toBe('Running');
    expect(phase({ ...base, status: { ...base.status, observedGeneration: 4 } })).toBe('Progressing');
    expect(phase({ ...base, status: { ...base.status, replicas: 2 } })).toBe('Progressing');
    expect(phase({ ...base, status: { ...base.status, updatedReplicas: 0 } })).toBe('Progressing');
    expect(phase({ ...base, status: { ...base.status, availableReplicas: 0 } })).toBe('Progressing');
    expect(phase({ ...base, status: {} })).toBe('Progressing');
  });
});
