import { RbacAuthorizationV1Api, type V1RoleBinding } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

// K1: the product binds its tenant ClusterRole inside each namespace it provisions. The emulator
// stores RoleBindings and validates them as a real server does; it enforces none of them (L-entry
// in REAL-SERVER-DIFFERENCES.md), so what is checked here is what both servers answer alike.

let cluster: TestCluster;
let rbac: RbacAuthorizationV1Api;

beforeAll(async () => {
  cluster = await startTestCluster();
  rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
});
afterAll(() => cluster.close());

function tenantBinding(name: string): V1RoleBinding {
  return {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-tenant' },
    subjects: [{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }],
  };
}

describe('rbac.authorization.k8s.io/v1 RoleBinding', () => {
  it('E1 K1 a RoleBinding is created, read back whole, listed, refused a second time (409) and deleted', async () => {
    const namespace = await createNamespace(cluster);
    const name = uniqueName('occ-tenant');
    const created = await rbac.createNamespacedRoleBinding({ namespace, body: tenantBinding(name) });
    expect(created.kind).toBe('RoleBinding');
    expect(created.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    const read = await rbac.readNamespacedRoleBinding({ name, namespace });
    expect(read.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-tenant' });
    expect(read.subjects).toEqual([{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }]);
    expect(read.metadata?.generation).toBeUndefined();
    expect((await rbac.listNamespacedRoleBinding({ namespace })).items.map((b) => b.metadata?.name)).toEqual([name]);
    expect((await apiFailure(rbac.createNamespacedRoleBinding({ namespace, body: tenantBinding(name) }))).code).toBe(409);
    await rbac.deleteNamespacedRoleBinding({ name, namespace });
    expect((await apiFailure(rbac.readNamespacedRoleBinding({ name, namespace }))).code).toBe(404);
  });

  it('E1 K1 roleRef cannot change: a replace that points the binding at another role is a 422 naming roleRef, and the stored binding keeps its role', async () => {
    const namespace = await createNamespace(cluster);
    const name = uniqueName('fixed');
    const created = await rbac.createNamespacedRoleBinding({ namespace, body: tenantBinding(name) });
    const { code, body } = await apiFailure(
      rbac.replaceNamespacedRoleBinding({ name, namespace, body: { ...created, roleRef: { ...created.roleRef, name: 'cluster-admin' } } }),
    );
    expect(code).toBe(422);
    expect(body.reason).toBe('Invalid');
    expect(body.details?.causes?.map((c) => c.field)).toEqual(['roleRef']);
    expect(body.message).toContain('cannot change roleRef');
    expect((await rbac.readNamespacedRoleBinding({ name, namespace })).roleRef.name).toBe('occ-tenant');
    // Subjects may change.
    const replaced = await rbac.replaceNamespacedRoleBinding({ name, namespace, body: { ...created, subjects: [{ kind: 'ServiceAccount', name: 'other', namespace }] } });
    expect(replaced.subjects?.[0]?.name).toBe('other');
  });

  // Found by the E8 lane: the real server defaults these groups rather than refusing their absence.
  it('E1 K1 an empty roleRef apiGroup and a User or Group subject without one are given the RBAC group; a ServiceAccount keeps none', async () => {
    const namespace = await createNamespace(cluster);
    const name = uniqueName('defaulted');
    const created = await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'team' }, { kind: 'ServiceAccount', name: 'robot', namespace }],
      },
    });
    expect(created.roleRef.apiGroup).toBe('rbac.authorization.k8s.io');
    expect(created.subjects?.map((s) => s.apiGroup ?? '')).toEqual(['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', '']);
  });

  it.each([
    ['a roleRef of an unknown kind', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Secret', name: 'x' } }, ['roleRef.kind']],
    ['a roleRef in another group', { roleRef: { apiGroup: 'example.com', kind: 'ClusterRole', name: 'x' } }, ['roleRef.apiGroup']],
    ['a subject of an unknown kind', { subjects: [{ kind: 'Robot', name: 'x' }] }, ['subjects[0].kind']],
    ['a ServiceAccount subject with an API group', { subjects: [{ kind: 'ServiceAccount', apiGroup: 'rbac.authorization.k8s.io', name: 'x', namespace: 'y' }] }, ['subjects[0].apiGroup']],
    ['a User subject in another group', { subjects: [{ kind: 'User', apiGroup: 'example.com', name: 'alice' }] }, ['subjects[0].apiGroup']],
    ['a ServiceAccount subject with an invalid name', { subjects: [{ kind: 'ServiceAccount', name: 'Not_Valid', namespace: 'y' }] }, ['subjects[0].name']],
  ] as const)('E1 K1 %s is a 422 naming that field', async (_what, change, fields) => {
    const namespace = await createNamespace(cluster);
    const body = { ...tenantBinding(uniqueName('bad')), ...change } as V1RoleBinding;
    const failure = await apiFailure(rbac.createNamespacedRoleBinding({ namespace, body }));
    expect(failure.code).toBe(422);
    expect(failure.body.details?.causes?.map((c) => c.field)).toEqual(fields);
  });
});
