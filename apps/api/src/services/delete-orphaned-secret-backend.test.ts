import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLabels, secretLabels } from '@occ/domain/kubernetes-names';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// S5 recovery: an installation administrator deletes an orphaned backend object that
// orphanedSecretBackends lists, exactly that one (uid precondition), audited; never another
// installation's object, never an object we did not label, never a live secret's backend.

let stack: TestStack;
let nsId: string;
let k8sNs: string;
let installationId: string;

const ORPHANS = `{ orphanedSecretBackends { ... on OrphanedSecretBackends { items { k8sNamespace name uid } } } }`;
const DELETE = `mutation($input: DeleteOrphanedSecretBackendInput!) { deleteOrphanedSecretBackend(input: $input) {
  __typename ... on DeleteOrphanedSecretBackendSuccess { k8sNamespace name uid alreadyGone } ... on Error { code message } } }`;

beforeAll(async () => {
  stack = await startTestStack({ worker: true });
  installationId = stack.runtime.installation.installationId;
  nsId = await createReadyNamespace(stack, 'orphan-delete');
  k8sNs = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
}, 90_000);
afterAll(() => stack?.close());

async function plant(name: string, labels: Record<string, string>): Promise<{ k8sNamespace: string; name: string; uid: string }> {
  const created = await stack.core.createNamespacedSecret({ namespace: k8sNs, body: { metadata: { name, labels }, data: { value: 'eA==' } } });
  return { k8sNamespace: k8sNs, name, uid: created.metadata!.uid! };
}

const orphanLabels = () => secretLabels(nsId, `sec_${randomUUID()}`, installationId);
const exists = async (name: string) => (await stack.core.listNamespacedSecret({ namespace: k8sNs })).items.some((s) => s.metadata?.name === name);

describe('S5 deleteOrphanedSecretBackend', () => {
  it('S5 deletes exactly the listed orphan, audited in the same transaction, and it leaves the list', async () => {
    const orphan = await plant('orphan-one', orphanLabels());
    expect(payload(await stack.gql(ORPHANS), 'orphanedSecretBackends').items).toContainEqual(orphan);
    const result = payload(await stack.gql(DELETE, { input: orphan }), 'deleteOrphanedSecretBackend');
    expect(result).toEqual({ __typename: 'DeleteOrphanedSecretBackendSuccess', ...orphan, alreadyGone: false });
    expect(await exists('orphan-one')).toBe(false);
    expect(payload(await stack.gql(ORPHANS), 'orphanedSecretBackends').items).not.toContainEqual(orphan);
    const event = await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'secret.orphan.delete', outcome: 'SUCCESS' }, orderBy: { at: 'desc' } });
    expect(event).toMatchObject({ actorId: stack.runtime.installation.bootstrapPrincipalId, namespaceId: nsId, details: { ...orphan, result: 'deleted' } });
  });

  it('S5 a stale uid (the name now holds another object) is NOT_FOUND and deletes nothing', async () => {
    const orphan = await plant('orphan-recreated', orphanLabels());
    const result = payload(await stack.gql(DELETE, { input: { ...orphan, uid: randomUUID() } }), 'deleteOrphanedSecretBackend');
    expect(result).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(await exists('orphan-recreated')).toBe(true);
  });

  it("S5 R3 another installation's object, or an object without our labels, is NOT_FOUND and never deleted", async () => {
    const foreign = await plant('foreign-installation', secretLabels(nsId, `sec_${randomUUID()}`, randomUUID()));
    const unlabelled = await plant('not-ours', {});
    for (const target of [foreign, unlabelled]) {
      const result = payload(await stack.gql(DELETE, { input: target }), 'deleteOrphanedSecretBackend');
      expect(result, target.name).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
      expect(await exists(target.name)).toBe(true);
    }
  });

  it("S5 D5 an agent's revision-owned Secret is neither listed as an orphan nor deleted as one", async () => {
    const copy = await plant('model-auth-copy', { ...agentLabels(nsId, `agt_${randomUUID()}`, installationId), 'openclaw.rocks/secret-id': randomUUID() });
    expect(payload(await stack.gql(ORPHANS), 'orphanedSecretBackends').items).not.toContainEqual(copy);
    expect(payload(await stack.gql(DELETE, { input: copy }), 'deleteOrphanedSecretBackend')).toMatchObject({ __typename: 'NotFoundError' });
    expect(await exists('model-auth-copy')).toBe(true);
  });

  it("S5 S7 a live secret's backend is not an orphan: CONFLICT NOT_ORPHANED, and the secret keeps its value", async () => {
    const secret = await createSecretOk(stack, nsId, 'live', 'live-value');
    const target = { k8sNamespace: secret.backendLocator.k8sNamespace, name: secret.backendLocator.name, uid: secret.backendLocator.uid };
    const result = payload(await stack.gql(DELETE, { input: target }), 'deleteOrphanedSecretBackend');
    expect(result).toMatchObject({ __typename: 'ConflictError', code: 'NOT_ORPHANED' });
    expect(await exists(target.name)).toBe(true);
  });

  it('S5 a Kubernetes namespace that is none of ours is NOT_FOUND', async () => {
    const result = payload(await stack.gql(DELETE, { input: { k8sNamespace: 'kube-system', name: 'x', uid: randomUUID() } }), 'deleteOrphanedSecretBackend');
    expect(result).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  });

  it('S5 A3 only installation administrators: a namespace administrator is FORBIDDEN, bare and audited, and nothing is deleted', async () => {
    const orphan = await plant('orphan-kept', orphanLabels());
    const user = await createHumanPrincipal(stack.runtime.db, 'ns-admin', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    const result = payload(await stack.gql(DELETE, { input: orphan }, { key: user.apiKey }), 'deleteOrphanedSecretBackend');
    expect(result).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.' });
    expect(await exists('orphan-kept')).toBe(true);
    expect(await stack.runtime.db.auditEvent.count({ where: { actorId: user.principalId, outcome: 'DENIED' } })).toBe(1);
  });
});
