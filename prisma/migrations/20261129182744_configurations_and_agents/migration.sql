-- CreateTable
CREATE TABLE "Configuration" (
    "id" TEXT NOT NULL,
    "namespaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 1,
    "values" JSONB NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Configuration_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConfigurationSecretBinding" (
    "configurationId" TEXT NOT NULL,
    "envName" TEXT NOT NULL,
    "secretId" TEXT NOT NULL,
    "deliveryType" TEXT NOT NULL DEFAULT 'env',

    CONSTRAINT "ConfigurationSecretBinding_pkey" PRIMARY KEY ("configurationId","envName")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "namespaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "servicePrincipalId" TEXT NOT NULL,
    "configurationId" TEXT,
    "harnessProvider" TEXT,
    "harnessSecretId" TEXT,
    "selfConfigureEnabled" BOOLEAN NOT NULL DEFAULT false,
    "selfConfigureActions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "desiredState" TEXT NOT NULL DEFAULT 'stopped',
    "activeRevisionId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'created',
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Configuration_namespaceId_name_key" ON "Configuration"("namespaceId", "name");

-- CreateIndex
CREATE INDEX "ConfigurationSecretBinding_secretId_idx" ON "ConfigurationSecretBinding"("secretId");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_servicePrincipalId_key" ON "Agent"("servicePrincipalId");

-- CreateIndex
CREATE INDEX "Agent_configurationId_idx" ON "Agent"("configurationId");

-- CreateIndex
CREATE INDEX "Agent_harnessSecretId_idx" ON "Agent"("harnessSecretId");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_namespaceId_name_key" ON "Agent"("namespaceId", "name");

-- AddForeignKey
ALTER TABLE "Configuration" ADD CONSTRAINT "Configuration_namespaceId_fkey" FOREIGN KEY ("namespaceId") REFERENCES "Namespace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConfigurationSecretBinding" ADD CONSTRAINT "ConfigurationSecretBinding_configurationId_fkey" FOREIGN KEY ("configurationId") REFERENCES "Configuration"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConfigurationSecretBinding" ADD CONSTRAINT "ConfigurationSecretBinding_secretId_fkey" FOREIGN KEY ("secretId") REFERENCES "Secret"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_namespaceId_fkey" FOREIGN KEY ("namespaceId") REFERENCES "Namespace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_servicePrincipalId_fkey" FOREIGN KEY ("servicePrincipalId") REFERENCES "Principal"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_configurationId_fkey" FOREIGN KEY ("configurationId") REFERENCES "Configuration"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_harnessSecretId_fkey" FOREIGN KEY ("harnessSecretId") REFERENCES "Secret"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
