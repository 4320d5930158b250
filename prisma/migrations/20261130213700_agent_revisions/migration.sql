-- AgentRevision (D4): immutable deploy records, and the secrets each delivers (no locator, no value).
-- CreateEnum
CREATE TYPE "RevisionState" AS ENUM ('QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING', 'ACTIVE', 'FAILED', 'SUPERSEDED', 'STOPPED');

-- CreateTable
CREATE TABLE "AgentRevision" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "namespaceId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "configurationId" TEXT,
    "configurationGeneration" INTEGER,
    "values" JSONB NOT NULL DEFAULT '{}',
    "secretDriverId" TEXT NOT NULL,
    "harnessProvider" TEXT,
    "harnessSecretId" TEXT,
    "servicePrincipalId" TEXT NOT NULL,
    "selfConfigureEnabled" BOOLEAN NOT NULL DEFAULT false,
    "selfConfigureActions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdById" TEXT NOT NULL,
    "state" "RevisionState" NOT NULL DEFAULT 'QUEUED',
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AgentRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentRevisionSecret" (
    "revisionId" TEXT NOT NULL,
    "secretId" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "envName" TEXT NOT NULL,
    "version" INTEGER NOT NULL,

    CONSTRAINT "AgentRevisionSecret_pkey" PRIMARY KEY ("revisionId","envName")
);

-- CreateIndex
CREATE INDEX "AgentRevision_agentId_createdAt_id_idx" ON "AgentRevision"("agentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AgentRevision_state_idx" ON "AgentRevision"("state");

-- CreateIndex
CREATE UNIQUE INDEX "AgentRevision_agentId_number_key" ON "AgentRevision"("agentId", "number");

-- CreateIndex
CREATE INDEX "AgentRevisionSecret_secretId_idx" ON "AgentRevisionSecret"("secretId");

-- AddForeignKey
ALTER TABLE "AgentRevisionSecret" ADD CONSTRAINT "AgentRevisionSecret_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "AgentRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

