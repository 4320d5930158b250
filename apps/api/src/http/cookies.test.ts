import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';

describe('the session cookie (through the `cookie` library)', () => {
  it('round-trips a token, percent-encoded, with HttpOnly, SameSite=Strict, Path=/ and Secure only when asked', () => {
    const token = 'tok/+=;, en';
    const expires = new Date('2030-01-01T00:00:00Z');
    const set = sessionCookie(token, expires, false);
    const [pair, ...attributes] = set.split('; ');
    expect(pair).toBe(`${SESSION_COOKIE}=${encodeURIComponent(token)}`);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/', `Expires=${expires.toUTCString()}`]));
    expect(attributes).not.toContain('Secure');
    expect(sessionCookie(token, expires, true).split('; ')).toContain('Secure');
    expect(readCookie(`other=1; ${pair}; last=2`, SESSION_COOKIE)).toBe(token);
    expect(clearedSessionCookie().split('; ')).toEqual(expect.arrayContaining([`${SESSION_COOKIE}=`, 'Max-Age=0', 'HttpOnly', 'SameSite=Strict', 'Path=/']));
  });

  it('P4 an absent or malformed cookie reads as no session, never as an exception', () => {
    for (const header of [undefined, null, '', 'occ_session', '=', ';;;', 'other=1', 'occ_session=%E0%A4%A', 'occ_session=%', 'occ_session=%uD800']) {
      expect(readCookie(header, SESSION_COOKIE), String(header)).toBeNull();
    }
    // A planted malformed value does not hide a valid one of the same name.
    expect(readCookie('occ_session=%; occ_session=good', SESSION_COOKIE)).toBe('good');
    expect(readCookie('__proto__=x; constructor=y', SESSION_COOKIE)).toBeNull();
  });
});
