import { decodePercent } from './request-target.ts';

export const SESSION_COOKIE = 'occ_session';

/**
 * The named cookie's value, or null when it is absent or not valid percent-encoding. A same-site
 * page can plant any cookie for this host, so a malformed one must read as "no session", never
 * as an exception (P4).
 */
export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodePercent(v.join('='));
  }
  return null;
}

export function sessionCookie(token: string, expires: Date, secure: boolean): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/; Expires=${expires.toUTCString()}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}
