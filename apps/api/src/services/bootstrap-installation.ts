import { BUILT_IN_ROLES, builtInRole } from '@occ/domain/access';
import { transaction, type Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import { generateApiKey } from './api-keys.ts';
import { audit } from './audit.ts';

export const INSTALLATION_ROW_ID = 'installation';

export interface InstallationState {
  installationId: string;
  bootstrapPrincipalId: string;
  /** Present only on the start that created the installation: shown once, stored hashed. */
  bootstrapApiKey: string | null;
}

/**
 * Creates the installation on first start: built-in roles, the bootstrap service principal with
 * installation-admin at installation scope, and its first API key. Later starts find it.
 */
export async function ensureInstallation(db: Db): Promise<InstallationState> {
  const existing = await db.installation.findUnique({ where: { id: INSTALLATION_ROW_ID } });
  if (existing) {
    await upsertBuiltInRoles(db);
    return { installationId: existing.id, bootstrapPrincipalId: existing.bootstrapPrincipalId, bootstrapApiKey: null };
  }
  const principalId = newId('servicePrincipal');
  const apiKey = generateApiKey();
  await transaction(db, async (tx) => {
    await upsertBuiltInRoles(tx as Db);
    await tx.principal.create({ data: { id: principalId, kind: 'SERVICE', name: 'bootstrap' } });
    await tx.apiKey.create({ data: { id: newId('apiKey'), principalId, prefix: apiKey.prefix, hash: apiKey.hash } });
    await tx.accessBinding.create({
      data: {
        id: newId('accessBinding'),
        subjectId: principalId,
        roleId: builtInRole('installation-admin').id,
        scopeKind: 'INSTALLATION',
        createdById: principalId,
      },
    });
    await tx.installation.create({ data: { id: INSTALLATION_ROW_ID, bootstrapPrincipalId: principalId } });
    await audit(tx, {
      actorId: null,
      action: 'installation.bootstrap',
      resourceKind: 'installation',
      resourceId: INSTALLATION_ROW_ID,
      namespaceId: null,
      outcome: 'SUCCESS',
      details: { bootstrapPrincipalId: principalId, apiKeyPrefix: apiKey.prefix },
    });
  });
  return { installationId: INSTALLATION_ROW_ID, bootstrapPrincipalId: principalId, bootstrapApiKey: apiKey.key };
}

async function upsertBuiltInRoles(db: Pick<Db, 'role'>): Promise<void> {
  for (const role of BUILT_IN_ROLES) {
    await db.role.upsert({
      where: { id: role.id },
      create: { id: role.id, name: role.name, builtIn: true, permissions: role.permissions as object[] },
      update: { permissions: role.permissions as object[] },
    });
  }
}
