import { CustomObjectsApi } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { waitFor } from './operations.ts';
import type { TestStack } from './stack.ts';

// An OpenClawSelfConfig request as a cluster reader waits for it: until its terminal phase.

export const TERMINAL_PHASES = ['Applied', 'Failed', 'Denied', 'RolledBack'];

type Request = { metadata: { uid: string }; status?: { phase?: string } };

/**
 * Waits for request `name`'s terminal phase and checks, at the moment a reader sees it, that the
 * history row already says the same: the controller writes history first, so an auditor and the
 * budget of the agent's next request never see a phase history does not have. Every request the
 * SelfConfig suites submit goes through this check.
 */
export async function untilTerminal<T extends Request>(stack: TestStack, namespace: string, name: string, timeoutMs = 60_000): Promise<T> {
  const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  const obj = await waitFor(async () => {
    const read = (await custom.getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', plural: 'openclawselfconfigs', namespace, name })) as T;
    return TERMINAL_PHASES.includes(read.status?.phase ?? '') ? read : null;
  }, `${name} terminal`, timeoutMs);
  const row = await stack.runtime.db.selfConfigRequest.findUnique({ where: { uid: obj.metadata.uid }, select: { phase: true } });
  expect(row?.phase, `history of ${name} when its status said ${obj.status?.phase}`).toBe(obj.status?.phase);
  return obj;
}
