import { createHash, randomBytes } from 'node:crypto';

// API keys and session tokens are 256-bit random strings; only their SHA-256 is stored (a slow
// hash buys nothing against keys of that entropy, and lookups stay indexed).

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `occ_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: apiKeyPrefix(key), hash: hashToken(key) };
}

/** The part of a key that is listed and logged (`ApiKey.prefix`): `occ_` and 8 characters. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 12);
}

export function generateSessionToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
