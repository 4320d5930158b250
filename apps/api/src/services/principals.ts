import { builtInRole, type Scope } from '@occ/domain/access';
import type { Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import { generateApiKey } from './api-keys.ts';
import { scopeColumns } from './access-scope.ts';
import { audit } from './audit.ts';

// Test fixtures: a user and a grant written straight to the database, without an authorizing
// caller. The product's identity administration, with its authorization, is users.ts,
// api-keys-admin.ts and access-grants.ts.

export async function createHumanPrincipal(db: Db, name: string, createdById: string): Promise<{ principalId: string; apiKey: string; apiKeyId: string }> {
  const principalId = newId('humanPrincipal');
  const apiKeyId = newId('apiKey');
  const key = generateApiKey();
  await db.$transaction(async (tx) => {
    await tx.principal.create({ data: { id: principalId, kind: 'HUMAN', name } });
    await tx.apiKey.create({ data: { id: apiKeyId, principalId, prefix: key.prefix, hash: key.hash } });
    await audit(tx, {
      actorId: createdById,
      action: 'principal.create',
      resourceKind: 'principal',
      resourceId: principalId,
      namespaceId: null,
      outcome: 'SUCCESS',
      details: { name, apiKeyPrefix: key.prefix },
    });
  });
  return { principalId, apiKey: key.key, apiKeyId };
}

export type GrantScope = { kind: 'installation' } | { kind: 'namespace'; namespaceId: string } | { kind: 'resource'; resourceKind: string; resourceId: string; namespaceId: string };

export async function grantBuiltInRole(db: Db, subjectId: string, roleName: string, scope: GrantScope, createdById: string): Promise<string> {
  const id = newId('accessBinding');
  await db.$transaction(async (tx) => {
    await tx.accessBinding.create({
      data: {
        id,
        subjectId,
        roleId: builtInRole(roleName).id,
        ...scopeColumns(scope as Scope),
        createdById,
      },
    });
    await audit(tx, {
      actorId: createdById,
      action: 'accessBinding.create',
      resourceKind: 'accessBinding',
      resourceId: id,
      namespaceId: scope.kind === 'installation' ? null : scope.namespaceId,
      outcome: 'SUCCESS',
      details: { subjectId, role: roleName, scope: scope.kind },
    });
  });
  return id;
}
