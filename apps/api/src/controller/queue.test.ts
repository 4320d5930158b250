import { CoreV1Api } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@occ/kube-emulator/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fenceKubernetesWrites } from '../kube/fencing.ts';
import { createElector } from '../leader/elector.ts';
import { createLogger } from '../log.ts';
import { createKeyedQueue } from './queue.ts';

// R4 for the leader's controllers: a reconcile runs fenced by leadership, so a replica whose Lease
// lapsed mid-reconcile (a long pause, a partition) sends no further write; reads go on.

let kube: KubeEmulator;
beforeAll(async () => {
  kube = await startKubeEmulator({});
});
afterAll(() => kube.close());

describe('R4 controller fencing', () => {
  it('R4 a leader whose Lease lapsed in the middle of a reconcile sends none of its remaining writes, says so, and does not retry', async () => {
    const kubeConfig = kube.kubeConfig();
    fenceKubernetesWrites(kubeConfig);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const now = { t: 1_000_000 };
    const elector = createElector({ kubeConfig, namespace: 'default', name: 'occ-leader-fence-test', identity: 'replica-a', leaseDurationSeconds: 15, clock: () => now.t });
    await elector.tick();
    expect(elector.isLeader()).toBe(true);
    const logs: string[] = [];
    let reconciles = 0;
    const queue = createKeyedQueue({
      name: 'fence-test',
      logger: createLogger((l) => logs.push(l), 'info'),
      isLeader: () => elector.isLeader(),
      backoff: { baseMs: 10, maxMs: 10 },
      async reconcile(key) {
        reconciles++;
        await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `${key}-before` } } });
        // The process stalls past its renew deadline (10 s of 15): it no longer leads.
        now.t += 11_000;
        await core.readNamespacedConfigMap({ namespace: 'default', name: `${key}-before` });
        await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `${key}-after` } } });
        return {};
      },
    });
    queue.start();
    queue.enqueue('cm-fence');
    await queue.idle();
    await new Promise((r) => setTimeout(r, 50)); // a retry would have come by now (backoff 10 ms)
    await queue.stop();
    const names = (await core.listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata!.name!).filter((n) => n.startsWith('cm-fence'));
    expect(names).toEqual(['cm-fence-before']);
    expect(reconciles).toBe(1);
    expect(logs.some((l) => l.includes('leadership lost'))).toBe(true);
    expect(logs.some((l) => l.includes('reconcile failed'))).toBe(false);
  });
});
