import type { Db } from '../db/client.ts';
import { sql, sqlRows } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { generateSessionToken, hashToken } from './api-keys.ts';
import { remembered, type KeyRow } from './auth-cache.ts';
import type { Actor } from './deps.ts';

const SESSION_HOURS = 12;
/** lastUsedAt is for people reviewing keys, so it is written at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Writes lastUsedAt when it is older than the resolution; a kept row (auth-cache.ts) moves with it. */
async function markUsed(db: Db, row: KeyRow): Promise<void> {
  const now = Date.now();
  if (row.lastUsedAt && now - row.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  await db.apiKey.update({ where: { id: row.keyId }, data: { lastUsedAt: new Date(now) } });
  row.lastUsedAt = new Date(now);
}

/**
 * Every request authenticates, so the key and its principal are read in one statement, and only
 * keys and principals still in force are found at all. A process with an authentication cache
 * (auth-cache.ts) reads a key or session once, until any key, session or principal changes.
 */
function keyInForce(db: Db, where: { keyHash: string } | { sessionHash: string; now: Date }): Promise<KeyRow | null> {
  const read = () => readKeyInForce(db, where);
  return 'keyHash' in where ? remembered(db, 'key', where.keyHash, read) : remembered(db, 'session', where.sessionHash, read);
}

async function readKeyInForce(db: Db, where: { keyHash: string } | { sessionHash: string; now: Date }): Promise<KeyRow | null> {
  const rows =
    'keyHash' in where
      ? await sqlRows<KeyRow>(
          db,
          sql`SELECT k.id AS "keyId", p.id AS "principalId", p.kind::text AS kind, p.name, k."lastUsedAt"
              FROM "public"."ApiKey" k JOIN "public"."Principal" p ON p.id = k."principalId"
              WHERE k.hash = ${where.keyHash} AND k."revokedAt" IS NULL AND p."disabledAt" IS NULL`,
        )
      : await sqlRows<KeyRow>(
          db,
          sql`SELECT k.id AS "keyId", p.id AS "principalId", p.kind::text AS kind, p.name, k."lastUsedAt", s."expiresAt"
              FROM "public"."Session" s JOIN "public"."ApiKey" k ON k.id = s."apiKeyId" JOIN "public"."Principal" p ON p.id = k."principalId"
              WHERE s."tokenHash" = ${where.sessionHash} AND s."expiresAt" >= ${where.now}::timestamp(3) AND k."revokedAt" IS NULL AND p."disabledAt" IS NULL`,
        );
  return rows[0] ?? null;
}

/**
 * The actor of one request. Its memo (bindings read once, access.ts) lives as long as this object,
 * and these functions make a new one for every request, so authorization stays a per-request
 * decision; code that acts outside a request builds actors without a memo and always reads afresh.
 */
function requestActor(row: KeyRow): Actor {
  return { principalId: row.principalId, kind: row.kind, name: row.name, apiKeyId: row.keyId, memo: {} };
}

/** A missing, unknown or revoked key, or a disabled principal, authenticates nobody. */
export async function authenticateApiKey(db: Db, key: string): Promise<Actor | null> {
  if (!key.startsWith('occ_') || key.length > 200) return null;
  const row = await keyInForce(db, { keyHash: hashToken(key) });
  if (!row) return null;
  await markUsed(db, row);
  return requestActor(row);
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
  const row = await keyInForce(db, { sessionHash: hashToken(token), now: new Date() });
  if (!row) return null;
  await markUsed(db, row);
  return requestActor(row);
}

export async function endSession(db: Db, token: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

export async function revokeApiKey(db: Db, apiKeyId: string): Promise<void> {
  await db.apiKey.update({ where: { id: apiKeyId }, data: { revokedAt: new Date() } });
}
