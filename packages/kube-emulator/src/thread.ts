// The embedded cluster on a thread of its own: the API server (server.ts) and, when asked, the
// kubelet simulator run in a worker thread (thread-main.ts), so serving a burst of writes, the
// garbage collector and the simulator's work never take turns of the event loop the product's
// GraphQL API runs on. Clients reach it over HTTPS as before; only the handle is different: no
// in-process fault injection (use `adminToken` and /admin/faults) and no containers() view.

import { Worker } from 'node:worker_threads';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFor, kubeconfigYaml } from './kubeconfig.ts';
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

/** The worker's module beside this one; from TypeScript sources it loads through tsx, as the caller did. */
function threadModule(): { url: URL; execArgv: string[] | undefined } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(fromSource ? './thread-main.ts' : './thread-main.js', import.meta.url);
  if (!fromSource || process.execArgv.some((a) => a.includes('tsx'))) return { url, execArgv: undefined };
  return { url, execArgv: [...process.execArgv, '--import', import.meta.resolve('tsx')] };
}

export async function startKubeEmulatorThread(options: ThreadedClusterOptions): Promise<ThreadedCluster> {
  if ('clock' in options.emulator) throw new Error('startKubeEmulatorThread: a clock cannot be passed to another thread');
  const { url: moduleUrl, execArgv } = threadModule();
  const worker = new Worker(moduleUrl, { workerData: options, ...(execArgv ? { execArgv } : {}) });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const ready = await new Promise<Extract<FromThread, { type: 'ready' }>>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: FromThread) => {
      if (message.type === 'ready') resolve(message);
      else reject(new Error(message.type === 'failed' ? message.message : 'the embedded cluster thread answered before it was ready'));
    });
    void exited.then((code) => reject(new Error(`the embedded cluster thread exited with ${code} before it was ready`)));
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  let closing: Promise<void> | undefined;
  return {
    url: ready.url,
    token: ready.token,
    caCertificate: ready.caCertificate,
    kubeConfig: () => kubeConfigFor(ready.url, ready.token, ready.caCertificate),
    kubeconfigYaml: () => kubeconfigYaml(ready.url, ready.token, ready.caCertificate),
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve, reject) => {
          worker.on('message', (message: FromThread) => {
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
