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

export async function signIn(apiKey: string): Promise<void> {
  const response = await fetch('/auth/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey }),
  });
  if (response.status === 204 || response.ok) return;
  const body = (await response.json().catch(() => null)) as { code?: string; message?: string } | null;
  if (response.status === 401) {
    throw new SignInError(body?.code ?? 'UNAUTHENTICATED', body?.message ?? 'This API key was not accepted.');
  }
  throw new SignInError(body?.code ?? `HTTP_${response.status}`, body?.message ?? `Sign-in failed (HTTP ${response.status}).`);
}

export async function signOut(): Promise<void> {
  const response = await fetch('/auth/session', { method: 'DELETE', credentials: 'same-origin' });
  if (!response.ok) throw new Error(`Sign-out failed (HTTP ${response.status}).`);
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
