-- SG4 SelfConfig budgets. Both columns are additive with defaults that keep existing rows as they
-- were: no agent is paused by this migration, and history rows written before it have no reason.

-- The rollbacks an administrator has resumed the agent's self-configuration after.
ALTER TABLE "Agent" ADD COLUMN "selfConfigRollbacksResumed" INTEGER NOT NULL DEFAULT 0;

-- Why a request ended in its phase (a Denied request over budget does not count against the budget).
ALTER TABLE "SelfConfigRequest" ADD COLUMN "reason" TEXT;
