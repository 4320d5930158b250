-- Audit events the control plane writes by itself name which part acted (the worker, the
-- reconciler, the installer) instead of leaving the actor empty, like a refusal nobody signed in
-- for. Additive: the rows of earlier releases are named from their action, which only one part
-- writes, and a row of an action not listed keeps a null (the CHECK is NOT VALID, so it holds every
-- row written from now on and leaves the old ones as they were).

-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN     "systemActor" TEXT;

UPDATE "AuditEvent" SET "systemActor" = 'worker'
  WHERE "actorId" IS NULL
    AND ("action" IN ('revision.fail', 'revision.supersede', 'revision.activate', 'revision.ready', 'revision.takeover', 'namespace.provision')
      OR "action" LIKE 'secret.rollout.%');
UPDATE "AuditEvent" SET "systemActor" = 'reconciler'
  WHERE "actorId" IS NULL AND "action" IN ('instance.driftRepaired', 'namespace.lost', 'secret.versionsRetired', 'secret.changedOutside');
UPDATE "AuditEvent" SET "systemActor" = 'installer'
  WHERE "actorId" IS NULL AND "action" = 'installation.bootstrap';

-- Exactly one of: a principal, a part of the control plane, or a coalesced anonymous refusal.
ALTER TABLE "AuditEvent" ADD CONSTRAINT "AuditEvent_one_actor"
  CHECK ((("actorId" IS NOT NULL)::int + ("systemActor" IS NOT NULL)::int + ("action" = 'anonymousRefusals')::int) = 1) NOT VALID;
ALTER TABLE "AuditEvent" ADD CONSTRAINT "AuditEvent_systemActor_known"
  CHECK ("systemActor" IN ('worker', 'reconciler', 'installer'));
