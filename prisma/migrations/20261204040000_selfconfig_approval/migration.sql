-- SG3 SelfConfig approval. Additive, with defaults that keep existing agents and revisions as they
-- were (no category needs approval), and history rows written before it awaited nothing.

-- The categories whose requests wait for an administrator (skills, config, workspaceFiles, envVars).
ALTER TABLE "Agent" ADD COLUMN "selfConfigureApproval" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "AgentRevision" ADD COLUMN "selfConfigureApproval" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- When a request began to wait, and the administrator's decision on it.
ALTER TABLE "SelfConfigRequest" ADD COLUMN "awaitingApprovalAt" TIMESTAMP(3);
ALTER TABLE "SelfConfigRequest" ADD COLUMN "approvalDecision" TEXT;
ALTER TABLE "SelfConfigRequest" ADD COLUMN "approvalById" TEXT;
ALTER TABLE "SelfConfigRequest" ADD COLUMN "approvalAt" TIMESTAMP(3);
ALTER TABLE "SelfConfigRequest" ADD COLUMN "approvalReason" TEXT;
