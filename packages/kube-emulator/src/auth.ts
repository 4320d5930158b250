// Authentication: who a request's bearer token is, as a real kube-apiserver answers it. The
// kubeconfig's admin token is a cluster administrator (group system:masters, like kubeadm's admin
// credentials); a ServiceAccount token from the TokenRequest API (tokens.ts) is that service
// account, with the groups and uid the apiserver's serviceaccount authenticator gives it. Anything
// else, and every expired or revoked token, is 401 Unauthorized.
//
// What the user may do is RBAC's to decide (rbac-authorizer.ts, E9); a request may act as another
// user (impersonation.ts). The users also reach admission webhooks (admission.ts) as
// request.userInfo.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ServiceAccountTokens } from './tokens.ts';

/** authentication.k8s.io/v1 UserInfo, as AdmissionReview requests carry it. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ADMIN_USERNAME = 'kubernetes-admin';

export const ADMIN_USER: UserInfo = { username: ADMIN_USERNAME, groups: ['system:masters', 'system:authenticated'] };

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The user a ServiceAccount token authenticates as (k8s.io/apiserver/pkg/authentication/serviceaccount). */
export function serviceAccountUser(namespace: string, name: string, uid: string, tokenId?: string): UserInfo {
  return {
    username: `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`,
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    ...(tokenId ? { extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${tokenId}`] } } : {}),
  };
}

export function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
  const token = match?.[1]?.trim();
  return token ? token : undefined;
}

export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface AuthenticatorOptions {
  adminToken: string;
  serviceAccountTokens: ServiceAccountTokens;
  /** The live ServiceAccount's uid, or undefined when it no longer exists (its tokens die with it). */
  serviceAccountUid: (namespace: string, name: string) => string | undefined;
}

export type Authenticator = (request: IncomingMessage) => UserInfo | undefined;

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  return (request) => {
    const token = bearerToken(request);
    if (token === undefined) return undefined;
    if (sameToken(token, options.adminToken)) return ADMIN_USER;
    const claims = options.serviceAccountTokens.verify(token);
    if (!claims) return undefined;
    // A token outlives nothing it names: a deleted (or deleted and recreated) ServiceAccount's
    // tokens stop authenticating, as the apiserver's legacy-free validator checks the uid.
    if (options.serviceAccountUid(claims.namespace, claims.name) !== claims.uid) return undefined;
    return serviceAccountUser(claims.namespace, claims.name, claims.uid, claims.tokenId);
  };
}
