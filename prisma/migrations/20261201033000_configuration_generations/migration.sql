-- ConfigurationGeneration (C5): the history of the accepted generations of each configuration, written
-- with every create and update from now on. Each existing configuration gets one row for its current
-- generation (earlier ones were never kept): its maker is the actor of the audited create or update
-- that reached that generation when there is one, else the creator of the configuration. Its time is
-- the last update of the configuration. (No apostrophes or semicolons in these comments: the statement splitter of
-- the migration runner reads them as quotes or statement ends.)
-- CreateTable
CREATE TABLE "ConfigurationGeneration" (
    "configurationId" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "values" JSONB NOT NULL,
    "secretBindings" JSONB NOT NULL DEFAULT '[]',
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConfigurationGeneration_pkey" PRIMARY KEY ("configurationId","generation")
);

-- AddForeignKey
ALTER TABLE "ConfigurationGeneration" ADD CONSTRAINT "ConfigurationGeneration_configurationId_fkey" FOREIGN KEY ("configurationId") REFERENCES "Configuration"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill
INSERT INTO "ConfigurationGeneration" ("configurationId", "generation", "values", "secretBindings", "createdById", "createdAt")
SELECT c."id", c."generation", c."values",
       COALESCE((SELECT jsonb_agg(jsonb_build_object('envName', b."envName", 'secretId', b."secretId", 'deliveryType', b."deliveryType") ORDER BY b."envName")
                 FROM "ConfigurationSecretBinding" b WHERE b."configurationId" = c."id"), '[]'::jsonb),
       COALESCE((SELECT a."actorId" FROM "AuditEvent" a
                 WHERE a."resourceKind" = 'configuration' AND a."resourceId" = c."id" AND a."outcome" = 'SUCCESS'
                   AND a."action" IN ('configuration.create', 'configuration.update') AND a."actorId" IS NOT NULL
                   AND a."details" -> 'generation' = to_jsonb(c."generation")
                 ORDER BY a."at" DESC, a."id" DESC LIMIT 1), c."createdById"),
       c."updatedAt"
FROM "Configuration" c;
