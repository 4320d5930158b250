import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  equalIgnoreHash,
  findNewReplicaSet,
  kubeletReport,
  newReplicaSetAnnotations,
  podTemplateHash,
  type GatewayDeployment,
  type KubeletPod,
} from './gateway-status.ts';
import type { ConfigSource } from './pod-config.ts';

const NOW = '2030-01-02T03:04:05Z';

function source(objects: Record<string, string[]>): ConfigSource {
  return {
    keysOf: (kind, _ns, name) => {
      const keys = objects[`${kind}/${name}`];
      return keys && { data: new Set(keys), binaryData: new Set() };
    },
  };
}

const pod = (status?: KubeletPod['status']): KubeletPod => ({
  metadata: { name: 'gw-1', namespace: 'ns' },
  spec: {
    containers: [
      { name: 'gateway', image: 'gw:1', env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'creds', key: 'value' } } }], volumeMounts: [{ name: 'config', mountPath: '/etc/gw' }] },
      { name: 'sidecar', image: 'side:1' },
    ],
    volumes: [{ name: 'config', configMap: { name: 'settings' } }],
  },
  status,
});

describe('the kubelet report', () => {
  it('E3 volumes come first: while one does not mount every container waits ContainerCreating, and only FailedMount is recorded', () => {
    const report = kubeletReport(pod(), source({}), NOW);
    expect(report.status.phase).toBe('Pending');
    expect(report.status.containerStatuses.map((c) => [c.name, c.ready, c.state])).toEqual([
      ['gateway', false, { waiting: { reason: 'ContainerCreating' } }],
      ['sidecar', false, { waiting: { reason: 'ContainerCreating' } }],
    ]);
    expect(report.status.conditions).toContainEqual({ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [gateway sidecar]' });
    expect(report.events).toEqual([{ reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "config" : configmap "settings" not found' }]);
    expect(report.starting).toEqual([]);
  });

  it('E3 then each container\'s environment: one that cannot resolve waits CreateContainerConfigError with a Failed event, the others start', () => {
    const report = kubeletReport(pod(), source({ 'ConfigMap/settings': ['a'] }), NOW);
    expect(report.status.phase).toBe('Pending');
    expect(report.status.containerStatuses.map((c) => [c.name, c.ready, c.state])).toEqual([
      ['gateway', false, { waiting: { reason: 'CreateContainerConfigError', message: 'secret "creds" not found' } }],
      ['sidecar', true, { running: { startedAt: NOW } }],
    ]);
    expect(report.events).toEqual([{ reason: 'Failed', message: 'Error: secret "creds" not found', fieldPath: 'spec.containers{gateway}' }]);
    expect(report.starting).toEqual(['sidecar']);
  });

  it('E3 a running container keeps running, with its start time, whatever happens to its Secret and volumes', () => {
    const running = { containerStatuses: [{ name: 'gateway', state: { running: { startedAt: new Date('2030-01-01T00:00:00.000Z') } } }, { name: 'sidecar', state: { running: { startedAt: '2030-01-01T00:00:01Z' } } }] };
    const report = kubeletReport(pod(running), source({}), NOW);
    expect(report.status.phase).toBe('Running');
    expect(report.status.containerStatuses.map((c) => c.state)).toEqual([{ running: { startedAt: '2030-01-01T00:00:00Z' } }, { running: { startedAt: '2030-01-01T00:00:01Z' } }]);
    expect(report.events).toEqual([]);
    expect(report.starting).toEqual([]);
  });
});

describe('ReplicaSets, as the deployment controller keeps them', () => {
  const template = {
    metadata: { labels: { app: 'gw', tier: 'x' }, annotations: { 'example.com/rev': 'r1' } },
    spec: { containers: [{ name: 'gateway', image: 'gw:1', env: [{ name: 'A', value: '1' }] }], serviceAccountName: 'default' },
  };

  it('E3 the pod-template-hash is the same whatever the key order, absent values or date spelling it was read with', () => {
    const reordered = {
      spec: { serviceAccountName: 'default', containers: [{ env: [{ value: '1', name: 'A' }], image: 'gw:1', name: 'gateway', ports: undefined }] },
      metadata: { creationTimestamp: null, annotations: { 'example.com/rev': 'r1' }, labels: { tier: 'x', app: 'gw' } },
    };
    expect(canonicalJson(reordered)).toBe(canonicalJson(template));
    expect(podTemplateHash(reordered)).toBe(podTemplateHash(template));
    expect(podTemplateHash(template)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(canonicalJson({ t: new Date('2030-01-01T00:00:00.000Z') })).toBe(canonicalJson({ t: '2030-01-01T00:00:00Z' }));
    const changed = { ...template, metadata: { ...template.metadata, annotations: { 'example.com/rev': 'r2' } } };
    expect(podTemplateHash(changed)).not.toBe(podTemplateHash(template));
  });

  it('E3 the template\'s ReplicaSet is the oldest whose template equals it but for the pod-template-hash label', () => {
    const withHash = (hash: string) => ({ ...template, metadata: { ...template.metadata, labels: { ...template.metadata.labels, 'pod-template-hash': hash } } });
    expect(equalIgnoreHash(withHash('abc'), template)).toBe(true);
    const other = { ...template, spec: { ...template.spec, serviceAccountName: 'other' } };
    const sets = [
      { metadata: { name: 'gw-b', creationTimestamp: '2030-01-01T00:00:02Z' }, spec: { template: withHash('b') } },
      { metadata: { name: 'gw-o', creationTimestamp: '2030-01-01T00:00:00Z' }, spec: { template: other } },
      { metadata: { name: 'gw-a', creationTimestamp: new Date('2030-01-01T00:00:01Z') }, spec: { template: withHash('a') } },
    ];
    expect(findNewReplicaSet(template, sets)?.metadata.name).toBe('gw-a');
    expect(findNewReplicaSet({ ...template, spec: { containers: [] } }, sets)).toBeUndefined();
  });

  it('E3 revisions: a new template takes max+1, a template rolled back to takes a new max+1 and keeps its former number in the history', () => {
    const deployment: GatewayDeployment = { metadata: { annotations: { 'example.com/owner': 'tests', 'deployment.kubernetes.io/revision': '9' } }, spec: { replicas: 2 } };
    const created = newReplicaSetAnnotations(deployment, {}, 0, false);
    expect(created).toEqual({
      'example.com/owner': 'tests',
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
    // The current one, found again (after a restart): nothing changes.
    expect(newReplicaSetAnnotations(deployment, created, 0, true)).toEqual(created);
    // The second template, while the first has 1.
    expect(newReplicaSetAnnotations(deployment, {}, 1, false)['deployment.kubernetes.io/revision']).toBe('2');
    // Back to the first template while the newest old one has 2: it becomes 3, and 1 goes to the history.
    const rolledBack = newReplicaSetAnnotations(deployment, created, 2, true);
    expect(rolledBack['deployment.kubernetes.io/revision']).toBe('3');
    expect(rolledBack['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(newReplicaSetAnnotations(deployment, { ...rolledBack, 'deployment.kubernetes.io/revision': '5' }, 5, true)['deployment.kubernetes.io/revision-history']).toBe('1,5');
    // A revision above every old one stays (old ReplicaSets may have been deleted).
    expect(newReplicaSetAnnotations(deployment, { 'deployment.kubernetes.io/revision': '7' }, 2, true)['deployment.kubernetes.io/revision']).toBe('7');
  });
});
