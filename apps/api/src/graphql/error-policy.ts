import { createHash } from 'node:crypto';
import { PothosValidationError } from '@pothos/core';
import { GraphQLError, getOperationAST, type DocumentNode, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import { maskError as yogaMaskError, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { Logger } from '../log.ts';
import { operationLabel } from '../observability/operation-names.ts';
import { fieldPath } from './field-path.ts';

// Rule P1 for every answer and every log line, whatever produced the error:
// - every error carries `extensions.code`;
// - an error without a code (graphql-js' execution) may quote the input (`Argument "input" has
//   invalid value …`), and so may yoga's checks of the request before its document is parsed
//   (`Unexpected parameter "…"`, coded or not): their messages are replaced by a fixed one unless
//   they are one of yoga's fixed sentences;
// - `extensions.originalError` keeps its class only: yoga fills in JSON.parse's message, which quotes the body;
// - a request with errors is logged as its operation name, a sha256 of its document, and each
//   error's class, code and path (by field names: a response key may be an alias the client chose);
//   never the document, its variables, or an error's text.

const FIXED_MESSAGES: ReadonlySet<string> = new Set([
  'GraphQL only supports GET and POST requests.',
  'Can only perform a mutation operation from a POST request.',
  'Invalid "params" in the request body',
  'Must provide query string.',
  'Batching is not supported.',
  'POST body sent invalid JSON.',
  'Could not determine what operation to execute.',
]);

const MESSAGE_FOR_CODE: Record<string, string> = {
  BAD_REQUEST: 'The request is not a valid GraphQL request.',
  METHOD_NOT_ALLOWED: 'This HTTP method is not allowed for this request.',
  NOT_ACCEPTABLE: 'The server cannot answer in a media type the request accepts.',
  UNSUPPORTED_MEDIA_TYPE: 'Send GraphQL as JSON (content-type: application/json).',
  INTERNAL_SERVER_ERROR: 'Unexpected error.',
};

const DROPPED_EXTENSIONS = new Set(['originalError', 'stacktrace', 'exception']);

function httpStatus(error: GraphQLError): number | undefined {
  const http = error.extensions?.http as { status?: unknown } | undefined;
  return typeof http?.status === 'number' ? http.status : undefined;
}

function codeFor(error: GraphQLError): string {
  const status = httpStatus(error);
  if (status === 405) return 'METHOD_NOT_ALLOWED';
  if (status === 406) return 'NOT_ACCEPTABLE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status !== undefined && status >= 400 && status < 500) return 'BAD_REQUEST';
  return 'INTERNAL_SERVER_ERROR';
}

const originalClass = new WeakMap<object, string>();

function classOf(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const recorded = originalClass.get(error);
    if (recorded) return recorded;
    const original = (error as { originalError?: unknown }).originalError;
    if (original instanceof Error) return classOf(original);
    return (error as object).constructor?.name ?? 'Object';
  }
  return typeof error;
}

/**
 * yoga's masking, remembering the class of what was masked for the log line. Pothos refuses a bad
 * cursor, page size or global id with a PothosValidationError that quotes it: that is the client's
 * input, so it answers BAD_USER_INPUT, with a sentence of ours.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  if (error instanceof GraphQLError && error.originalError instanceof PothosValidationError) {
    const refused = new GraphQLError('An argument is not valid here (a page size, cursor or id).', {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: 'BAD_USER_INPUT' },
    });
    originalClass.set(refused, 'PothosValidationError');
    return refused;
  }
  const masked = yogaMaskError(error, message, isDev);
  if (masked !== error && masked !== null && typeof masked === 'object') originalClass.set(masked, classOf(error));
  return masked;
}

export function safeError(error: unknown, beforeParse = false): GraphQLError {
  if (!(error instanceof GraphQLError)) {
    const masked = new GraphQLError(MESSAGE_FOR_CODE.INTERNAL_SERVER_ERROR!, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    originalClass.set(masked, classOf(error));
    return masked;
  }
  const extensions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error.extensions ?? {})) if (!DROPPED_EXTENSIONS.has(key)) extensions[key] = value;
  // Its class only: yoga reads the key's presence to answer 400 rather than 200 for a body that is not JSON.
  const original = error.extensions?.originalError as { name?: unknown } | undefined;
  if (original) extensions.originalError = { name: typeof original.name === 'string' && /^\w{1,64}$/.test(original.name) ? original.name : 'Error' };
  let message = error.message;
  if (typeof extensions.code !== 'string' || beforeParse) {
    if (typeof extensions.code !== 'string') extensions.code = codeFor(error);
    if (!FIXED_MESSAGES.has(message)) message = MESSAGE_FOR_CODE[extensions.code as string] ?? MESSAGE_FOR_CODE.BAD_REQUEST!;
  }
  const safe = new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions });
  originalClass.set(safe, classOf(error));
  return safe;
}

export function documentHash(query: string): string {
  return createHash('sha256').update(query).digest('hex');
}

function isExecutionResult(value: unknown): value is ExecutionResult {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'errors' in value;
}

interface RequestFacts {
  query?: unknown;
  operationName?: string;
  /** Errors of a request that never reached the parser are yoga's checks of the request itself. */
  parsed?: boolean;
  document?: DocumentNode;
  operation?: OperationDefinitionNode;
}

function loggedPath(error: GraphQLError, known: RequestFacts | undefined): Array<string | number> | null {
  if (!error.path) return null;
  if (!known?.document || !known.operation) return error.path.map((key) => (typeof key === 'number' ? key : '?'));
  return fieldPath(known.document, known.operation, error.path);
}

export function useErrorPolicy(logger: Logger): Plugin {
  const facts = new WeakMap<Request, RequestFacts>();
  const log = logger.child({ component: 'graphql' });

  const answer = (errors: ReadonlyArray<GraphQLError>, request: Request): GraphQLError[] => {
    const known = facts.get(request);
    const safe = errors.map((e) => safeError(e, !known?.parsed));
    const internal = safe.some((e) => e.extensions.code === 'INTERNAL_SERVER_ERROR');
    log[internal ? 'error' : 'info']('graphql request answered with errors', {
      operationName: known?.operationName ?? null,
      documentHash: typeof known?.query === 'string' ? documentHash(known.query) : null,
      errors: safe.map((e) => ({ class: classOf(e), code: e.extensions.code, path: loggedPath(e, known) })),
    });
    return safe;
  };

  return {
    onRequestParse({ requestParser, endResponse, fetchAPI }) {
      // yoga answers an unknown content type with an empty 415; give it a body with a code.
      if (!requestParser) {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ errors: [{ message: MESSAGE_FOR_CODE.UNSUPPORTED_MEDIA_TYPE, extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } }] }), {
            status: 415,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }),
        );
      }
    },
    onParams({ params, request }) {
      facts.set(request, { query: params.query });
    },
    onParse({ context }) {
      const { request, params } = context as { request?: Request; params?: { operationName?: string } };
      const known = request ? facts.get(request) : undefined;
      if (known) known.parsed = true;
      return ({ result }) => {
        if (!known || !result || result instanceof Error) return;
        const operation = getOperationAST(result as DocumentNode, params?.operationName) ?? undefined;
        known.document = result as DocumentNode;
        known.operation = operation;
        const name = operation?.name?.value;
        if (name) known.operationName = operationLabel(name); // P1: a name the client chose is not logged
      };
    },
    onResultProcess({ result, setResult, request }) {
      if (Array.isArray(result)) {
        setResult(result.map((r) => (isExecutionResult(r) && r.errors?.length ? { ...r, errors: answer(r.errors, request) } : r)));
      } else if (isExecutionResult(result) && result.errors?.length) {
        setResult({ ...result, errors: answer(result.errors, request) });
      }
    },
  };
}

/**
 * yoga's own log calls go through here. Its debug messages are fixed sentences; anything else it
 * hands over (errors, objects) is logged by kind only, through log.ts' error serializer.
 */
export function yogaLogger(logger: Logger): YogaLogger {
  const log = logger.child({ component: 'graphql' });
  const describe = (args: unknown[]) => ({ errors: args.filter((a) => a instanceof Error), kinds: args.map((a) => classOf(a)) });
  return {
    debug: (...args: unknown[]) => (args.length === 1 && typeof args[0] === 'string' ? log.debug(`yoga: ${args[0]}`) : log.debug('yoga', describe(args))),
    info: (...args: unknown[]) => log.info('yoga', describe(args)),
    warn: (...args: unknown[]) => log.warn('yoga', describe(args)),
    error: (...args: unknown[]) => log.error('yoga: unexpected error', describe(args)),
  };
}
