-- accessBindings(subjectId) pages by (createdAt, id) within one subject: an index in that order reads a page
-- deep in a subject's grants without sorting them all (the old index held the subject only).
-- DropIndex
DROP INDEX "AccessBinding_subjectId_idx";

-- CreateIndex
CREATE INDEX "AccessBinding_subjectId_createdAt_id_idx" ON "AccessBinding"("subjectId", "createdAt", "id");

