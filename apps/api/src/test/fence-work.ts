import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { defineWorkKind } from '../worker.ts';

// R4's pause test (worker-fencing.test.ts): a work kind whose one step writes a ConfigMap, says
// so, waits `pauseMs` (the test stops the process there with SIGSTOP), then writes a second one.
// Both are named after the worker that wrote them (`tag`), so the cluster shows who wrote what.

export const FENCE_KIND = 'test.fence';

export function fenceWorkKind(kubeConfig: KubeConfig, tag: string, onEntered: () => void) {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const write = (namespace: string, name: string) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { writer: tag } } });
  return defineWorkKind({
    kind: FENCE_KIND,
    payload: z.object({ namespace: z.string(), pauseMs: z.number() }),
    steps: [
      {
        name: 'write',
        async run(payload) {
          await write(payload.namespace, `first-${tag}`);
          onEntered();
          await sleep(payload.pauseMs);
          await write(payload.namespace, `second-${tag}`);
        },
      },
    ],
  });
}
