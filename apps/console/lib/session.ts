// Session endpoints beside /graphql (docs/contract-issue-2.md): the cookie is HttpOnly, so the
// console never sees it; it only asks the server to set or clear it (who is signed in: viewer.ts).
export class SignInError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'SignInError';
    this.code = code;
  }
}

// Signing out is the user's own choice of where to go (/sign-in, with nothing to come back to). A query
// in flight when the session ends answers 401 too; it must not turn that into /sign-in?next=… .
let signingOut = false;

export async function signIn(apiKey: string): Promise<void> {
  const response = await fetch('/auth/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey }),
  });
  if (response.status === 204 || response.ok) {
    signingOut = false;
    return;
  }
  const body = (await response.json().catch(() => null)) as { code?: string; message?: string } | null;
  if (response.status === 401) {
    throw new SignInError(body?.code ?? 'UNAUTHENTICATED', body?.message ?? 'This API key was not accepted.');
  }
  throw new SignInError(body?.code ?? `HTTP_${response.status}`, body?.message ?? `Sign-in failed (HTTP ${response.status}).`);
}

export async function signOut(): Promise<void> {
  signingOut = true;
  try {
    const response = await fetch('/auth/session', { method: 'DELETE', credentials: 'same-origin' });
    if (!response.ok) throw new Error(`Sign-out failed (HTTP ${response.status}).`);
  } catch (error) {
    signingOut = false;
    throw error;
  }
}

/** Where to go after signing in: only a path of this console (never another origin, never //host). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.startsWith('/sign-in')) {
    return '/namespaces';
  }
  return next;
}

/** /sign-in, remembering the page asked for (the default landing page needs no reminder). */
export function signInHref(path: string): string {
  const next = safeNext(path);
  return next === '/namespaces' || next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`;
}

/**
 * Where a query or mutation that found no session sends the user: nowhere when already on /sign-in,
 * plain /sign-in while the user is signing out, else /sign-in remembering the page.
 */
export function unauthenticatedRedirect(location: { pathname: string; search: string }): string | null {
  if (location.pathname === '/sign-in') return null;
  return signingOut ? '/sign-in' : signInHref(location.pathname + location.search);
}
