import { CoordinationV1Api, V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let leases: CoordinationV1Api;

beforeAll(async () => {
  cluster = await startTestCluster();
  leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
});
afterAll(() => cluster.close());

describe('coordination.k8s.io/v1 Lease', () => {
  it('E1 R4 serves Leases through CoordinationV1Api: create, read, conditional replace, conflict on a stale resourceVersion, delete', async () => {
    const namespace = await createNamespace(cluster);
    const name = uniqueName('leader');
    // MicroTime: six fractional digits, as V1MicroTime serializes (a plain Date sends three: refused below).
    const now = new V1MicroTime();
    const created = await leases.createNamespacedLease({
      namespace,
      body: { metadata: { name }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaseTransitions: 0 } },
    });
    expect(created.kind).toBe('Lease');
    expect(created.apiVersion).toBe('coordination.k8s.io/v1');
    expect(created.spec?.holderIdentity).toBe('a');
    // client-node types MicroTime as a Date but hands back the string it read; new Date() takes either.
    expect(new Date(created.spec?.renewTime as unknown as string).getTime()).toBe(now.getTime());

    const read = await leases.readNamespacedLease({ name, namespace });
    const renewed: V1Lease = { ...read, spec: { ...read.spec, renewTime: new V1MicroTime(now.getTime() + 1000) } };
    const replaced = await leases.replaceNamespacedLease({ name, namespace, body: renewed });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));

    // A second elector that read before the renewal loses: optimistic concurrency through resourceVersion.
    const stale: V1Lease = { ...read, spec: { ...read.spec, holderIdentity: 'b' } };
    expect((await apiFailure(leases.replaceNamespacedLease({ name, namespace, body: stale }))).code).toBe(409);
    expect((await leases.readNamespacedLease({ name, namespace })).spec?.holderIdentity).toBe('a');

    expect((await apiFailure(leases.createNamespacedLease({ namespace, body: { metadata: { name } } }))).code).toBe(409);
    expect((await leases.listNamespacedLease({ namespace })).items.map((l) => l.metadata?.name)).toEqual([name]);
    await leases.deleteNamespacedLease({ name, namespace });
    expect((await apiFailure(leases.readNamespacedLease({ name, namespace }))).code).toBe(404);
  });

  it('E1 R4 a Lease with a non-positive duration is refused with 422 naming the field', async () => {
    const namespace = await createNamespace(cluster);
    const { code, body } = await apiFailure(
      leases.createNamespacedLease({ namespace, body: { metadata: { name: uniqueName('bad') }, spec: { leaseDurationSeconds: 0 } } }),
    );
    expect(code).toBe(422);
    expect(body.details?.causes?.[0]).toMatchObject({ field: 'spec.leaseDurationSeconds' });
  });

  // Found by the E8 lane: a real server refuses a MicroTime with three fractional digits (what a
  // JavaScript Date serializes to) before validation; the emulator used to store it.
  it('E1 E8 R4 acquireTime and renewTime are MicroTime: a time with millisecond precision is a 400 naming the layout, on create and on replace', async () => {
    const namespace = await createNamespace(cluster);
    const name = uniqueName('micro');
    const millis = new Date('2026-12-01T02:05:43.734Z');
    const refused = await apiFailure(leases.createNamespacedLease({ namespace, body: { metadata: { name }, spec: { holderIdentity: 'a', renewTime: millis } } }));
    expect(refused.code).toBe(400);
    expect(refused.body.reason).toBe('BadRequest');
    expect(refused.body.message).toContain('Lease in version "v1" cannot be handled as a Lease');
    expect(refused.body.message).toContain('parsing time "2026-12-01T02:05:43.734Z" as "2006-01-02T15:04:05.000000Z07:00"');
    const created = await leases.createNamespacedLease({ namespace, body: { metadata: { name }, spec: { holderIdentity: 'a', renewTime: new V1MicroTime(millis) } } });
    expect(String(created.spec?.renewTime)).toBe('2026-12-01T02:05:43.734000Z');
    const replaced = await apiFailure(leases.replaceNamespacedLease({ name, namespace, body: { ...created, spec: { ...created.spec, acquireTime: millis } } }));
    expect(replaced.code).toBe(400);
  });

  it('E1 R4 discovery lists coordination.k8s.io/v1 leases', async () => {
    const groups = await cluster.kubeConfig.makeApiClient((await import('@kubernetes/client-node')).ApisApi).getAPIVersions();
    expect(groups.groups.map((g) => g.name)).toContain('coordination.k8s.io');
    const resources = await leases.getAPIResources();
    expect(resources.resources.find((r) => r.name === 'leases')).toMatchObject({ kind: 'Lease', namespaced: true });
  });
});
