import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

// R6: what identifies the request being served, for every log line written while serving it
// (log.ts reads it), the access log line and the response's X-Request-Id.

export interface RequestContext {
  requestId: string;
  /** Set once the GraphQL document is parsed (a GraphQL Name, or absent for anonymous operations). */
  operationName?: string;
  /** Set once the caller is authenticated. */
  principalId?: string;
  /** R6: the request's trace, when tracing is on (log lines carry it, to find the trace). */
  traceId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequest<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

// A caller's id is kept only when it is a plain token: it is echoed in a header and written to
// logs, so no spaces, quotes, control characters or anything long.
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a plain token (a proxy's or a client's), else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && CALLER_REQUEST_ID.test(value) ? value : randomUUID();
}
