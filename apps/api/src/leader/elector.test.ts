import { CoordinationV1Api } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@occ/kube-emulator/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElector, type Elector } from './elector.ts';

// Time is driven through an injected clock; the electors talk to the emulator over HTTP.
let kube: KubeEmulator;
beforeAll(async () => {
  kube = await startKubeEmulator({});
});
afterAll(() => kube.close());

let n = 0;
function pair(now: { t: number }) {
  const name = `occ-leader-test-${n++}`;
  const changes: string[] = [];
  const make = (identity: string): Elector =>
    createElector({
      kubeConfig: kube.kubeConfig(),
      namespace: 'default',
      name,
      identity,
      leaseDurationSeconds: 15,
      clock: () => now.t,
      onChange: (leader) => changes.push(`${identity}:${leader}`),
    });
  return { a: make('replica-a'), b: make('replica-b'), name, changes };
}

describe('R4 leader election', () => {
  it('R4 two electors racing for a new Lease: exactly one leads, and the Lease names it', async () => {
    const now = { t: 1_000_000 };
    const { a, b, name } = pair(now);
    await Promise.all([a.tick(), b.tick()]);
    expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    const leader = a.isLeader() ? 'replica-a' : 'replica-b';
    // Renewals keep it; the other keeps waiting.
    for (let i = 0; i < 3; i++) {
      now.t += 2_000;
      await Promise.all([a.tick(), b.tick()]);
      expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    }
    const lease = await kube.kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace: 'default' });
    expect(lease.spec?.holderIdentity).toBe(leader);
    expect(lease.spec?.leaseDurationSeconds).toBe(15);
  });

  it('R4 when the leader dies (stops renewing), the other takes over once the lease duration has passed on its own clock, not before', async () => {
    const now = { t: 5_000_000 };
    const { a, b, changes } = pair(now);
    await a.tick();
    await b.tick();
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    // a is killed: it never ticks again. b keeps trying.
    now.t += 14_000;
    await b.tick();
    expect(b.isLeader()).toBe(false);
    now.t += 2_000;
    await b.tick();
    expect(b.isLeader()).toBe(true);
    // The dead leader, were it only paused, no longer counts itself leader past its renew deadline.
    expect(a.isLeader()).toBe(false);
    expect(changes).toEqual(['replica-a:true', 'replica-b:true']);
  });

  it('R4 a leader that stops releases the Lease, and the other takes it on its next round without waiting', async () => {
    const now = { t: 9_000_000 };
    const { a, b, changes } = pair(now);
    await a.tick();
    await b.tick();
    expect(a.isLeader()).toBe(true);
    await a.stop();
    expect(a.isLeader()).toBe(false);
    now.t += 1; // well within the lease duration
    await b.tick();
    expect(b.isLeader()).toBe(true);
    expect(changes).toEqual(['replica-a:true', 'replica-a:false', 'replica-b:true']);
    await b.stop();
  });
});

describe('R4 leader election in the runtime', () => {
  it('R4 a started runtime elects itself through its installation\'s Lease, named by its host and process', async () => {
    const { startTestStack } = await import('../test/stack.ts');
    const stack = await startTestStack({ worker: false });
    const { waitFor } = await import('../test/operations.ts');
    const name = `occ-leader-${stack.runtime.installation.installationId}`;
    try {
      await waitFor(async () => stack.runtime.leader.isLeader(), 'the only replica to lead');
      const lease = await stack.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace: 'default' });
      expect(lease.spec?.holderIdentity).toContain(String(process.pid));
    } finally {
      await stack.close();
    }
  });
});
