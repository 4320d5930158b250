// E9: user impersonation (`kubectl --as`, `--as-group`, `--as-uid`), as k8s.io/apiserver's
// WithImpersonation filter does it: each Impersonate-* header is a request the authenticated user
// must be allowed (verb `impersonate` on users, groups, serviceaccounts, uids or userextras), and the
// request then runs as the user it names, with its groups (a service account's own when none are
// given) plus system:authenticated. Without this, every `--as` ran as the caller: `kubectl auth
// can-i --as=system:serviceaccount:…` answered for an administrator (found by the kubectl
// differential test against the lane's real server).

import type { IncomingMessage } from 'node:http';
import { SERVICE_ACCOUNT_PREFIX, type UserInfo } from './auth.ts';
import { StatusError } from './errors.ts';
import { forbiddenError, type AuthorizationAttributes, type Authorizer } from './rbac-authorizer.ts';

const AUTHENTICATED = 'system:authenticated';
const EXTRA_PREFIX = 'impersonate-extra-';

function headerValues(request: IncomingMessage, name: string): string[] {
  const raw = request.headers[name];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : raw.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * An Impersonate-Extra-* header's key: lower case, percent-decoded; a malformed encoding (`%zz`, a
 * trailing `%`) is kept as sent, as the real filter's unescapeExtraKey does, not refused.
 */
function extraKey(encoded: string): string {
  const key = encoded.toLowerCase();
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/**
 * The user a request acts as: the authenticated one, or the one its Impersonate-* headers name
 * once each of them is allowed. Throws 403 as the real filter answers a refused impersonation,
 * and 500 for extras, groups or a uid without a user (the real filter's InternalError).
 */
export function actingUser(request: IncomingMessage, user: UserInfo, authorizer: Authorizer): UserInfo {
  const username = headerValues(request, 'impersonate-user')[0];
  const groups = headerValues(request, 'impersonate-group');
  const uid = headerValues(request, 'impersonate-uid')[0];
  const extra: Record<string, string[]> = {};
  for (const [name] of Object.entries(request.headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    extra[extraKey(name.slice(EXTRA_PREFIX.length))] = headerValues(request, name);
  }
  if (username === undefined) {
    if (groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0) {
      throw new StatusError(500, 'InternalError', 'Internal error occurred: requested impersonation of groups, a uid or extra fields without impersonating a user');
    }
    return user;
  }

  const ask = (resource: string, name: string, namespace = '', apiGroup = '', subresource = ''): void => {
    const attributes: AuthorizationAttributes = { user, verb: 'impersonate', resourceRequest: true, path: '', apiGroup, apiVersion: '', namespace, resource, subresource, name };
    const decision = authorizer.authorize(attributes);
    if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
  };

  let actingGroups = [...groups];
  if (username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace = '', name = ''] = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    ask('serviceaccounts', name, namespace);
    if (groups.length === 0) actingGroups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
  } else {
    ask('users', username);
  }
  for (const group of groups) ask('groups', group);
  if (uid !== undefined) ask('uids', uid, '', 'authentication.k8s.io');
  for (const [key, values] of Object.entries(extra)) for (const value of values) ask('userextras', value, '', 'authentication.k8s.io', key);

  if (username !== 'system:anonymous' && !actingGroups.includes(AUTHENTICATED)) actingGroups.push(AUTHENTICATED);
  return {
    username,
    groups: actingGroups,
    ...(uid !== undefined ? { uid } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
