import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { MANAGED_BY_LABEL, NAMESPACE_ID_LABEL, namespaceLabels, tenantRoleBinding } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_NAMESPACE, NAMESPACE, payload, waitFor } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const LIST = `{ namespaces { edges { node { id name status } } } }`;

describe('namespaces', () => {
  it('K1 a namespace becomes ready once its Kubernetes namespace exists, named from its id, labelled as ours and enforcing Pod Security restricted', async () => {
    const created = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: 'k1-team' } }), 'createNamespace');
    expect(created).toMatchObject({ __typename: 'CreateNamespaceSuccess', namespace: { name: 'k1-team', status: 'PROVISIONING' } });
    const id: string = created.namespace.id;
    await waitFor(async () => (await stack.gql(NAMESPACE, { id })).body.data?.namespace?.status === 'READY', 'READY');
    const k8s = await stack.core.readNamespace({ name: `occ-${uuidOf(id)}` });
    expect(k8s.metadata?.labels).toMatchObject({
      [MANAGED_BY_LABEL]: 'openclaw-control-plane',
      [NAMESPACE_ID_LABEL]: uuidOf(id),
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    });
    const audit = await stack.runtime.db.auditEvent.findMany({ where: { resourceId: id }, orderBy: { at: 'asc' } });
    expect(audit.map((a) => `${a.action}:${a.outcome}`)).toEqual(['namespace.create:SUCCESS', 'namespace.provision:SUCCESS']);
  });

  it('rejects bad names with a typed error and writes nothing', async () => {
    const before = await stack.runtime.db.namespace.count();
    for (const name of ['', 'UPPER', '-lead', 'trail-', 'a'.repeat(41), 'under_score']) {
      const result = payload(await stack.gql(CREATE_NAMESPACE, { input: { name } }), 'createNamespace');
      expect(result, name).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_NAME', field: 'name' });
    }
    expect(await stack.runtime.db.namespace.count()).toBe(before);
  });

  it('a duplicate name is a CONFLICT', async () => {
    const before = await stack.runtime.db.namespace.count();
    await stack.gql(CREATE_NAMESPACE, { input: { name: 'twice' } });
    const again = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: 'twice' } }), 'createNamespace');
    expect(again).toMatchObject({ __typename: 'ConflictError', code: 'NAME_TAKEN' });
    expect(await stack.runtime.db.namespace.count()).toBe(before + 1);
  });

  it('a namespace admin lists only the namespaces it may read, and cannot create one', async () => {
    const stack2Ns = await stack.runtime.db.namespace.findFirstOrThrow({ where: { name: 'twice' } });
    const user = await createHumanPrincipal(stack.runtime.db, 'scoped', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: stack2Ns.id }, 'test');
    const list = payload(await stack.gql(LIST, {}, { key: user.apiKey }), 'namespaces');
    expect(list.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([stack2Ns.id]);
    const denied = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: 'not-allowed' } }, { key: user.apiKey }), 'createNamespace');
    expect(denied).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
  });
});

describe('K1 with the worker held back', () => {
  let held: TestStack;
  beforeAll(async () => {
    held = await startTestStack({ worker: false });
  });
  afterAll(() => held?.close());

  it('K1 a foreign Kubernetes namespace with the same name is never adopted: the namespace fails', async () => {
    const created = payload(await held.gql(CREATE_NAMESPACE, { input: { name: 'k1-foreign' } }), 'createNamespace');
    const id: string = created.namespace.id;
    const row = await held.runtime.db.namespace.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe('PROVISIONING');
    await held.core.createNamespace({ body: { metadata: { name: row.k8sName, labels: { owner: 'someone-else' } } } });
    await held.runtime.worker.drain();
    const ns = (await held.gql(NAMESPACE, { id })).body.data?.namespace;
    expect(ns).toMatchObject({ status: 'FAILED' });
    expect(ns.statusMessage).toMatch(/not labelled as this installation's namespace/);
    const k8s = await held.core.readNamespace({ name: row.k8sName });
    expect(k8s.metadata?.labels?.owner).toBe('someone-else');
    expect(k8s.metadata?.labels?.[MANAGED_BY_LABEL]).toBeUndefined();
    const work = await held.runtime.db.workItem.findFirstOrThrow({ where: { idempotencyKey: `namespace.provision:${id}` } });
    expect(work.state).toBe('FAILED');
  });
});

describe('K1 the product service account gets occ-tenant inside each namespace it provisions', () => {
  const serviceAccount = { namespace: 'occ-system', name: 'occ-api' };
  let tenant: TestStack;
  let rbac: RbacAuthorizationV1Api;
  beforeAll(async () => {
    tenant = await startTestStack({ worker: false, env: { tenantServiceAccount: serviceAccount } });
    rbac = tenant.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  });
  afterAll(() => tenant?.close());

  async function provision(name: string, before?: (k8sName: string, id: string) => Promise<void>) {
    const created = payload(await tenant.gql(CREATE_NAMESPACE, { input: { name } }), 'createNamespace');
    const id: string = created.namespace.id;
    const row = await tenant.runtime.db.namespace.findUniqueOrThrow({ where: { id } });
    await before?.(row.k8sName, id);
    await tenant.runtime.worker.drain();
    return { id, k8sName: row.k8sName, ns: (await tenant.gql(NAMESPACE, { id })).body.data?.namespace };
  }

  it('K1 a provisioned namespace holds the RoleBinding occ-tenant: the ClusterRole occ-tenant bound to exactly the configured service account', async () => {
    const { id, k8sName, ns } = await provision('k1-tenant');
    expect(ns).toMatchObject({ status: 'READY' });
    const binding = await rbac.readNamespacedRoleBinding({ name: 'occ-tenant', namespace: k8sName });
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-tenant' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }]);
    expect(binding.metadata?.labels).toMatchObject({ [MANAGED_BY_LABEL]: 'openclaw-control-plane', [NAMESPACE_ID_LABEL]: uuidOf(id) });
    expect(binding.metadata?.managedFields?.map((f) => f.manager)).toEqual(['occ-controller']);
  });

  it("K1 the embedded server enforces the shipped tenant-binding policy: the product's own occ-tenant binding passes it, one in a namespace not labelled ours is refused (Kubernetes 1.30+)", async () => {
    const { id, k8sName, ns } = await provision('k1-policy');
    expect(ns).toMatchObject({ status: 'READY' });
    expect((await rbac.readNamespacedRoleBinding({ name: 'occ-tenant', namespace: k8sName })).roleRef.name).toBe('occ-tenant');
    const foreign = `k1-foreign-${Date.now()}`;
    await tenant.core.createNamespace({ body: { metadata: { name: foreign } } });
    const refused = await rbac.createNamespacedRoleBinding({ namespace: foreign, body: tenantRoleBinding(foreign, id, tenant.runtime.installation.installationId, serviceAccount) }).then(
      () => null,
      (error: { code?: number; body?: unknown }) => ({ code: error.code, message: (JSON.parse(String(error.body)) as { message: string }).message }),
    );
    expect(refused).toEqual({
      code: 403,
      message:
        "rolebindings.rbac.authorization.k8s.io \"occ-tenant\" is forbidden: ValidatingAdmissionPolicy 'occ-tenant-binding' with binding 'occ-tenant-binding' denied request: occ-tenant may be bound only in namespaces labelled app.kubernetes.io/managed-by=openclaw-control-plane",
    });
  });

  it('K1 a retry that finds its own binding (a lost reply) accepts it and the namespace becomes ready', async () => {
    const { k8sName, ns } = await provision('k1-retry', async (k8sName, id) => {
      await tenant.core.createNamespace({ body: { metadata: { name: k8sName, labels: namespaceLabels(id, tenant.runtime.installation.installationId) } } });
      await rbac.createNamespacedRoleBinding({ namespace: k8sName, body: tenantRoleBinding(k8sName, id, tenant.runtime.installation.installationId, serviceAccount) });
    });
    expect(ns).toMatchObject({ status: 'READY' });
    expect((await rbac.listNamespacedRoleBinding({ namespace: k8sName })).items).toHaveLength(1);
  });

  it.each([
    ['to another role', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }] }],
    ['to another service account', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-tenant' }, subjects: [{ kind: 'ServiceAccount', name: 'intruder', namespace: 'occ-system' }] }],
  ])('K1 a RoleBinding occ-tenant already there that binds %s fails the namespace with a message naming it, and is left as it was', async (what, spec) => {
    const { k8sName, ns } = await provision(`k1-foreign-rb-${what.split(' ').at(-1)}`, async (k8sName, id) => {
      await tenant.core.createNamespace({ body: { metadata: { name: k8sName, labels: namespaceLabels(id, tenant.runtime.installation.installationId) } } });
      await rbac.createNamespacedRoleBinding({ namespace: k8sName, body: { metadata: { name: 'occ-tenant' }, ...spec } });
    });
    expect(ns).toMatchObject({ status: 'FAILED' });
    expect(ns.statusMessage).toContain(`holds a RoleBinding occ-tenant that does not bind the ClusterRole occ-tenant to occ-system/occ-api`);
    const kept = await rbac.readNamespacedRoleBinding({ name: 'occ-tenant', namespace: k8sName });
    expect({ roleRef: kept.roleRef, subjects: kept.subjects }).toEqual(spec);
  });
});

describe('K1 without a tenant service account (the embedded default)', () => {
  it('K1 no RoleBinding is made', async () => {
    const created = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: 'k1-no-binding' } }), 'createNamespace');
    const id: string = created.namespace.id;
    await waitFor(async () => (await stack.gql(NAMESPACE, { id })).body.data?.namespace?.status === 'READY', 'READY');
    const rbac = stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    expect((await rbac.listNamespacedRoleBinding({ namespace: `occ-${uuidOf(id)}` })).items).toEqual([]);
  });
});
