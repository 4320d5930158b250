import { z } from 'zod';
import type { Db, Tx } from '../db/client.ts';

// The payloads deploy work items carry. `secretIds` names every Secret the item delivers (bound
// ones and the harnessAuth one), so deleteSecret (S7) finds pending work that references a secret
// from the queue itself, whatever state its revision row is in. A payload holds ids only: no
// locator and no value (W3 builds the secret context from metadata on each run).

/** Admission to the instance apply: one at a time per agent (the item's concurrency key, RC8). */
export const DEPLOY_REVISION_KIND = 'revision.deploy';
/** W5: waiting for the instance to report the revision's generation Ready; not serialized with deploys. */
export const AWAIT_REVISION_KIND = 'revision.await';

/** Every work kind that delivers secrets; each payload has `secretIds`, `revisionId` and `agentId`. */
export const DEPLOY_WORK_KINDS: readonly string[] = [DEPLOY_REVISION_KIND, AWAIT_REVISION_KIND];

export const DeployRevisionPayload = z.object({
  revisionId: z.string().startsWith('rev_'),
  agentId: z.string().startsWith('agt_'),
  namespaceId: z.string().startsWith('ns_'),
  /** Who deployed: W2 re-checks that this principal is still allowed. */
  actorId: z.string(),
  secretIds: z.array(z.string().startsWith('sec_')),
});
export type DeployRevisionPayload = z.infer<typeof DeployRevisionPayload>;

export const AwaitRevisionPayload = DeployRevisionPayload.extend({
  /** When the wait began (the apply's commit): the W5 deadline counts from here, across retries. */
  since: z.string().datetime(),
});
export type AwaitRevisionPayload = z.infer<typeof AwaitRevisionPayload>;

export interface PendingDeployWork {
  workItemId: string;
  revisionId: string;
  agentId: string;
}

/** S7: deploy work not yet ended (pending or running) whose payload names `secretId`. */
export async function pendingDeployWorkFor(db: Db | Tx, secretId: string): Promise<PendingDeployWork[]> {
  const rows = await db.$queryRaw<Array<{ id: string; revisionId: string | null; agentId: string | null }>>`
    SELECT id, payload->>'revisionId' AS "revisionId", payload->>'agentId' AS "agentId" FROM "WorkItem"
    WHERE kind = ANY(${[...DEPLOY_WORK_KINDS]}::text[]) AND state IN ('PENDING', 'RUNNING')
      AND payload->'secretIds' @> jsonb_build_array(${secretId}::text)
    ORDER BY "createdAt", id`;
  return rows.map((r) => ({ workItemId: r.id, revisionId: r.revisionId ?? '', agentId: r.agentId ?? '' }));
}
