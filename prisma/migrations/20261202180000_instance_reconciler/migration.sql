-- One desired state per agent (issue 22, rules RC1-RC8).

-- RC8: at most one revision per agent is the agent's active one (activating or active), held by
-- the database. Earlier releases could leave two (two workers activating at once): keep the one the
-- agent names, else the newest, and mark the others superseded, before the index is made.
UPDATE "AgentRevision" r SET state = 'SUPERSEDED', "updatedAt" = now()
WHERE r.state IN ('ACTIVATING', 'ACTIVE')
  AND EXISTS (
    SELECT 1 FROM "AgentRevision" o
    LEFT JOIN "Agent" a ON a.id = o."agentId"
    WHERE o."agentId" = r."agentId" AND o.id <> r.id AND o.state IN ('ACTIVATING', 'ACTIVE')
      AND (o.id = a."activeRevisionId" OR (r.id IS DISTINCT FROM a."activeRevisionId" AND o.number > r.number)));
CREATE UNIQUE INDEX "AgentRevision_one_active_per_agent" ON "AgentRevision"("agentId") WHERE state IN ('ACTIVATING', 'ACTIVE');

-- RC3: what a revision's apply took from the agent (names and times only), and the instance
-- generation its apply produced (W5 waits for the gateway of that generation).
ALTER TABLE "AgentRevision" ADD COLUMN "takeovers" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "AgentRevision" ADD COLUMN "instanceGeneration" INTEGER;

-- RC8: work items that share a concurrency key (a deploy's agent) run one at a time: a second one
-- with the key cannot become RUNNING while the first is.
ALTER TABLE "WorkItem" ADD COLUMN "concurrencyKey" TEXT;
CREATE UNIQUE INDEX "WorkItem_one_running_per_key" ON "WorkItem"("concurrencyKey") WHERE state = 'RUNNING';
CREATE INDEX "WorkItem_concurrencyKey_state_idx" ON "WorkItem"("concurrencyKey", state);
UPDATE "WorkItem" SET "concurrencyKey" = payload->>'agentId' WHERE kind = 'revision.deploy' AND state IN ('PENDING', 'RUNNING')
  AND NOT EXISTS (SELECT 1 FROM "WorkItem" w2 WHERE w2.kind = 'revision.deploy' AND w2.state = 'RUNNING' AND w2.payload->>'agentId' = "WorkItem".payload->>'agentId' AND w2.id <> "WorkItem".id);

-- RC6: what the instance reconciler last observed of each agent's gateway, mirrored from the
-- instance's status, so an agent's status is derived in SQL on every read (a page of agents reads
-- no Kubernetes object). Messages name the product's secret ids, never a backend locator.
CREATE TABLE "AgentRuntime" (
    "agentId" TEXT NOT NULL,
    "instanceGeneration" INTEGER NOT NULL,
    "observedGeneration" INTEGER NOT NULL,
    "phase" TEXT NOT NULL,
    "ready" BOOLEAN NOT NULL,
    "reason" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "runningRevisionId" TEXT,
    "runningGeneration" INTEGER,
    "observedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "AgentRuntime_pkey" PRIMARY KEY ("agentId")
);

-- RC5: a Namespace whose Kubernetes namespace disappeared outside the product.
ALTER TYPE "NamespaceStatus" ADD VALUE 'LOST';

-- RC4: the resourceVersion of a secret's Kubernetes Secret at which a change outside the product
-- was last recorded (as a new version), so one change is recorded once.
ALTER TABLE "Secret" ADD COLUMN "outsideChangeSeenAt" TEXT;

-- RC3: the revisions that took items this request set ([{revisionId, number, items, at}]).
ALTER TABLE "SelfConfigRequest" ADD COLUMN "overriddenBy" JSONB NOT NULL DEFAULT '[]';
