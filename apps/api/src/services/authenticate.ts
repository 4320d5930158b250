import type { Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import { generateSessionToken, hashToken } from './api-keys.ts';
import type { Actor } from './deps.ts';

const SESSION_HOURS = 12;
/** lastUsedAt is for people reviewing keys, so it is written at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

async function markUsed(db: Db, key: { id: string; lastUsedAt: Date | null }): Promise<void> {
  const now = Date.now();
  if (key.lastUsedAt && now - key.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  await db.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date(now) } });
}

/** A missing, unknown or revoked key, or a disabled principal, authenticates nobody. */
export async function authenticateApiKey(db: Db, key: string): Promise<Actor | null> {
  if (!key.startsWith('occ_') || key.length > 200) return null;
  const row = await db.apiKey.findUnique({ where: { hash: hashToken(key) }, include: { principal: true } });
  if (!row || row.revokedAt || row.principal.disabledAt) return null;
  await markUsed(db, row);
  return { principalId: row.principalId, kind: row.principal.kind, name: row.principal.name, apiKeyId: row.id };
}

export async function createSession(db: Db, actor: Actor): Promise<{ token: string; expiresAt: Date }> {
  const { token, hash } = generateSessionToken();
  const expiresAt = new Date(Date.now() + SESSION_HOURS * 3600_000);
  await db.session.create({ data: { id: newId('session'), tokenHash: hash, apiKeyId: actor.apiKeyId, expiresAt } });
  return { token, expiresAt };
}

/** A session lives no longer than its API key: revoking the key ends it. */
export async function authenticateSession(db: Db, token: string): Promise<Actor | null> {
  if (token.length === 0 || token.length > 200) return null;
  const row = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { apiKey: { include: { principal: true } } },
  });
  if (!row || row.expiresAt < new Date() || row.apiKey.revokedAt || row.apiKey.principal.disabledAt) return null;
  await markUsed(db, row.apiKey);
  const p = row.apiKey.principal;
  return { principalId: p.id, kind: p.kind, name: p.name, apiKeyId: row.apiKeyId };
}

export async function endSession(db: Db, token: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

export async function revokeApiKey(db: Db, apiKeyId: string): Promise<void> {
  await db.apiKey.update({ where: { id: apiKeyId }, data: { revokedAt: new Date() } });
}
