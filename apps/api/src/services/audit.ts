import type { Tx } from '../db/client.ts';
import { newId } from '../ids.ts';

/**
 * The parts of the control plane that act on their own, named on the events they write instead of
 * a principal: the worker runs queued work (deploys and their revisions, namespace provisioning,
 * rollout batches); the reconciler repairs and records what changed outside (drift, a lost
 * namespace, a secret changed in Kubernetes, retired versions); the installer bootstraps.
 */
export const SYSTEM_ACTORS = ['worker', 'reconciler', 'installer'] as const;
export type SystemActor = (typeof SYSTEM_ACTORS)[number];

/** Who acted: a principal, or (never both) a part of the control plane. */
export type AuditActor = { actorId: string; system?: never } | { actorId: null; system: SystemActor };

export type AuditInput = AuditActor & {
  action: string;
  resourceKind: string;
  resourceId: string | null;
  namespaceId: string | null;
  outcome: 'SUCCESS' | 'DENIED' | 'FAILURE';
  reason?: string | null;
  /** Metadata only: names, versions, ids. Never a value. */
  details?: Record<string, unknown>;
};

/** Written in the same transaction as the change it records. */
export async function audit(tx: Tx, event: AuditInput): Promise<void> {
  await tx.auditEvent.create({
    data: {
      id: newId('audit'),
      actorId: event.actorId,
      systemActor: event.actorId === null ? event.system : null,
      action: event.action,
      resourceKind: event.resourceKind,
      resourceId: event.resourceId,
      namespaceId: event.namespaceId,
      outcome: event.outcome,
      reason: event.reason ?? null,
      details: (event.details ?? {}) as object,
    },
  });
}

export interface AnonymousRefusal {
  /** The client's address as the server saw it (the socket's peer), or 'unknown'. */
  clientAddress: string;
  /** What was refused: `signIn`, `authenticate`, or the mutation's name. */
  action: string;
  reason: 'UNAUTHENTICATED' | 'THROTTLED';
  at?: Date;
}

/**
 * Refusals of callers nobody authenticated are coalesced: one row per client address and minute,
 * counting each action and reason, so a client that cannot sign in cannot grow the audit table
 * faster than one row a minute (P5). Every decision about an authenticated caller is audited one
 * by one through `audit`.
 */
export async function auditAnonymousRefusal(db: Tx, refusal: AnonymousRefusal): Promise<void> {
  const at = refusal.at ?? new Date();
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  const address = refusal.clientAddress.slice(0, 64);
  const action = refusal.action.slice(0, 64);
  const key = `anonymous:${address}:${minute.toISOString()}`;
  const details = { clientAddress: address, window: { from: minute.toISOString(), seconds: 60 }, counts: { [`${action}:${refusal.reason}`]: 1 } };
  await db.$executeRaw`
    INSERT INTO "AuditEvent" ("id", "at", "actorId", "action", "resourceKind", "outcome", "reason", "details", "count", "coalesceKey")
    VALUES (${newId('audit')}, ${minute}, NULL, 'anonymousRefusals', 'installation', 'DENIED', ${refusal.reason}, ${JSON.stringify(details)}::jsonb, 1, ${key})
    ON CONFLICT ("coalesceKey") DO UPDATE SET
      "count" = "AuditEvent"."count" + 1,
      "details" = jsonb_set("AuditEvent"."details", ARRAY['counts', ${`${action}:${refusal.reason}`}],
        to_jsonb(COALESCE(("AuditEvent"."details"->'counts'->>${`${action}:${refusal.reason}`})::int, 0) + 1))`;
}
