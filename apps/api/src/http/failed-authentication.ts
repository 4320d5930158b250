import type { ServerResponse } from 'node:http';
import { auditAnonymousRefusal } from '../services/audit.ts';
import type { Deps } from '../services/deps.ts';
import type { Logger } from '../log.ts';
import { json } from './respond.ts';
import type { AuthThrottle } from './throttle.ts';

export const TOO_MANY_FAILURES = 'TOO_MANY_FAILED_AUTHENTICATIONS';

export function tooManyFailures(wait: number): string {
  return `Too many failed authentications from this client or for this key; retry after ${wait} seconds.`;
}

/**
 * P5: a failed authentication spends the client's budget (and its key prefix's) and is audited
 * coalesced, per address and minute. Answers how long to wait (0: not throttled).
 */
export type FailedAuthentication = (clientAddress: string, action: string, keyPrefix: string | null) => Promise<number>;

export function failedAuthentications(deps: Deps, throttle: AuthThrottle, log: Logger): FailedAuthentication {
  return async (clientAddress, action, keyPrefix) => {
    const wait = throttle.fail({ clientAddress, keyPrefix });
    await auditAnonymousRefusal(deps.db, { clientAddress, action, reason: wait > 0 ? 'THROTTLED' : 'UNAUTHENTICATED' });
    if (wait > 0) log.warn('failed authentication throttled', { clientAddress, keyPrefix, retryAfterSeconds: wait });
    return wait;
  };
}

/** The 429 a throttled client gets outside GraphQL, with when to retry. */
export function answerThrottled(res: ServerResponse, wait: number): void {
  json(res, 429, { code: TOO_MANY_FAILURES, message: tooManyFailures(wait) }, { 'retry-after': String(wait) });
}
