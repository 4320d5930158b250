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

describe('RC2 every phase says its conditions exactly (written out)', () => {
  const observed = (deploymentObserved: ObservedDeployment | null, pods: ObservedPod[]) => ({ deployment: deploymentObserved, pods, missingMounts: [], applyError: null });
  const said = (s: InstanceStatus) => s.conditions.map((c) => [c.type, c.status, c.reason, c.message]);
  const stoppedRender = renderGateway(instance({ ...spec, replicas: 0 }));
  const asSpecified = ['Degraded', 'False', 'AsSpecified', 'the gateway runs as the instance specifies'];

  it('RC2 RC4 RC5 Missing, Stopped, Stopping, Running, RollingOut and a passed deadline, each condition with its reason and message', () => {
    expect(said(instanceStatus(2, render, observed(null, []), now))).toEqual([
      ['Ready', 'False', 'GatewayMissing', 'the gateway Deployment does not exist'],
      ['Progressing', 'True', 'Creating', 'creating the gateway'],
      asSpecified,
    ]);
    expect(said(instanceStatus(2, stoppedRender, observed(deployment({ hash: stoppedRender.templateHash }), []), now))).toEqual([
      ['Ready', 'False', 'ScaledToZero', 'the gateway is scaled to zero'],
      ['Progressing', 'False', 'Stopped', 'no gateway Pod runs'],
      asSpecified,
    ]);
    expect(said(instanceStatus(2, stoppedRender, observed(deployment({ hash: stoppedRender.templateHash }), [pod('old', 'running')]), now))).toEqual([
      ['Ready', 'False', 'ScaledToZero', 'the gateway is scaled to zero'],
      ['Progressing', 'True', 'Stopping', 'the gateway Pods are stopping'],
      asSpecified,
    ]);
    expect(said(instanceStatus(7, render, observed(deployment(), [pod(render.templateHash, 'running')]), now))).toEqual([
      ['Ready', 'True', 'GatewayReady', '1 of 1 gateway Pods ready at generation 7'],
      ['Progressing', 'False', 'RolloutComplete', 'the gateway runs generation 7'],
      asSpecified,
    ]);
    expect(said(instanceStatus(7, render, observed(deployment({ available: false }), [pod(render.templateHash, { reason: 'ContainerCreating', message: '' })]), now))).toEqual([
      ['Ready', 'False', 'RollingOut', '0 of 1 gateway Pods of generation 7 ready'],
      ['Progressing', 'True', 'RollingOut', 'rolling out generation 7'],
      asSpecified,
    ]);
    const stuck = instanceStatus(7, render, observed(deployment({ available: false, progressing: { status: 'False', reason: 'ProgressDeadlineExceeded' } }), []), now);
    expect(stuck.phase).toBe('Degraded');
    expect(said(stuck)).toEqual([
      ['Ready', 'False', 'ProgressDeadlineExceeded', 'the gateway exceeded its progress deadline'],
      ['Progressing', 'False', 'ProgressDeadlineExceeded', 'the gateway exceeded its progress deadline'],
      ['Degraded', 'True', 'ProgressDeadlineExceeded', 'the gateway exceeded its progress deadline'],
    ]);
  });

  it('RC2 RC3 a blocking reason is the first said whatever order it was found in; a non-blocking one alone keeps a rollout Progressing', () => {
    // An unadmitted reference (not blocking) is found before a container's state (blocking).
    const withIgnored = { ...render, ignoredEnv: [{ name: 'K', reason: 'unadmitted-reference' as const, owners: [] }] } as typeof render;
    const blocked = instanceStatus(2, withIgnored, observed(deployment({ available: false }), [pod(render.templateHash, { reason: 'ImagePullBackOff', message: 'no image' })]), now);
    expect(blocked.phase).toBe('Degraded');
    expect(said(blocked).slice(0, 1)).toEqual([['Ready', 'False', 'ImagePullBackOff', 'container gateway: no image']]);
    expect(condition(blocked, 'Degraded').reason).toBe('ImagePullBackOff');
    const notBlocked = instanceStatus(2, withIgnored, observed(deployment({ available: false }), []), now);
    expect(notBlocked.phase).toBe('Progressing');
    expect(condition(notBlocked, 'Degraded')).toMatchObject({ status: 'True', reason: 'UnadmittedReference' });
  });

  it('RC2 SC10 the replicas an old ready Pod serves name its revision only when it has both an id and a number; a stopped instance names none', () => {
    const old = (annotations: Record<string, string>, labels: Record<string, string>): ObservedPod => ({
      metadata: { name: 'old', annotations: { [TEMPLATE_HASH_ANNOTATION]: 'old', ...annotations }, labels },
      status: { containerStatuses: [{ name: 'gateway', ready: true, state: { running: {} } }] },
    });
    const running = (p: ObservedPod, r = render) => instanceStatus(2, r, observed(deployment({ available: false }), [p]), now).running;
    expect(running(old({ [REVISION_ID_ANNOTATION]: 'rev_a' }, { [REVISION_NUMBER_LABEL]: '1' }))).toEqual({ revision: { id: 'rev_a', number: 1 }, generation: null, readyReplicas: 1 });
    expect(running(old({}, { [REVISION_NUMBER_LABEL]: '1' }))).toEqual({ revision: null, generation: null, readyReplicas: 1 });
    expect(running(old({ [REVISION_ID_ANNOTATION]: 'rev_a' }, {}))).toEqual({ revision: null, generation: null, readyReplicas: 1 });
    expect(running(old({ [REVISION_ID_ANNOTATION]: 'rev_a' }, { [REVISION_NUMBER_LABEL]: 'x' }))).toEqual({ revision: null, generation: null, readyReplicas: 1 });
    // A Pod without annotations or labels at all is an old one (its hash is not the template's).
    expect(running({ metadata: { name: 'bare' }, status: { containerStatuses: [{ name: 'gateway', ready: true, state: { running: {} } }] } })).toEqual({ revision: null, generation: null, readyReplicas: 1 });
    // A ready Pod of a not-ready kind does not count; scaled to zero, nothing is running.
    expect(running({ metadata: { name: 'p', annotations: { [TEMPLATE_HASH_ANNOTATION]: 'old' } }, status: { containerStatuses: [{ name: 'gateway', ready: false, state: { running: {} } }] } })).toBeNull();
    expect(running(pod(stoppedRender.templateHash, 'running'), stoppedRender)).toBeNull();
    expect(running(pod('old', 'running'), stoppedRender)).toBeNull();
  });
});

describe('W5 revisionReadiness over every reading (a generated matrix against a decision table)', () => {
  const G = 5;
  type Condition = { type: string; status: string; reason: string; message: string; observedGeneration?: number };
  const readies: Array<Condition | null> = [null, { type: 'Ready', status: 'True', reason: 'GatewayReady', message: 'ready-true' }, { type: 'Ready', status: 'False', reason: 'RollingOut', message: 'ready-false' }];
  const degradeds: Array<Condition | null> = [
    null,
    { type: 'Degraded', status: 'True', reason: 'ImagePullBackOff', message: 'pull', observedGeneration: G - 1 },
    { type: 'Degraded', status: 'True', reason: 'ImagePullBackOff', message: 'pull', observedGeneration: G },
    { type: 'Degraded', status: 'True', reason: 'CrashLoopBackOff', message: 'crash', observedGeneration: G + 1 },
    { type: 'Degraded', status: 'True', reason: 'CrashLoopBackOff', message: 'crash' },
    { type: 'Degraded', status: 'True', reason: 'UnadmittedReference', message: 'unadmitted', observedGeneration: G },
    { type: 'Degraded', status: 'False', reason: 'ImagePullBackOff', message: 'old words', observedGeneration: G },
  ];
  const runnings = [
    undefined,
    null,
    { revision: null, generation: null, readyReplicas: 1 },
    ...[G - 1, G, G + 1, null].map((generation) => ({ revision: { id: 'rev_b', number: 2 }, generation, readyReplicas: 1 })),
    { revision: { id: 'rev_x', number: 9 }, generation: G, readyReplicas: 1 },
  ];
  const specs = [undefined, {}, { replicas: 1 }, { revision: { id: 'rev_x' }, replicas: 1 }, { revision: { id: 'rev_b' } }, { revision: { id: 'rev_b' }, replicas: 0 }, { revision: { id: 'rev_b' }, replicas: 2 }];
  const observedGenerations = [undefined, G - 1, G, G + 1];

  /** The decision table, row by row: the first row whose test holds answers. */
  function expected(reading: { spec?: (typeof specs)[number]; observed?: number; ready: Condition | null; degraded: Condition | null; running: (typeof runnings)[number] }): ReturnType<typeof revisionReadiness> {
    const rows: Array<[boolean, () => ReturnType<typeof revisionReadiness>]> = [
      [reading.spec?.revision?.id !== 'rev_b', () => ({ state: 'replaced', message: 'the instance holds another revision now' })],
      [reading.spec?.replicas === 0, () => ({ state: 'replaced', message: 'the agent was stopped' })],
      [(reading.observed ?? 0) < G, () => ({ state: 'progressing', message: `the reconciler has not rendered generation ${G} yet` })],
      [
        reading.ready?.status === 'True' && reading.running?.revision?.id === 'rev_b' && (reading.running.generation ?? 0) >= G,
        () => ({ state: 'ready', generation: reading.running!.generation ?? G }),
      ],
      [
        reading.degraded?.status === 'True' && ['ImagePullBackOff', 'CrashLoopBackOff'].includes(reading.degraded.reason) && (reading.degraded.observedGeneration ?? 0) >= G,
        () => ({ state: 'failed', reason: reading.degraded!.reason, message: reading.degraded!.message }),
      ],
      [true, () => ({ state: 'progressing', message: reading.ready?.message ?? 'waiting for the gateway' })],
    ];
    return rows.find(([holds]) => holds)![1]();
  }

  it('W5 no instance fails the wait, saying so', () => {
    expect(revisionReadiness(null, 'rev_b', G)).toEqual({ state: 'failed', reason: 'InstanceMissing', message: 'the OpenClawInstance was deleted' });
  });

  it('W5 RC2 each spec × observed generation × Ready × Degraded × running × the conditions\' order answers as the table says', () => {
    let cases = 0;
    const answered = new Set<string>();
    for (const specRead of specs)
      for (const observedGeneration of observedGenerations)
        for (const ready of readies)
          for (const degraded of degradeds)
            for (const running of runnings)
              for (const degradedFirst of [false, true]) {
                const conditions = (degradedFirst ? [degraded, ready] : [ready, degraded]).filter((c): c is Condition => c !== null);
                const status: Record<string, unknown> = { conditions };
                if (observedGeneration !== undefined) status.observedGeneration = observedGeneration;
                if (running !== undefined) status.running = running;
                const reading = { ...(specRead === undefined ? {} : { spec: specRead }), status } as Parameters<typeof revisionReadiness>[0];
                const got = revisionReadiness(reading, 'rev_b', G);
                expect(got, JSON.stringify(reading)).toEqual(expected({ spec: specRead, observed: observedGeneration, ready, degraded, running }));
                answered.add(got.state);
                cases++;
              }
    expect(cases).toBe(specs.length * observedGenerations.length * readies.length * degradeds.length * runnings.length * 2);
    expect([...answered].sort()).toEqual(['failed', 'progressing', 'ready', 'replaced']);
  });
});

describe('RC2 what the reconciler compares and when it writes (exact edges)', () => {
  const observed = { deployment: deployment(), pods: [pod(render.templateHash, 'running')], missingMounts: [], applyError: null };

  it('RC2 sameStatus sees a change in running, in any field of any condition, and in their number; not in transition times', () => {
    const base = instanceStatus(2, render, observed, now);
    const copy = () => JSON.parse(JSON.stringify(base)) as InstanceStatus;
    expect(sameStatus(base, copy())).toBe(true);
    const later = copy();
    later.conditions[0]!.lastTransitionTime = '2030-01-01T00:00:00Z';
    expect(sameStatus(base, later)).toBe(true);
    const changes: Array<(s: InstanceStatus) => void> = [
      (s) => (s.running = null),
      (s) => (s.running = { ...s.running!, readyReplicas: 2 }),
      (s) => (s.observedGeneration = 3),
      (s) => (s.phase = 'Degraded'),
      (s) => (s.configMap = 'other'),
      (s) => s.conditions.pop(),
      ...(['type', 'status', 'reason', 'message'] as const).map((field) => (s: InstanceStatus) => (s.conditions[1]![field] = `${s.conditions[1]![field]}-changed` as never)),
      (s) => (s.conditions[2]!.observedGeneration = 1),
    ];
    for (const [i, change] of changes.entries()) {
      const changed = copy();
      change(changed);
      expect(sameStatus(base, changed), `change ${i}`).toBe(false);
      expect(sameStatus(changed, base), `change ${i}, reversed`).toBe(false);
    }
    // Nothing written yet (no status at all) is not the same as a status.
    expect(sameStatus(base, undefined)).toBe(false);
  });

  it('RC2 with no delay a status under way is written at once; a Degraded condition that is False does not settle it', () => {
    const underWay = instanceStatus(2, render, { deployment: deployment({ available: false }), pods: [pod('old', 'running', { id: 'rev_a', number: 1 })], missingMounts: [], applyError: null }, now);
    expect(statusWrite(underWay, null, undefined, 1000, 0)).toEqual({ action: 'write' });
    expect(statusWrite(underWay, null, undefined, 1000, 1)).toEqual({ action: 'hold', since: 1000, waitMs: 1 });
    // The Degraded condition is found by type and status: one that is False, even with a blocking
    // reason in it, holds the write back like any status under way.
    const falseButBlockingWords = { ...underWay, conditions: underWay.conditions.map((c) => (c.type === 'Degraded' ? { ...c, reason: 'ImagePullBackOff' } : c)) };
    expect(statusWrite(falseButBlockingWords, null, 500, 1000, 1000)).toEqual({ action: 'hold', since: 500, waitMs: 500 });
    // The Ready condition (first in the list) is False with a blocking-looking reason: still held.
    const readyWords = { ...underWay, conditions: underWay.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'True' as const, reason: 'ImagePullBackOff' } : c)) };
    expect(statusWrite(readyWords, null, 500, 1000, 1000)).toEqual({ action: 'hold', since: 500, waitMs: 500 });
  });
});

describe('RC2 what the API may leave out of a Deployment or a Pod (written out)', () => {
  const observe = (d: ObservedDeployment | null, pods: ObservedPod[]) => ({ deployment: d, pods, missingMounts: [], applyError: null });
  const readyStatus = { containerStatuses: [{ name: 'gateway', ready: true, state: { running: {} } }] };

  it('RC2 a Deployment without status, spec, template or metadata is one still rolling out, never a crash', () => {
    const partial: ObservedDeployment[] = [{}, { metadata: {} }, { spec: {} }, { spec: { template: {} } }, { spec: { template: { metadata: {} } } }, { spec: { replicas: 1, template: { metadata: { annotations: {} } } }, status: {} }];
    for (const d of partial) {
      const s = instanceStatus(2, render, observe(d, [pod(render.templateHash, 'running')]), now);
      expect(s.phase, JSON.stringify(d)).toBe('Progressing');
      expect(s.running).toEqual({ revision: { id: 'rev_b', number: 2 }, generation: 2, readyReplicas: 1 });
    }
  });

  it('RC2 rolled out needs the current template on the Deployment and every updated replica, whatever the Pods say', () => {
    const complete = deployment();
    const notRolledOut: ObservedDeployment[] = [
      deployment({ hash: 'an-older-template' }),
      { ...complete, status: { ...complete.status, updatedReplicas: 0 } },
      { ...complete, status: { ...complete.status, replicas: 0, updatedReplicas: 0 } },
      { ...complete, status: { ...complete.status, replicas: 2 } },
      { ...complete, status: { ...complete.status, availableReplicas: 0 } },
      { ...complete, status: { ...complete.status, observedGeneration: 4 } },
    ];
    for (const d of notRolledOut) expect(instanceStatus(2, render, observe(d, [pod(render.templateHash, 'running')]), now).phase, JSON.stringify(d.status)).toBe('Progressing');
    expect(instanceStatus(2, render, observe({ ...complete, metadata: {} }, [pod(render.templateHash, 'running')]), now).phase).toBe('Running');
    const { metadata: _none, ...withoutMetadata } = complete;
    expect(instanceStatus(2, render, observe(withoutMetadata, [pod(render.templateHash, 'running')]), now).phase).toBe('Running');
  });

  it('RC2 a Pod is a ready replica only when every container is ready; one without metadata, state or statuses is counted as what it is', () => {
    const twoContainers: ObservedPod = { ...pod(render.templateHash, 'running'), status: { containerStatuses: [{ name: 'gateway', ready: true, state: { running: {} } }, { name: 'sidecar', ready: false }] } };
    expect(instanceStatus(2, render, observe(deployment({ available: false }), [twoContainers]), now).running).toBeNull();
    // A Pod without metadata has no template hash: an old Pod, ready, of no known revision.
    expect(instanceStatus(2, render, observe(deployment({ available: false }), [{ status: readyStatus }]), now).running).toEqual({ revision: null, generation: null, readyReplicas: 1 });
    // A current Pod whose container has no state yet, or no container statuses at all: not ready, not failing.
    for (const status of [{ containerStatuses: [{ name: 'gateway', ready: false }] }, {}, undefined]) {
      const p: ObservedPod = { metadata: { name: 'p', annotations: { [TEMPLATE_HASH_ANNOTATION]: render.templateHash } }, ...(status ? { status } : {}) };
      const s = instanceStatus(2, render, observe(deployment({ available: false }), [p]), now);
      expect(s.running).toBeNull();
      expect(condition(s, 'Degraded').status).toBe('False');
    }
  });

  it('RC2 W5 a status with no conditions: revisionReadiness waits, and sameStatus takes it for an empty list', () => {
    expect(revisionReadiness({ spec, status: { observedGeneration: 3 } }, 'rev_b', 2)).toEqual({ state: 'progressing', message: 'waiting for the gateway' });
    const base = instanceStatus(2, render, observe(null, []), now);
    const noConditions = { ...base, conditions: [] };
    const { conditions: _omitted, ...withoutKey } = noConditions;
    expect(sameStatus(noConditions, withoutKey)).toBe(true);
    expect(sameStatus(noConditions, base)).toBe(false);
  });
});
