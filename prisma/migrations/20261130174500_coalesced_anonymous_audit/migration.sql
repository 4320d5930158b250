-- P5: anonymous refusals are coalesced into one row per client address and minute, with a count,
-- so an unauthenticated client cannot grow the audit table without bound.
ALTER TABLE "AuditEvent" ADD COLUMN "count" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "coalesceKey" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_coalesceKey_key" ON "AuditEvent"("coalesceKey");
