import { parseCookie, stringifySetCookie } from 'cookie';
import { decodePercent } from './request-target.ts';

export const SESSION_COOKIE = 'occ_session';

/**
 * The named cookie's value, or null when it is absent or not valid percent-encoding. A same-site
 * page can plant any cookie for this host, so a malformed one must read as "no session", never
 * as an exception (P4). (`cookie` skips a value its decoder refuses and takes a later cookie of
 * the same name, if any.)
 */
export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  return parseCookie(header, { decode: (value) => decodePercent(value) ?? undefined })[name] ?? null;
}

export function sessionCookie(token: string, expires: Date, secure: boolean): string {
  return stringifySetCookie({ name: SESSION_COOKIE, value: token, httpOnly: true, sameSite: 'strict', path: '/', expires, secure }, { encode: encodeURIComponent });
}

export function clearedSessionCookie(): string {
  return stringifySetCookie({ name: SESSION_COOKIE, value: '', httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 });
}
