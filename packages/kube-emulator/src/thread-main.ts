// The worker thread of thread.ts: loads the server's modules, then, when told, starts the server
// (and the kubelet simulator), says where it listens, and closes both when told.

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { startKubeletSimulator, type KubeletSimulator } from './kubelet/simulator.ts';
import { startKubeEmulator, type KubeEmulator } from './server.ts';
import type { ThreadedClusterOptions } from './thread.ts';

const port = parentPort;
if (!port) throw new Error('thread-main.ts runs as a worker thread (thread.ts starts it)');
const options = workerData as ThreadedClusterOptions;
const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error));

// On Linux a thread has a priority of its own: this one (the cluster's JavaScript) yields the CPU
// to the product's thread when both want it (nice 5; /proc/thread-self names its task id). Elsewhere
// it runs at the process's priority.
if (options.nice !== undefined && process.platform === 'linux') {
  try {
    const task = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (Number.isInteger(task) && task > 0) setPriority(task, options.nice);
  } catch {
    // Not permitted or no procfs: the default priority.
  }
}

let emulator: KubeEmulator | undefined;
let kubelet: KubeletSimulator | undefined;
// Loaded and waiting (thread.ts boots the thread before the caller may let it read its data file):
// the cluster starts when told to.
async function start(): Promise<void> {
  try {
    emulator = await startKubeEmulator(options.emulator);
    if (options.kubelet) kubelet = await startKubeletSimulator(emulator.kubeConfig());
    port!.postMessage({ type: 'ready', url: emulator.url, token: emulator.token, caCertificate: emulator.caCertificate });
  } catch (error) {
    await emulator?.close().catch(() => undefined);
    port!.postMessage({ type: 'failed', message: describe(error) });
    port!.close();
  }
}

port.on('message', (message: { type: string }) => {
  if (message.type === 'start') {
    void start();
    return;
  }
  if (message.type !== 'close' || !emulator) return;
  const running = emulator;
  emulator = undefined;
  void (async () => {
    try {
      await kubelet?.stop();
      await running.close();
      port.postMessage({ type: 'closed' });
    } catch (error) {
      port.postMessage({ type: 'failed', message: describe(error) });
    } finally {
      port.close();
    }
  })();
});
