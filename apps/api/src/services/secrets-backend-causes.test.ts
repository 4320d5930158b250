import { ApiException } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyKubeError } from '../kube/errors.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_SECRET, UPDATE_SECRET, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';

// P4: a backend failure answers its real cause as a typed error, never an internal one, and never
// quotes the request (which holds the value). Each case deletes something out of band, through
// the embedded API server, as an operator with kubectl would.

let stack: TestStack;
const CANARY = 'sk-BACKEND-CAUSE-c4n4ry';

beforeAll(async () => {
  stack = await startTestStack();
}, 60_000);
afterAll(() => stack?.close());

async function k8sNameOf(nsId: string): Promise<string> {
  return (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
}

async function counts() {
  const db = stack.runtime.db;
  return { secrets: await db.secret.count(), audit: await db.auditEvent.count({ where: { outcome: 'SUCCESS' } }) };
}

function noCanary(): void {
  for (const line of [...stack.logs, ...stack.responses]) expect(line).not.toContain(CANARY);
}

describe('secrets: backend causes', () => {
  it('P4 S1 createSecret into a namespace whose Kubernetes namespace was deleted out of band is NAMESPACE_NOT_READY naming it; nothing is written', async () => {
    const nsId = await createReadyNamespace(stack, 'gone-on-create');
    const k8sName = await k8sNameOf(nsId);
    await stack.core.deleteNamespace({ name: k8sName });
    const before = await counts();
    const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'after-delete', value: CANARY } }), 'createSecret');
    expect(result).toMatchObject({ __typename: 'NamespaceNotReadyError', code: 'NAMESPACE_NOT_READY' });
    expect(result.message).toContain(k8sName);
    expect(await counts()).toEqual(before);
    noCanary();
  });

  it('P4 S6 updateSecret after the Kubernetes namespace vanished names the missing namespace, not a concurrent change (namespace controller)', async () => {
    const nsId = await createReadyNamespace(stack, 'gone-on-update');
    const secret = await createSecretOk(stack, nsId, 'kept', 'v1');
    await stack.core.deleteNamespace({ name: secret.backendLocator.k8sNamespace });
    const result = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: CANARY } }), 'updateSecret');
    expect(result).toMatchObject({ __typename: 'NamespaceNotReadyError', code: 'NAMESPACE_NOT_READY' });
    expect(result.message).toContain(secret.backendLocator.k8sNamespace);
    expect(result.message).not.toMatch(/concurrent/i);
    expect((await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: secret.id } })).version).toBe(1);
    noCanary();
  });

  it('P4 S6 RC5 updateSecret after its Kubernetes Secret was deleted out of band stores the value in a new object of its own naming, as the next version, and says so', async () => {
    const nsId = await createReadyNamespace(stack, 'object-gone');
    const secret = await createSecretOk(stack, nsId, 'deleted-object', 'v1');
    await stack.core.deleteNamespacedSecret({ name: secret.backendLocator.name, namespace: secret.backendLocator.k8sNamespace });
    const result = payload(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: CANARY } }), 'updateSecret');
    expect(result).toMatchObject({ __typename: 'UpdateSecretSuccess', secret: { version: 2 }, delivery: { stored: true } });
    expect(result.delivery.message).toContain('no longer existed: the value was stored in a new one');
    expect(result.delivery.message).not.toContain(secret.backendLocator.name);
    const row = await stack.runtime.db.secret.findUniqueOrThrow({ where: { id: secret.id } });
    expect(row).toMatchObject({ version: 2, backendNamespace: secret.backendLocator.k8sNamespace });
    // A new object (S2): another name and uid, nothing adopted under the old name.
    expect(row.backendName).not.toBe(secret.backendLocator.name);
    expect(row.backendUid).not.toBe(secret.backendLocator.uid);
    await expect(stack.core.readNamespacedSecret({ name: secret.backendLocator.name, namespace: secret.backendLocator.k8sNamespace })).rejects.toMatchObject({ code: 404 });
    expect((await stack.runtime.db.auditEvent.findFirstOrThrow({ where: { action: 'secret.update', resourceId: secret.id } })).details).toMatchObject({ version: 2, recreated: true });
    noCanary();
  });
});

describe('client-node failure classes', () => {
  const status = (code: number, reason: string, details: Record<string, string>, message: string) =>
    new ApiException(code, 'x', JSON.stringify({ kind: 'Status', code, reason, details, message: message }), {});

  it('P4 a 404 for the object, a 404 for its namespace, a 409 conflict, an AlreadyExists, a refusal, an unreachable server and a lost answer are told apart', async () => {
    expect(classifyKubeError(status(404, 'NotFound', { kind: 'secrets', name: 's' }, 'secrets "s" not found'))).toEqual({ kind: 'object-not-found', code: 404 });
    expect(classifyKubeError(status(404, 'NotFound', { kind: 'namespaces', name: 'occ-x' }, 'namespaces "occ-x" not found'))).toEqual({ kind: 'namespace-not-found', code: 404, namespace: 'occ-x' });
    expect(classifyKubeError(status(409, 'Conflict', { kind: 'secrets', name: 's' }, 'the object has been modified'))).toEqual({ kind: 'conflict', code: 409, precondition: false });
    expect(classifyKubeError(status(409, 'Conflict', { kind: 'secrets', name: 's' }, 'Precondition failed: UID in precondition'))).toMatchObject({ kind: 'conflict', precondition: true });
    expect(classifyKubeError(status(409, 'AlreadyExists', { kind: 'secrets', name: 's' }, 'exists'))).toEqual({ kind: 'already-exists', code: 409 });
    expect(classifyKubeError(status(422, 'Invalid', {}, `Invalid value: "${CANARY}"`))).toEqual({ kind: 'refused', code: 422, reason: 'Invalid' });
    expect(classifyKubeError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toEqual({ kind: 'unreachable', code: null });
    expect(classifyKubeError(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }))).toEqual({ kind: 'unreachable', code: null });
    expect(classifyKubeError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toEqual({ kind: 'outcome-unknown', code: null });
    // What client-node 2 (undici) throws: the code is on `cause` (faults.test.ts in kube-emulator shows the real ones).
    const undici = (code: string, message: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(message), { code }) });
    expect(classifyKubeError(undici('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'))).toEqual({ kind: 'unreachable', code: null });
    expect(classifyKubeError(undici('UND_ERR_SOCKET', 'other side closed'))).toEqual({ kind: 'outcome-unknown', code: null });
    expect(classifyKubeError(undici('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'))).toEqual({ kind: 'outcome-unknown', code: null });
  });
});
