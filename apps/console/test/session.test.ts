import { afterEach, describe, expect, it, vi } from 'vitest';
import { safeNext, signIn, signOut, unauthenticatedRedirect } from '../lib/session';

// Where a request that found no session sends the user. The browser side of the same race (a query
// answered 401 after "Sign out") is e2e/tests/sign-out.spec.ts.
function answer(status: number) {
  vi.stubGlobal('fetch', vi.fn(async () => new Response(status === 204 ? null : '{}', { status })));
}
const pages = [
  { pathname: '/namespaces', search: '' },
  { pathname: '/secrets', search: '?namespace=ns_1' },
  { pathname: '/configurations', search: '?namespace=ns_1&id=cfg_2' },
  { pathname: '/audit', search: '' },
];

afterEach(async () => {
  answer(204);
  await signIn('key'); // every test starts signed in, not signing out
  vi.unstubAllGlobals();
});

describe('the redirect when a request finds no session', () => {
  it('remembers the page (except the landing page) while signed in', () => {
    expect(pages.map(unauthenticatedRedirect)).toEqual([
      '/sign-in',
      '/sign-in?next=%2Fsecrets%3Fnamespace%3Dns_1',
      '/sign-in?next=%2Fconfigurations%3Fnamespace%3Dns_1%26id%3Dcfg_2',
      '/sign-in?next=%2Faudit',
    ]);
  });

  it('is plain /sign-in from every page once the user has signed out, and nothing on /sign-in itself', async () => {
    answer(204);
    await signOut();
    expect(pages.map(unauthenticatedRedirect)).toEqual(pages.map(() => '/sign-in'));
    expect(unauthenticatedRedirect({ pathname: '/sign-in', search: '?next=%2Faudit' })).toBeNull();
  });

  it('is plain /sign-in while the sign-out request is still in flight', async () => {
    let release: (response: Response) => void = () => undefined;
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>((resolve) => (release = resolve))));
    const pending = signOut();
    expect(unauthenticatedRedirect(pages[1]!)).toBe('/sign-in');
    release(new Response(null, { status: 204 }));
    await pending;
  });

  it.each([500, 403])('remembers the page again when the sign-out failed (HTTP %i): the session may still be there', async (status) => {
    answer(status);
    await expect(signOut()).rejects.toThrow(`HTTP ${status}`);
    expect(unauthenticatedRedirect(pages[1]!)).toBe('/sign-in?next=%2Fsecrets%3Fnamespace%3Dns_1');
  });

  it('remembers the page again when the sign-out never reached the server', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(signOut()).rejects.toThrow('Failed to fetch');
    expect(unauthenticatedRedirect(pages[1]!)).toBe('/sign-in?next=%2Fsecrets%3Fnamespace%3Dns_1');
  });

  it('remembers the page again after the next sign-in', async () => {
    answer(204);
    await signOut();
    await signIn('key');
    expect(unauthenticatedRedirect(pages[3]!)).toBe('/sign-in?next=%2Faudit');
  });

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example/x', '/sign-in?next=/audit', '', null])('never leaves the console after sign-in: safeNext(%j) is the landing page', (next) => {
    expect(safeNext(next)).toBe('/namespaces');
  });
});
