import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from './db/client.ts';
import { REPO_ROOT } from './env.ts';
import { MonotonicLease, withFence, checkFence } from './kube/fencing.ts';
import { enqueue, LeaseLostError } from './services/work-queue.ts';
import { FENCE_KIND, fenceWorkKind } from './test/fence-work.ts';
import { waitFor } from './test/operations.ts';
import { startTestStack, type TestStack } from './test/stack.ts';
import { startWorker } from './worker.ts';

// R4: a worker makes no side effect without a valid lease on its item. The lease is checked in
// the database when a step commits, and by this process's monotonic clock before every Kubernetes
// write (kube/fencing.ts): a worker stopped past its lease, whose item another worker took and
// finished meanwhile, sends nothing once it runs again.

let stack: TestStack;
const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await stack?.close();
});

describe('R4 fencing', () => {
  it(
    'R4 a worker paused with SIGSTOP past its lease, while another worker takes its item and finishes it, sends no Kubernetes write after it resumes',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'occ-fence-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const kubeconfig = path.join(dir, 'kubeconfig.json');
      await writeFile(kubeconfig, stack.kubeConfig.exportConfig(), { mode: 0o600 });
      const namespace = `fence-${randomBytes(4).toString('hex')}`;
      await stack.core.createNamespace({ body: { metadata: { name: namespace } } });
      cleanups.push(() => stack.core.deleteNamespace({ name: namespace }));
      const id = await transaction(stack.runtime.db, (tx) => enqueue(tx, FENCE_KIND, `fence-${namespace}`, { namespace, pauseMs: 1500 }));

      const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'apps/api/src/test/fence-worker-child.ts')], {
        cwd: REPO_ROOT,
        env: { ...process.env, DATABASE_URL: stack.databaseUrl, KUBECONFIG: kubeconfig, OCC_WORK_LEASE_SECONDS: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));

      await waitFor(async () => { if (child.exitCode !== null) throw new Error(output); return output.includes('entered'); }, 'the paused worker to be inside its step', 60_000);
      child.kill('SIGSTOP');
      // Its heartbeats stop with it: the lease (2 s) runs out, and another worker takes the item.
      await waitFor(async () => {
        const row = await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } });
        return row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() < Date.now() - 200;
      }, 'the paused worker\'s lease to expire', 30_000);
      const successor = startWorker({ db: stack.runtime.db, logger: stack.runtime.deps.logger, pollMs: 20, leaseSeconds: 30, kinds: [fenceWorkKind(stack.kubeConfig, 'successor', () => {})] });
      try {
        await waitFor(async () => (await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state === 'SUCCEEDED', 'the successor to finish the item', 30_000);
      } finally {
        await successor.stop();
      }

      const resumedAt = output.length;
      child.kill('SIGCONT');
      await waitFor(async () => output.slice(resumedAt).includes('lease lost'), 'the resumed worker to find its lease lost', 30_000);
      const afterResume = output.slice(resumedAt);
      expect(afterResume.match(/^request (POST|PUT|PATCH|DELETE) .*$/gm) ?? [], afterResume).toEqual([]);

      const written = (await stack.core.listNamespacedConfigMap({ namespace })).items.map((c) => c.metadata!.name!).filter((n) => /^(first|second)-/.test(n));
      expect(written.sort()).toEqual(['first-paused', 'first-successor', 'second-successor']);
      // (Not its attempt count: on a loaded machine the paused worker may have retried once before it entered the step.)
      expect((await stack.runtime.db.workItem.findUniqueOrThrow({ where: { id } })).state).toBe('SUCCEEDED');
    },
    120_000,
  );

  it('R4 a lease on the monotonic clock: held until a third of it is left after the last claim or heartbeat sent, lost for good once lapsed or taken, and no longer fencing once its work ended', async () => {
    let now = 1_000;
    const lease = new MonotonicLease(30, now, () => new LeaseLostError('w'), () => now);
    const write = () => withFence(lease, async () => checkFence());
    now += 19_999;
    await expect(write()).resolves.toBeUndefined();
    lease.renewed(now - 5_000); // a heartbeat sent 5 s ago answered: held 20 s from then
    now += 14_999;
    await expect(write()).resolves.toBeUndefined();
    now += 2;
    await expect(write()).rejects.toBeInstanceOf(LeaseLostError);
    lease.renewed(now); // a late answer does not bring it back
    await expect(write()).rejects.toBeInstanceOf(LeaseLostError);

    const taken = new MonotonicLease(30, now, () => new LeaseLostError('w'), () => now);
    taken.lose();
    await expect(withFence(taken, async () => checkFence())).rejects.toBeInstanceOf(LeaseLostError);
    // Outside fenced work nothing is checked.
    expect(() => checkFence()).not.toThrow();

    const finished = new MonotonicLease(30, now, () => new LeaseLostError('w'), () => now);
    finished.end();
    now += 60_000;
    await expect(withFence(finished, async () => checkFence())).resolves.toBeUndefined();
  });
});
