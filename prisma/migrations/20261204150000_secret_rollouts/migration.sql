-- V4 rotation rollouts. Additive: no secret or namespace has a policy (manual, as before), no
-- revision was deployed by a rollout, and there is no rollout.

-- AlterTable
ALTER TABLE "Namespace" ADD COLUMN     "secretRotationPolicy" JSONB;

-- AlterTable
ALTER TABLE "Secret" ADD COLUMN     "rotationPolicy" JSONB;

-- AlterTable
ALTER TABLE "AgentRevision" ADD COLUMN     "rolloutStep" TEXT;

-- CreateTable
CREATE TABLE "SecretRollout" (
    "id" TEXT NOT NULL,
    "secretId" TEXT NOT NULL,
    "namespaceId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "policy" JSONB NOT NULL,
    "targetVersion" INTEGER NOT NULL,
    "rotations" INTEGER NOT NULL DEFAULT 1,
    "lastRotatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotatedById" TEXT NOT NULL,
    "approvedById" TEXT,
    "approvedAt" TIMESTAMP(3),
    "reasonCode" TEXT,
    "reasonMessage" TEXT,
    "lastBatchEndedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "SecretRollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SecretRolloutBatch" (
    "rolloutId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "targetVersion" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "reasonCode" TEXT,
    "reasonMessage" TEXT,
    "members" JSONB NOT NULL,

    CONSTRAINT "SecretRolloutBatch_pkey" PRIMARY KEY ("rolloutId","index")
);

-- CreateIndex
CREATE INDEX "SecretRollout_secretId_createdAt_idx" ON "SecretRollout"("secretId", "createdAt");

-- CreateIndex
CREATE INDEX "SecretRollout_namespaceId_state_idx" ON "SecretRollout"("namespaceId", "state");

-- CreateIndex
CREATE INDEX "AgentRevision_rolloutStep_idx" ON "AgentRevision"("rolloutStep");

-- AddForeignKey
ALTER TABLE "SecretRollout" ADD CONSTRAINT "SecretRollout_secretId_fkey" FOREIGN KEY ("secretId") REFERENCES "Secret"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SecretRolloutBatch" ADD CONSTRAINT "SecretRolloutBatch_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "SecretRollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- At most one rollout of a secret is open at a time: a rotation while one runs moves its target.
CREATE UNIQUE INDEX "SecretRollout_open_secretId_key" ON "SecretRollout"("secretId")
  WHERE "state" IN ('AWAITING_APPROVAL', 'ROLLING', 'PAUSED', 'ROLLING_BACK');
