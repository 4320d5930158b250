-- Issue 13: the audit trail is read newest first, as keyset pages, by namespace or by actor.
-- DropIndex
DROP INDEX "AuditEvent_at_idx";

-- CreateIndex
CREATE INDEX "AuditEvent_at_id_idx" ON "AuditEvent"("at", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_namespaceId_at_id_idx" ON "AuditEvent"("namespaceId", "at", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_actorId_at_id_idx" ON "AuditEvent"("actorId", "at", "id");

