import { ApiException } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, createNamespace, emulatorRequest, mergePatch, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let ns: string;
const ADMIN_TOKEN = 'admin-secret-token';

beforeAll(async () => {
  cluster = await startTestCluster({ adminToken: ADMIN_TOKEN });
  ns = await createNamespace(cluster, 'faults');
});
afterEach(() => cluster.emulator.faults.clear());
afterAll(() => cluster.close());

const secretsPath = () => `/api/v1/namespaces/${ns}/secrets`;

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

/**
 * client-node 2 fetches through undici, which reports a connection closed under a request as
 * TypeError('fetch failed') caused by a SocketError: no Status, nothing the client can read.
 */
function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: { name?: string; message?: string; code?: string } }).cause;
  return `${String(error)} <- ${cause?.name}: ${cause?.message} (${cause?.code})`;
}

describe('fault injection', () => {
  it('E4 an error fault answers its status for the chosen verb and path, nothing is applied, and it wears off after `times`', async () => {
    const fault = cluster.emulator.faults.add({ verb: 'create', path: secretsPath(), times: 1, action: { type: 'error', status: 503 } });
    const { code, body } = await apiFailure(cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'e1' } } }));
    expect(code).toBe(503);
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
    expect((await apiFailure(cluster.core.readNamespacedSecret({ namespace: ns, name: 'e1' }))).code).toBe(404);
    // Another verb on the same path is not affected, and the next create goes through.
    await cluster.core.listNamespacedSecret({ namespace: ns });
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'e1' } } });
    expect(fault.hits).toBe(1);
  });

  it('E4 a delay fault holds the request, which then runs: a delayed read sees a write made meanwhile', async () => {
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'd1' }, stringData: { v: 'before' } } });
    const fault = cluster.emulator.faults.add({ verb: 'get', path: `${secretsPath()}/d1`, times: 1, action: { type: 'delay', ms: 300 } });
    const delayed = cluster.core.readNamespacedSecret({ namespace: ns, name: 'd1' });
    // Write only once the read has arrived and is being held.
    while (fault.hits === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await cluster.core.patchNamespacedSecret({ namespace: ns, name: 'd1', body: { stringData: { v: 'after' } } }, mergePatch);
    const read = await delayed;
    expect(Buffer.from(read.data?.v ?? '', 'base64').toString()).toBe('after');
  });

  it('E4 a lost response applies the write but resets the connection, so the client cannot tell', async () => {
    cluster.emulator.faults.add({ verb: 'create', path: secretsPath(), times: 1, action: { type: 'lose-response' } });
    const error = await failureOf(cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'lost' } } }));
    expect(error).not.toBeInstanceOf(ApiException);
    expect(connectionFailure(error)).toBe('TypeError: fetch failed <- SocketError: other side closed (UND_ERR_SOCKET)');
    const stored = await cluster.core.readNamespacedSecret({ namespace: ns, name: 'lost' });
    expect(stored.metadata?.name).toBe('lost');
  });

  it('E4 a reset drops the connection without applying anything; prefix paths match every object below', async () => {
    cluster.emulator.faults.add({ verb: ['create', 'patch'], path: `${secretsPath()}*`, times: 2, action: { type: 'reset' } });
    const error = await failureOf(cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'r1' } } }));
    expect(error).not.toBeInstanceOf(ApiException);
    expect(connectionFailure(error)).toBe('TypeError: fetch failed <- SocketError: other side closed (UND_ERR_SOCKET)');
    expect((await apiFailure(cluster.core.readNamespacedSecret({ namespace: ns, name: 'r1' }))).code).toBe(404);
  });

  it('E4 the admin path adds, lists and clears faults for bearers of the admin token only', async () => {
    const admin = (init: Parameters<typeof emulatorRequest>[2]) => emulatorRequest(cluster.emulator, '/admin/faults', init);
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const rule = { verb: 'get', path: `${secretsPath()}/*`, action: { type: 'error', status: 500, message: 'etcd is down' } };
    expect((await admin({ method: 'POST', headers: { ...headers, authorization: `Bearer ${cluster.emulator.token}` }, body: JSON.stringify(rule) })).status).toBe(401);
    const added = await admin({ method: 'POST', headers, body: JSON.stringify(rule) });
    expect(added.status).toBe(201);
    const bad = await admin({ method: 'POST', headers, body: JSON.stringify({ path: '/x', action: { type: 'explode' } }) });
    expect(bad.status).toBe(400);
    const { code, body } = await apiFailure(cluster.core.readNamespacedSecret({ namespace: ns, name: 'anything' }));
    expect([code, body.message, body.reason]).toEqual([500, 'etcd is down', 'InternalError']);
    const listed = (await admin({ headers })).json() as { items: { hits: number }[] };
    expect(listed.items.map((i) => i.hits)).toEqual([1]);
    expect((await admin({ method: 'DELETE', headers })).status).toBe(200);
    expect((await apiFailure(cluster.core.readNamespacedSecret({ namespace: ns, name: 'anything' }))).code).toBe(404);
  });

  it('E4 without an admin token the admin path does not exist', async () => {
    const plain = await startTestCluster();
    try {
      const response = await emulatorRequest(plain.emulator, '/admin/faults', {
        method: 'POST',
        headers: { authorization: `Bearer ${plain.emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ path: '/api/v1/namespaces', action: { type: 'reset' } }),
      });
      expect(response.status).toBe(404);
      await plain.core.listNamespace();
    } finally {
      await plain.close();
    }
  });
});
