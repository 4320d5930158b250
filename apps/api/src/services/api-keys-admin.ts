import { ConflictError, NotFoundError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { isIdShaped } from '@occ/domain/text';
import { transaction } from '../db/client.ts';
import { newId } from '../ids.ts';
import { authorizeVisible, decider } from './access.ts';
import { generateApiKey } from './api-keys.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';

// API keys of any principal. A principal manages its own keys; anyone else needs `administer` on
// `principal` at installation scope. Neither the key nor its hash ever leaves this file except
// the plaintext once, in createApiKey's answer.

export interface ApiKeyView {
  id: string;
  principalId: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const VIEW = { id: true, principalId: true, prefix: true, createdAt: true, revokedAt: true, lastUsedAt: true } as const;

const administerPrincipal = (principalId: string) => ({ action: 'administer', resourceKind: 'principal', namespaceId: null, resourceId: principalId }) as const;

const readPrincipal = (principalId: string) => ({ action: 'read', resourceKind: 'principal', namespaceId: null, resourceId: principalId }) as const;

/**
 * Another principal's keys need `administer` on it; a principal the caller may not even read is
 * NOT_FOUND, exactly as one that does not exist (P6).
 */
async function authorizeKeysOf(deps: Deps, actor: Actor, principalId: string, notFound: string): Promise<void> {
  if (principalId === actor.principalId) return;
  await authorizeVisible(deps, actor, administerPrincipal(principalId), [readPrincipal(principalId)], deps.db, notFound);
}

export async function createApiKey(deps: Deps, actor: Actor, input: { principalId: string }): Promise<{ apiKey: ApiKeyView; key: string }> {
  if (!isIdShaped(input.principalId)) throw new NotFoundError('No such principal.');
  await authorizeKeysOf(deps, actor, input.principalId, 'No such principal.');
  const key = generateApiKey();
  return transaction(deps.db, async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string; disabled: boolean }>>`
      SELECT id, "disabledAt" IS NOT NULL AS disabled FROM "Principal" WHERE id = ${input.principalId} FOR UPDATE`;
    const principal = rows[0];
    if (!principal) throw new NotFoundError('No such principal.');
    if (principal.disabled) throw new ConflictError('The principal is disabled; it cannot get a new key.', 'PRINCIPAL_DISABLED');
    const apiKey = await tx.apiKey.create({ data: { id: newId('apiKey'), principalId: principal.id, prefix: key.prefix, hash: key.hash }, select: VIEW });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'apiKey.create',
      resourceKind: 'principal',
      resourceId: principal.id,
      namespaceId: null,
      outcome: 'SUCCESS',
      details: { apiKeyId: apiKey.id, prefix: apiKey.prefix },
    });
    return { apiKey, key: key.key };
  });
}

/** Yours, or anyone's with `read` (or `administer`) on principals; otherwise nothing. */
export async function listApiKeys(deps: Deps, actor: Actor, principalId: string): Promise<ApiKeyView[]> {
  if (!isIdShaped(principalId)) return [];
  if (principalId !== actor.principalId) {
    const may = await decider(deps.db, actor);
    if (!may(readPrincipal(principalId)).allowed && !may(administerPrincipal(principalId)).allowed) return [];
  }
  return deps.db.apiKey.findMany({ where: { principalId }, select: VIEW, orderBy: { createdAt: 'asc' } });
}

/** Revoking ends the key's sessions too (authenticateSession checks the key). Twice changes nothing; a key the caller cannot see is NOT_FOUND (P6). */
export async function revokeApiKey(deps: Deps, actor: Actor, input: { id: string }): Promise<{ apiKey: ApiKeyView; changed: boolean }> {
  const existing = isId('apiKey', input.id) ? await deps.db.apiKey.findUnique({ where: { id: input.id }, select: VIEW }) : null;
  if (!existing) throw new NotFoundError('No such API key.');
  await authorizeKeysOf(deps, actor, existing.principalId, 'No such API key.');
  return transaction(deps.db, async (tx) => {
    const rows = await tx.$queryRaw<Array<{ revoked: boolean }>>`
      SELECT "revokedAt" IS NOT NULL AS revoked FROM "ApiKey" WHERE id = ${existing.id} FOR UPDATE`;
    if (rows[0]?.revoked) return { apiKey: await tx.apiKey.findUniqueOrThrow({ where: { id: existing.id }, select: VIEW }), changed: false };
    const apiKey = await tx.apiKey.update({ where: { id: existing.id }, data: { revokedAt: new Date() }, select: VIEW });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'apiKey.revoke',
      resourceKind: 'principal',
      resourceId: apiKey.principalId,
      namespaceId: null,
      outcome: 'SUCCESS',
      details: { apiKeyId: apiKey.id, prefix: apiKey.prefix },
    });
    return { apiKey, changed: true };
  });
}
