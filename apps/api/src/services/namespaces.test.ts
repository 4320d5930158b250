import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_BY_LABEL, NAMESPACE_ID_LABEL } from '@occ/domain/kubernetes-names';
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
  it('K1 a namespace becomes ready once its Kubernetes namespace exists, named from its id and labelled as ours', async () => {
    const created = payload(await stack.gql(CREATE_NAMESPACE, { input: { name: 'k1-team' } }), 'createNamespace');
    expect(created).toMatchObject({ __typename: 'CreateNamespaceSuccess', namespace: { name: 'k1-team', status: 'PROVISIONING' } });
    const id: string = created.namespace.id;
    await waitFor(async () => (await stack.gql(NAMESPACE, { id })).body.data?.namespace?.status === 'READY', 'READY');
    const k8s = await stack.core.readNamespace({ name: `occ-${uuidOf(id)}` });
    expect(k8s.metadata?.labels).toMatchObject({ [MANAGED_BY_LABEL]: 'openclaw-control-plane', [NAMESPACE_ID_LABEL]: uuidOf(id) });
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
