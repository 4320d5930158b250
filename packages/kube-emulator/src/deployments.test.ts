import type { V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, jsonPatch, mergePatch, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await createNamespace(cluster, 'deploy');
});
afterAll(() => cluster.close());

function gateway(name: string, replicas = 1): V1Deployment {
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'gateway',
              image: 'ghcr.io/openclaw/gateway:1.2.3',
              env: [{ name: 'MODEL_KEY', valueFrom: { secretKeyRef: { name: 'creds', key: 'value', optional: false } } }],
            },
          ],
        },
      },
    },
  };
}

describe('deployments', () => {
  it('E1 creates a deployment with the defaults a real server fills in', async () => {
    const created = await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-a') });
    expect(created.kind).toBe('Deployment');
    expect(created.apiVersion).toBe('apps/v1');
    expect(created.metadata?.generation).toBe(1);
    expect(created.spec?.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    expect(created.spec?.revisionHistoryLimit).toBe(10);
    expect(created.spec?.progressDeadlineSeconds).toBe(600);
    const podSpec = created.spec?.template.spec;
    expect(podSpec?.restartPolicy).toBe('Always');
    expect(podSpec?.dnsPolicy).toBe('ClusterFirst');
    expect(podSpec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
    expect(podSpec?.containers[0]?.terminationMessagePath).toBe('/dev/termination-log');
    expect(podSpec?.containers[0]?.env?.[0]?.valueFrom?.secretKeyRef).toEqual({ name: 'creds', key: 'value', optional: false });
  });

  it('E1 gets, lists, replaces, patches and deletes a deployment', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-b') });
    const read = await cluster.apps.readNamespacedDeployment({ name: 'gw-b', namespace: ns });
    const list = await cluster.apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'app=gw-b' });
    expect(list.kind).toBe('DeploymentList');
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['gw-b']);

    read.spec!.template.spec!.containers[0]!.image = 'ghcr.io/openclaw/gateway:1.2.4';
    const replaced = await cluster.apps.replaceNamespacedDeployment({ name: 'gw-b', namespace: ns, body: read });
    expect(replaced.metadata?.generation).toBe(2);

    // A label leaves the generation; an annotation moves it (found by the E8 lane: the deployment
    // controller copies annotations to ReplicaSets, so the real strategy counts them).
    const labelled = await cluster.apps.patchNamespacedDeployment(
      { name: 'gw-b', namespace: ns, body: { metadata: { labels: { tier: 'x' } } } },
      mergePatch,
    );
    expect(labelled.metadata?.generation).toBe(2);
    const annotated = await cluster.apps.patchNamespacedDeployment(
      { name: 'gw-b', namespace: ns, body: { metadata: { annotations: { note: 'x' } } } },
      mergePatch,
    );
    expect(annotated.metadata?.generation).toBe(3);

    const scaled = await cluster.apps.patchNamespacedDeployment(
      { name: 'gw-b', namespace: ns, body: [{ op: 'replace', path: '/spec/replicas', value: 0 }] },
      jsonPatch,
    );
    expect(scaled.spec?.replicas).toBe(0);
    expect(scaled.metadata?.generation).toBe(4);

    const status = await cluster.apps.deleteNamespacedDeployment({ name: 'gw-b', namespace: ns });
    expect(status.details).toMatchObject({ name: 'gw-b', group: 'apps', kind: 'deployments' });
    const { code, body } = await apiFailure(cluster.apps.readNamespacedDeployment({ name: 'gw-b', namespace: ns }));
    expect(code).toBe(404);
    expect(body.message).toBe('deployments.apps "gw-b" not found');
    expect(body.details).toEqual({ name: 'gw-b', group: 'apps', kind: 'deployments' });
  });

  it('E1 a selector that does not match the template labels is a 422 Deployment.apps', async () => {
    const bad = gateway('gw-c');
    bad.spec!.template.metadata!.labels = { app: 'other' };
    const { code, body } = await apiFailure(cluster.apps.createNamespacedDeployment({ namespace: ns, body: bad }));
    expect(code).toBe(422);
    expect(body.details).toMatchObject({ name: 'gw-c', group: 'apps', kind: 'Deployment' });
    expect(body.message).toBe(
      'Deployment.apps "gw-c" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );
  });

  it('E1 the main resource ignores status; /status writes only status', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-d') });
    const ignored = await cluster.apps.patchNamespacedDeployment(
      { name: 'gw-d', namespace: ns, body: { status: { readyReplicas: 5 } } },
      mergePatch,
    );
    expect(ignored.status?.readyReplicas).toBeUndefined();

    const withStatus = await cluster.apps.patchNamespacedDeploymentStatus(
      { name: 'gw-d', namespace: ns, body: { status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 }, spec: { replicas: 9 } } },
      mergePatch,
    );
    expect(withStatus.status?.readyReplicas).toBe(1);
    expect(withStatus.spec?.replicas).toBe(1);
    expect(withStatus.metadata?.generation).toBe(1);
  });

  it("E3 /status takes annotations too, as the deployment controller writes its revision there; labels, spec and the generation stay", async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-rev') });
    const patched = await cluster.apps.patchNamespacedDeploymentStatus(
      {
        name: 'gw-rev',
        namespace: ns,
        body: { metadata: { annotations: { 'deployment.kubernetes.io/revision': '1' }, labels: { app: 'other' } }, spec: { replicas: 9 }, status: { observedGeneration: 1 } },
        fieldManager: 'deployment-controller',
      },
      mergePatch,
    );
    expect(patched.metadata?.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    expect(patched.metadata?.labels).toEqual({ app: 'gw-rev' });
    expect(patched.spec?.replicas).toBe(1);
    expect(patched.metadata?.generation).toBe(1);
    expect(patched.status?.observedGeneration).toBe(1);
    const entry = patched.metadata?.managedFields?.find((m) => m.manager === 'deployment-controller');
    // D7: 1.20 also records the labels and spec it dropped as owned by the /status updater (D9: no subresource there).
    const dropped = cluster.target === 'real';
    expect(entry?.fieldsV1).toEqual({
      'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} }, ...(dropped ? { 'f:labels': { 'f:app': {} } } : {}) },
      ...(dropped ? { 'f:spec': { 'f:replicas': {} } } : {}),
      'f:status': { 'f:observedGeneration': {} },
    });
    if (cluster.target === 'emulator') expect(entry).toMatchObject({ operation: 'Update', subresource: 'status' });
    // The main resource still bumps the generation for an annotation (it is copied to ReplicaSets).
    const annotated = await cluster.apps.patchNamespacedDeployment({ name: 'gw-rev', namespace: ns, body: { metadata: { annotations: { note: 'x' } } } }, mergePatch);
    expect(annotated.metadata?.generation).toBe(2);
  });

  it('E1 /scale reads and sets replicas', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: gateway('gw-e', 2) });
    const scale = await cluster.apps.readNamespacedDeploymentScale({ name: 'gw-e', namespace: ns });
    expect(scale.kind).toBe('Scale');
    expect(scale.spec?.replicas).toBe(2);
    expect(scale.status?.selector).toBe('app=gw-e');
    const updated = await cluster.apps.replaceNamespacedDeploymentScale({
      name: 'gw-e',
      namespace: ns,
      body: { metadata: { name: 'gw-e', namespace: ns }, spec: { replicas: 0 } },
    });
    // ScaleSpec.replicas is omitempty: zero is absent.
    expect(updated.spec).toEqual({});
    const read = await cluster.apps.readNamespacedDeployment({ name: 'gw-e', namespace: ns });
    expect(read.spec?.replicas).toBe(0);
    const patched = await cluster.apps.patchNamespacedDeploymentScale({ name: 'gw-e', namespace: ns, body: { spec: { replicas: 3 } } }, mergePatch);
    expect(patched.spec?.replicas).toBe(3);
  });
});
