-- R3: a random installation id, recorded once. An installation bootstrapped before this migration
-- gets one here: objects it wrote earlier carry no installation label and are no longer its own.
ALTER TABLE "Installation" ADD COLUMN "installationId" TEXT;
UPDATE "Installation" SET "installationId" = gen_random_uuid()::text WHERE "installationId" IS NULL;
ALTER TABLE "Installation" ALTER COLUMN "installationId" SET NOT NULL;
CREATE UNIQUE INDEX "Installation_installationId_key" ON "Installation"("installationId");

-- R4: the step a work item's retry resumes at.
ALTER TABLE "WorkItem" ADD COLUMN "step" TEXT;
