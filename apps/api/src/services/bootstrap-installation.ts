import { randomUUID } from 'node:crypto';
import { BUILT_IN_ROLES, builtInRole } from '@occ/domain/access';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { newId } from '../ids.ts';
import { generateApiKey } from './api-keys.ts';
import { audit } from './audit.ts';
import type { BootstrapKeyDelivery } from './bootstrap-key-delivery.ts';

export const INSTALLATION_ROW_ID = 'installation';

/** R3: the transaction-scoped advisory lock every starting replica takes before looking. */
export const BOOTSTRAP_LOCK_KEY = 0x6f63635f626f6fn; // "occ_boo"

export interface InstallationState {
  /** R3: random, recorded once at bootstrap; labels every object this installation writes. */
  installationId: string;
  bootstrapPrincipalId: string;
  /**
   * Present only on the start that created the installation, and only when the key is to be
   * printed (development): shown once, stored hashed. In production it went to its configured
   * Secret or file instead, and this is null.
   */
  bootstrapApiKey: string | null;
  /** Where the key went, when it was delivered rather than printed (for the start message). */
  bootstrapKeyDeliveredTo: string | null;
}

/**
 * Creates the installation on first start: built-in roles, the bootstrap service principal with
 * installation-admin at installation scope, its first API key and a random installation id. Later
 * starts find it. R3: replicas starting at once serialize on an advisory lock held for the
 * transaction; the first creates, the others wait and then read what it committed.
 */
export async function ensureInstallation(db: Db, delivery: BootstrapKeyDelivery = { kind: 'print' }): Promise<InstallationState> {
  let undo: (() => Promise<void>) | null = null;
  try {
    return await transaction(db, async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`;
      await upsertBuiltInRoles(tx);
      const existing = await tx.installation.findUnique({ where: { id: INSTALLATION_ROW_ID } });
      if (existing) {
        return { installationId: existing.installationId, bootstrapPrincipalId: existing.bootstrapPrincipalId, bootstrapApiKey: null, bootstrapKeyDeliveredTo: null };
      }
      if (delivery.kind === 'refuse') throw new BootstrapKeyUndeliverableError(delivery.reason);
      const installationId = randomUUID();
      const principalId = newId('servicePrincipal');
      const apiKey = generateApiKey();
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
      await tx.installation.create({ data: { id: INSTALLATION_ROW_ID, installationId, bootstrapPrincipalId: principalId } });
      await audit(tx, {
        actorId: null,
        system: 'installer',
        action: 'installation.bootstrap',
        resourceKind: 'installation',
        resourceId: INSTALLATION_ROW_ID,
        namespaceId: null,
        outcome: 'SUCCESS',
        details: { bootstrapPrincipalId: principalId, apiKeyPrefix: apiKey.prefix, installationId },
      });
      if (delivery.kind === 'deliver') {
        // Delivered before the commit: a key that cannot be delivered leaves no installation
        // behind, and the next start tries again. A failed commit takes the delivered key back.
        undo = await delivery.deliver(apiKey.key, installationId);
        return { installationId, bootstrapPrincipalId: principalId, bootstrapApiKey: null, bootstrapKeyDeliveredTo: delivery.target };
      }
      return { installationId, bootstrapPrincipalId: principalId, bootstrapApiKey: apiKey.key, bootstrapKeyDeliveredTo: null };
    });
  } catch (error) {
    const pending = undo as (() => Promise<void>) | null;
    if (pending) await pending().catch(() => {});
    throw error;
  }
}

export class BootstrapKeyUndeliverableError extends Error {
  override name = 'BootstrapKeyUndeliverableError';
  readonly code = 'BOOTSTRAP_KEY_UNDELIVERABLE';
}

async function upsertBuiltInRoles(db: Pick<Tx, 'role'>): Promise<void> {
  for (const role of BUILT_IN_ROLES) {
    await db.role.upsert({
      where: { id: role.id },
      create: { id: role.id, name: role.name, builtIn: true, permissions: role.permissions as object[] },
      update: { permissions: role.permissions as object[] },
    });
  }
}
