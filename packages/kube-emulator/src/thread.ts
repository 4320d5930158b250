// The embedded cluster on a thread of its own: the API server (server.ts) and, when asked, the
// kubelet simulator run in a worker thread (thread-main.ts), so serving a burst of writes, the
// garbage collector and the simulator's work never take turns of the event loop the product's
// GraphQL API runs on. Clients reach it over HTTPS as before; only the handle is different: no
// in-process fault injection (use `adminToken` and /admin/faults) and no containers() view.
// This module loads nothing heavy before the thread is started (kubeconfig.ts, and with it
// client-node, only then), so a caller can boot the thread before it loads its own modules.

import { Worker } from 'node:worker_threads';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeEmulatorOptions } from './server.ts';

export interface ThreadedClusterOptions {
  /** The server's options; `clock` cannot cross a thread and is refused. */
  emulator: Omit<KubeEmulatorOptions, 'clock'>;
  /** Also run the kubelet simulator (E3) on that thread, against the server. */
  kubelet?: boolean;
  /** Linux: the thread's nice value (e.g. 5), so the caller's thread gets the CPU first when both want it. */
  nice?: number;
}

export interface ThreadedCluster {
  url: string;
  token: string;
  caCertificate: string;
  kubeConfig(): KubeConfig;
  kubeconfigYaml(): string;
  /** Stops the simulator and the server (writing the data file) and ends the thread. */
  close(): Promise<void>;
}

type FromThread = { type: 'ready'; url: string; token: string; caCertificate: string } | { type: 'failed'; message: string } | { type: 'closed' };

/**
 * A worker thread's module `name` (without extension) beside the module at `base`
 * (import.meta.url): from TypeScript sources it loads through tsx, as the caller did; from the built
 * product, the .js beside it.
 */
export function workerModule(base: string, name: string): { url: URL; execArgv: string[] | undefined } {
  const fromSource = base.endsWith('.ts');
  const url = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, base);
  if (!fromSource || process.execArgv.some((a) => a.includes('tsx'))) return { url, execArgv: undefined };
  return { url, execArgv: [...process.execArgv, '--import', import.meta.resolve('tsx')] };
}

/**
 * A cluster thread booted and waiting: its modules load (the larger part of its start) while the
 * caller does other work, and it opens its data file and listens only on `start`. So a caller that
 * must check something before the cluster's state is read (the product refuses state a newer release
 * wrote) can still boot it first. `cancel` ends a thread that was never started.
 */
export interface BootingCluster {
  start(): Promise<ThreadedCluster>;
  cancel(): Promise<void>;
}

export function bootKubeEmulatorThread(options: ThreadedClusterOptions): BootingCluster {
  if ('clock' in options.emulator) throw new Error('startKubeEmulatorThread: a clock cannot be passed to another thread');
  const { url: moduleUrl, execArgv } = workerModule(import.meta.url, 'thread-main');
  const worker = new Worker(moduleUrl, { workerData: options, ...(execArgv ? { execArgv } : {}) });
  // Listened to from the boot on: an error or an exit before `start` is kept for it to report.
  const thread = threadConversation<Extract<FromThread, { type: 'ready' }>>(worker, 'the embedded cluster thread');
  let started: Promise<ThreadedCluster> | undefined;
  return {
    start() {
      started ??= (async () => {
        worker.postMessage({ type: 'start' });
        const answer = await thread.ready.catch(async (error: unknown) => {
          await worker.terminate();
          throw error;
        });
        const { kubeConfigFor, kubeconfigYaml } = await import('./kubeconfig.ts');
        return {
          url: answer.url,
          token: answer.token,
          caCertificate: answer.caCertificate,
          kubeConfig: () => kubeConfigFor(answer.url, answer.token, answer.caCertificate),
          kubeconfigYaml: () => kubeconfigYaml(answer.url, answer.token, answer.caCertificate),
          close: thread.close,
        };
      })();
      return started;
    },
    async cancel() {
      if (started) return (await started.catch(() => null))?.close();
      await worker.terminate();
    },
  };
}

/** Boots the thread and starts the cluster at once. */
export async function startKubeEmulatorThread(options: ThreadedClusterOptions): Promise<ThreadedCluster> {
  return bootKubeEmulatorThread(options).start();
}

/**
 * What a thread of the embedded parts (this cluster's; the API's PGlite, db/embedded-postgres.ts)
 * says to the thread that made it: `ready` (with what it carries) or `failed` with the reason; told
 * `close`, `closed` or `failed`. `ready` is refused by a failure, an error or an exit before it
 * (listened to from the moment the worker is made, and kept for whoever awaits it); `close` sends
 * `close` once and resolves when the thread has said `closed`, or has exited, and is gone.
 */
export function threadConversation<Ready extends { type: 'ready' }>(worker: Worker, name: string): { ready: Promise<Ready>; close(): Promise<void> } {
  type Said = Ready | { type: 'failed'; message: string } | { type: 'closed' };
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const ready = new Promise<Ready>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: Said) => {
      if (message.type === 'ready') resolve(message as Ready);
      else reject(new Error(message.type === 'failed' ? message.message : `${name} answered before it was ready`));
    });
    void exited.then((code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  ready.catch(() => undefined); // reported to whoever awaits it; a thread ended before it was ready has nothing to report
  let closing: Promise<void> | undefined;
  return {
    ready,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve, reject) => {
          worker.on('message', (message: Said) => {
            if (message.type === 'closed') resolve();
            else if (message.type === 'failed') reject(new Error(message.message));
          });
          void exited.then(() => resolve());
        });
        worker.postMessage({ type: 'close' });
        await closed;
        await exited;
      })();
      return closing;
    },
  };
}
