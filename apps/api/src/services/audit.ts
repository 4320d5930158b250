import type { Tx } from '../db/client.ts';
import { newId } from '../ids.ts';

export interface AuditInput {
  actorId: string | null;
  action: string;
  resourceKind: string;
  resourceId: string | null;
  namespaceId: string | null;
  outcome: 'SUCCESS' | 'DENIED' | 'FAILURE';
  reason?: string | null;
  /** Metadata only: names, versions, ids. Never a value. */
  details?: Record<string, unknown>;
}

/** Written in the same transaction as the change it records. */
export async function audit(tx: Tx, event: AuditInput): Promise<void> {
  await tx.auditEvent.create({
    data: {
      id: newId('audit'),
      actorId: event.actorId,
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
