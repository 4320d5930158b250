-- Issue 13: every list is read as a keyset page in (createdAt, id) order, within its namespace.
-- CreateIndex
CREATE INDEX "Agent_namespaceId_createdAt_id_idx" ON "Agent"("namespaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Configuration_namespaceId_createdAt_id_idx" ON "Configuration"("namespaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Namespace_createdAt_id_idx" ON "Namespace"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Principal_kind_createdAt_id_idx" ON "Principal"("kind", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Secret_namespaceId_createdAt_id_idx" ON "Secret"("namespaceId", "createdAt", "id");

