// Recording client-node watches, for the watch tests on both servers and the emulator-only ones.
import { Watch } from '@kubernetes/client-node';
import type { TestCluster } from './testing.ts';

export interface Seen {
  type: string;
  name: string;
  resourceVersion: string;
  object: Record<string, unknown>;
}

/** A client-node Watch that records what arrives and when it ends. */
export async function record(testCluster: TestCluster, path: string, query: Record<string, string | number | boolean> = {}) {
  const seen: Seen[] = [];
  let ended = false;
  let endError: unknown;
  const controller = await new Watch(testCluster.kubeConfig).watch(
    path,
    query,
    (type: string, object: Record<string, unknown>) => {
      const metadata = (object.metadata ?? {}) as Record<string, string>;
      seen.push({ type, name: metadata.name ?? '', resourceVersion: metadata.resourceVersion ?? '', object });
    },
    (error: unknown) => {
      ended = true;
      endError = error;
    },
  );
  return {
    seen,
    controller,
    get ended() {
      return ended;
    },
    get endError() {
      return endError;
    },
  };
}

export async function until(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function summary(seen: Seen[]): string[] {
  return seen.map((e) => `${e.type} ${e.name}`);
}
