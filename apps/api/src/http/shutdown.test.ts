import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_SECRET, createReadyNamespace } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createHttpApp, listen, type HttpApp } from './server.ts';
import { gracefulShutdown } from './shutdown.ts';

// R5 through the real HTTP stack: a createSecret is in flight (its Kubernetes write held back by
// the embedded server's fault injection) when shutdown begins.

let stack: TestStack;
let nsId: string;
let k8sNs: string;

beforeAll(async () => {
  stack = await startTestStack({ worker: true });
  nsId = await createReadyNamespace(stack, 'draining');
  k8sNs = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
});
afterAll(() => stack?.close());

const portOf = (server: Server) => (server.address() as AddressInfo).port;

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by assertions
async function post(port: number, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('graceful shutdown (R5)', () => {
  it('R5 readiness fails at once, new connections are refused, and the request in flight finishes before the runtime stops', async () => {
    const app: HttpApp = createHttpApp({ deps: stack.runtime.deps, production: false, consoleDir: '/nonexistent' });
    const server = await listen(app, '127.0.0.1', 0);
    // A second listener on the same app: readiness can be read while the first no longer accepts.
    const probe = await listen(app, '127.0.0.1', 0);
    const port = portOf(server);
    const held = stack.runtime.emulator!.faults.add({ verb: 'create', path: `/api/v1/namespaces/${k8sNs}/secrets`, times: 1, action: { type: 'delay', ms: 1500 } });
    expect((await fetch(`http://127.0.0.1:${portOf(probe)}/readyz`)).status).toBe(200);

    const inFlight = post(port, { query: CREATE_SECRET, variables: { input: { namespaceId: nsId, name: 'late', value: 'v' } } });
    await new Promise((r) => setTimeout(r, 300)); // the request is now waiting on Kubernetes
    let runtimeClosed = false;
    const done = gracefulShutdown({
      app,
      servers: [server],
      closeRuntime: async () => {
        runtimeClosed = true;
      },
      deadlineMs: 20_000,
      logger: stack.runtime.deps.logger,
    });

    const readyz = await fetch(`http://127.0.0.1:${portOf(probe)}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ status: 'draining' });
    expect(await refused(port)).toBe(true);
    expect(runtimeClosed).toBe(false); // not while a request is in flight

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body.data.createSecret.__typename).toBe('CreateSecretSuccess');
    expect(await done).toEqual({ cutConnections: false });
    expect(runtimeClosed).toBe(true);
    stack.runtime.emulator!.faults.remove(held.id);
    probe.close();
  });

  it('R5 past the deadline the connections still open are cut, and the runtime stops all the same', async () => {
    const app = createHttpApp({ deps: stack.runtime.deps, production: false, consoleDir: '/nonexistent' });
    const server = await listen(app, '127.0.0.1', 0);
    const held = stack.runtime.emulator!.faults.add({ verb: 'create', path: `/api/v1/namespaces/${k8sNs}/secrets`, times: 1, action: { type: 'delay', ms: 3000 } });
    const inFlight = post(portOf(server), { query: CREATE_SECRET, variables: { input: { namespaceId: nsId, name: 'cut', value: 'v' } } }).catch((error: Error) => error);
    await new Promise((r) => setTimeout(r, 300));
    let runtimeClosed = false;
    const result = await gracefulShutdown({ app, servers: [server], closeRuntime: async () => void (runtimeClosed = true), deadlineMs: 200, logger: stack.runtime.deps.logger });
    expect(result).toEqual({ cutConnections: true });
    expect(runtimeClosed).toBe(true);
    expect(await inFlight).toBeInstanceOf(Error);
    stack.runtime.emulator!.faults.remove(held.id);
  });

  it('R5 stopping the leader elector releases its Lease, so another replica leads at once', async () => {
    const leases = stack.runtime.kubeConfig.makeApiClient(CoordinationV1Api);
    const name = `occ-leader-${stack.runtime.installation.installationId}`;
    await waitForLeader(stack.runtime.leader);
    expect((await leases.readNamespacedLease({ name, namespace: 'default' })).spec?.holderIdentity).toBeTruthy();
    await stack.runtime.leader.stop(); // what runtime.close() does first (its closers run in reverse)
    expect((await leases.readNamespacedLease({ name, namespace: 'default' })).spec?.holderIdentity ?? '').toBe('');
  });
});

async function waitForLeader(leader: { isLeader(): boolean }): Promise<void> {
  for (let i = 0; i < 100 && !leader.isLeader(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(leader.isLeader()).toBe(true);
}
