-- Upgrades (issue 30). Each Kubernetes object migration a release ran (apps/api/src/upgrade), once,
-- with what it did: a step not recorded here runs at the next start.
CREATE TABLE "KubernetesMigration" (
    "id" TEXT NOT NULL,
    "release" TEXT NOT NULL,
    "appliedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "examined" INTEGER NOT NULL,
    "changed" INTEGER NOT NULL,
    "skipped" JSONB NOT NULL DEFAULT '[]',
    CONSTRAINT "KubernetesMigration_pkey" PRIMARY KEY ("id")
);

-- Every release that started on this state, and the newest database migration it knew: a start of an
-- older release on newer state names the newer release when it refuses.
CREATE TABLE "ReleaseStart" (
    "release" TEXT NOT NULL,
    "databaseMigration" TEXT NOT NULL,
    "firstStartedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastStartedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ReleaseStart_pkey" PRIMARY KEY ("release")
);
