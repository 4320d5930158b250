// The embedded cluster on a thread of its own (thread.ts), as `npm start` runs it: what a user
// sees through kubectl, while the thread that started it is busy.

import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootKubeEmulatorThread, startKubeEmulatorThread } from './thread.ts';

const KUBECTL = '/usr/bin/kubectl';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-emulator-thread-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** kubectl run synchronously: this thread's event loop does nothing until it exits. */
function kubectlBlocking(kubeconfig: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, HOME: dir } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the embedded cluster on its own thread', () => {
  it('E1 answers kubectl while the thread that started it is blocked, runs the kubelet simulator (its Node is registered), and keeps its objects across close and restart', async () => {
    const dataFile = join(dir, 'kept', 'objects.json');
    const kubeconfig = join(dir, 'kept.kubeconfig');
    const first = await startKubeEmulatorThread({ emulator: { dataFile }, kubelet: true });
    try {
      await writeFile(kubeconfig, first.kubeconfigYaml(), { mode: 0o600 });
      // spawnSync holds this thread: an emulator in this thread could not answer (kubectl would time out).
      const created = kubectlBlocking(kubeconfig, ['create', 'configmap', 'from-kubectl', '--from-literal=a=1']);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      let nodes = '';
      for (let i = 0; i < 50 && !nodes.includes('kubelet-simulator'); i++) {
        nodes = kubectlBlocking(kubeconfig, ['get', 'nodes', '-o', 'name']).stdout;
        if (!nodes.includes('kubelet-simulator')) await new Promise((r) => setTimeout(r, 100));
      }
      expect(nodes).toContain('node/kubelet-simulator');
    } finally {
      await first.close();
    }
    const second = await startKubeEmulatorThread({ emulator: { dataFile } });
    try {
      await writeFile(kubeconfig, second.kubeconfigYaml(), { mode: 0o600 });
      const read = kubectlBlocking(kubeconfig, ['get', 'configmap', 'from-kubectl', '-o', 'jsonpath={.data.a}']);
      expect(read.stdout).toBe('1');
    } finally {
      await second.close();
    }
  }, 120_000);

  it('E1 a start that fails on the thread (a damaged log) is refused with the reason, naming the file', async () => {
    const dataFile = join(dir, 'damaged', 'objects.json');
    await mkdir(join(dir, 'damaged'), { recursive: true });
    await writeFile(`${dataFile}.wal-000001`, 'not a record\n{"rv":2,"op":"delete","key":"secrets","name":"x"}\n');
    await expect(startKubeEmulatorThread({ emulator: { dataFile } })).rejects.toThrow(`${dataFile}.wal-000001 line 1 is not a log record`);
    await expect(startKubeEmulatorThread({ emulator: { clock: () => new Date() } as never })).rejects.toThrow(/clock cannot be passed/);
  });

  it('E1 a booted thread reads its data folder only when started: cancelled first, it leaves every file as it was; a damaged log is found at start, not at boot', async () => {
    // What the product relies on: it boots the thread before it checks that the state is not a newer
    // release's, and starts it only after.
    const folder = join(dir, 'held');
    const dataFile = join(folder, 'objects.json');
    const first = await startKubeEmulatorThread({ emulator: { dataFile } });
    await first.close();
    const snapshot = async () => Object.fromEntries(await Promise.all((await readdir(folder)).sort().map(async (name) => [name, await readFile(join(folder, name), 'utf8')] as const)));
    const before = await snapshot();
    expect(Object.keys(before).length).toBeGreaterThan(0);

    const cancelled = bootKubeEmulatorThread({ emulator: { dataFile }, kubelet: true });
    await new Promise((r) => setTimeout(r, 1500)); // long enough for the thread to load its modules and, were it not held, to open the files
    await cancelled.cancel();
    expect(await snapshot()).toEqual(before);

    // A log damaged while the thread waits is read, and refused, only by start().
    const booted = bootKubeEmulatorThread({ emulator: { dataFile } });
    await new Promise((r) => setTimeout(r, 1500));
    // (A damaged last line alone would be a write cut short, which a start forgives.)
    await writeFile(`${dataFile}.wal-000009`, 'not a record\n{"rv":2,"op":"delete","key":"secrets","name":"x"}\n');
    await expect(booted.start()).rejects.toThrow(`${dataFile}.wal-000009 line 1 is not a log record`);
    await booted.cancel();
  }, 60_000);
});
