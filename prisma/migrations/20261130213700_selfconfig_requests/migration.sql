-- CreateTable
CREATE TABLE "SelfConfigRequest" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "k8sNamespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "instanceRef" TEXT NOT NULL,
    "namespaceId" TEXT,
    "agentId" TEXT,
    "requestedById" TEXT,
    "request" JSONB NOT NULL DEFAULT '{}',
    "phase" TEXT NOT NULL DEFAULT 'Submitted',
    "message" TEXT,
    "skippedRemovals" JSONB NOT NULL DEFAULT '[]',
    "events" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "pendingAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "SelfConfigRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SelfConfigRequest_uid_key" ON "SelfConfigRequest"("uid");

-- CreateIndex
CREATE INDEX "SelfConfigRequest_createdAt_id_idx" ON "SelfConfigRequest"("createdAt", "id");

-- CreateIndex
CREATE INDEX "SelfConfigRequest_namespaceId_createdAt_id_idx" ON "SelfConfigRequest"("namespaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SelfConfigRequest_agentId_createdAt_id_idx" ON "SelfConfigRequest"("agentId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SelfConfigRequest_phase_createdAt_id_idx" ON "SelfConfigRequest"("phase", "createdAt", "id");

