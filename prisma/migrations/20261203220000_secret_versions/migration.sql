-- Secret versions as immutable objects (rules V1, V2, V3, V5). Each version of a secret is its own
-- Kubernetes Secret, recorded here, and the Secret row keeps the locator of its current version.

CREATE TABLE "SecretVersion" (
    "secretId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "backendNamespace" TEXT NOT NULL,
    "backendName" TEXT NOT NULL,
    "backendKey" TEXT NOT NULL DEFAULT 'value',
    "backendUid" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firstDeliveredAt" TIMESTAMP(3),
    "lastDeliveredAt" TIMESTAMP(3),
    "retiredAt" TIMESTAMP(3),
    CONSTRAINT "SecretVersion_pkey" PRIMARY KEY ("secretId", "number")
);
CREATE INDEX "SecretVersion_backendUid_idx" ON "SecretVersion"("backendUid");
ALTER TABLE "SecretVersion" ADD CONSTRAINT "SecretVersion_secretId_fkey" FOREIGN KEY ("secretId") REFERENCES "Secret"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- V1: every existing secret current backend object becomes the row of its current version. Its
-- earlier versions bytes were overwritten in place by earlier releases: they have no object, and
-- no row. A running revision holding the current version has delivered it since it became active
-- (its last change is the best time known).
INSERT INTO "SecretVersion" ("secretId", "number", "backendNamespace", "backendName", "backendKey", "backendUid", "createdAt", "firstDeliveredAt", "lastDeliveredAt")
SELECT s.id, s.version, s."backendNamespace", s."backendName", s."backendKey", s."backendUid", s."updatedAt", d.since, d.since
FROM "Secret" s
LEFT JOIN (
  SELECT rs."secretId", rs.version, min(r."updatedAt") AS since
  FROM "AgentRevisionSecret" rs JOIN "AgentRevision" r ON r.id = rs."revisionId"
  WHERE r.state = 'ACTIVE'
  GROUP BY rs."secretId", rs.version
) d ON d."secretId" = s.id AND d.version = s.version;

-- V2: a revision still on its way under an earlier release would have read the current bytes when
-- it started. It now delivers exactly the version it records, so it records the current one.
UPDATE "AgentRevisionSecret" rs SET version = s.version
FROM "AgentRevision" r, "Secret" s
WHERE r.id = rs."revisionId" AND s.id = rs."secretId" AND r.state IN ('QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING') AND rs.version <> s.version;

-- V5: a version is first delivered when a revision holding it becomes active, and last delivered
-- when one becomes active or stops being active, whichever path changes the state (activation,
-- supersession, stop, failure). (No apostrophes in these comments, and the semicolons of the
-- function body written as the escape 003B, for the migration runner statement splitter.)
CREATE FUNCTION occ_secret_version_delivery() RETURNS trigger LANGUAGE plpgsql AS U&'
BEGIN
  IF NEW.state = ''ACTIVE'' AND OLD.state <> ''ACTIVE'' THEN
    UPDATE "SecretVersion" v SET "firstDeliveredAt" = COALESCE(v."firstDeliveredAt", now()), "lastDeliveredAt" = now()
    FROM "AgentRevisionSecret" rs WHERE rs."revisionId" = NEW.id AND v."secretId" = rs."secretId" AND v.number = rs.version\003B
  ELSIF OLD.state = ''ACTIVE'' AND NEW.state <> ''ACTIVE'' THEN
    UPDATE "SecretVersion" v SET "lastDeliveredAt" = now()
    FROM "AgentRevisionSecret" rs WHERE rs."revisionId" = NEW.id AND v."secretId" = rs."secretId" AND v.number = rs.version\003B
  END IF\003B
  RETURN NULL\003B
END
';
CREATE TRIGGER occ_secret_version_delivery AFTER UPDATE OF state ON "AgentRevision" FOR EACH ROW EXECUTE FUNCTION occ_secret_version_delivery();

-- V5: since when an agent runs the versions its active revision holds.
ALTER TABLE "AgentRevision" ADD COLUMN "activatedAt" TIMESTAMP(3);
UPDATE "AgentRevision" SET "activatedAt" = "updatedAt" WHERE state = 'ACTIVE';
CREATE FUNCTION occ_revision_activated() RETURNS trigger LANGUAGE plpgsql AS U&'
BEGIN
  IF NEW.state = ''ACTIVE'' AND OLD.state <> ''ACTIVE'' THEN
    NEW."activatedAt" := now()\003B
  END IF\003B
  RETURN NEW\003B
END
';
CREATE TRIGGER occ_revision_activated BEFORE UPDATE OF state ON "AgentRevision" FOR EACH ROW EXECUTE FUNCTION occ_revision_activated();
