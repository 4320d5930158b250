// Session endpoints beside /graphql (docs/contract-issue-2.md): the cookie is HttpOnly, so the
// console never sees it; it only asks the server to set, read or clear it.
import { queryOptions } from '@tanstack/react-query';

export type Principal = { id: string; kind: 'HUMAN' | 'SERVICE'; name: string };

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

/** The signed-in principal, or null. A 401 here is an answer, not an error. */
async function fetchSession(): Promise<Principal | null> {
  const response = await fetch('/auth/session', { credentials: 'same-origin' });
  if (response.status === 401) return null;
  if (!response.ok) throw new Error(`Session check failed (HTTP ${response.status}).`);
  const body = (await response.json()) as { principal: Principal };
  return body.principal;
}

export const sessionKeys = { all: ['session'] as const };

export function sessionQueryOptions() {
  return queryOptions({ queryKey: sessionKeys.all, queryFn: fetchSession, staleTime: 60_000 });
}
