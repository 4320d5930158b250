// Structured logs through pino: one JSON object per line, with the request's id, operation name
// and principal id on every line written while serving a request (R6). Callers pass fields
// explicitly; nothing logs request bodies or variables, so secret values cannot reach a log line
// (rule S3). Errors anywhere in the fields are replaced by serializeError's form before pino sees
// them (pino would call an error's toJSON, and GraphQLError's returns its message).
import pino from 'pino';
import { DomainError } from '@occ/domain/errors';
import { currentRequest } from './observability/request-context.ts';

export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function requestFields(): Record<string, string> {
  const request = currentRequest();
  if (!request) return {};
  const fields: Record<string, string> = { requestId: request.requestId };
  if (request.operationName) fields.operationName = request.operationName;
  if (request.principalId) fields.principalId = request.principalId;
  if (request.traceId) fields.traceId = request.traceId;
  return fields;
}

/** `write` receives each line (with its newline): stderr in the product, an array in tests. */
export function createLogger(write: (line: string) => void, level: Level = 'info', base: Record<string, unknown> = {}): Logger {
  const root = pino(
    {
      level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: requestFields,
    },
    { write },
  );
  return wrap(Object.keys(base).length ? root.child(safeFields(base)) : root);
}

function wrap(logger: pino.Logger): Logger {
  const at = (level: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (logger.isLevelEnabled(level)) logger[level](fields ? safeFields(fields) : {}, msg);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (fields) => wrap(logger.child(safeFields(fields))) };
}

/** The fields with every Error, at any depth, in its serialized form (P1); cycles and depth bounded. */
function safeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const seen = new WeakSet<object>();
  const walk = (value: unknown, depth: number): unknown => {
    if (value instanceof Error) return serializeError(value);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return '[circular]';
    if (depth > 8) return '[depth]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
    if (value instanceof Date) return value;
    // Other objects as JSON would see them (their own enumerable fields), with errors replaced.
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, depth + 1);
    return out;
  };
  return walk(fields, 0) as Record<string, unknown>;
}

// Rule P1: an error's message may quote input. Prisma prints the invocation with its arguments,
// client-node carries the response body, JSON.parse quotes the text it failed on, graphql-js quotes
// values. So an error is logged by what identifies it without quoting anything: its class, its
// code (Prisma's P2002, a SQLSTATE, ECONNREFUSED, an HTTP status, a GraphQL extensions.code),
// its response path, the stack frames (code locations only: the first stack line, which repeats
// the message, is dropped) and its cause, the same way. A DomainError's message is kept: the
// domain builds it from fixed text and names, never from a value (packages/domain/src/errors.ts).
const IDENTIFIER = /^[A-Za-z0-9_.:-]{1,64}$/;

function codeOf(error: Error): string | number | undefined {
  const code = (error as { code?: unknown }).code ?? (error as { extensions?: { code?: unknown } }).extensions?.code;
  if (typeof code === 'number') return code;
  return typeof code === 'string' && IDENTIFIER.test(code) ? code : undefined;
}

/** The stack without its head, which repeats the message (and a message may hold lines that look like frames). */
function stackFrames(error: Error): string[] {
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const head = error.message ? `${error.name}: ${error.message}` : error.name;
  if (!stack.startsWith(head)) return [];
  return stack
    .slice(head.length)
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 8)
    .map((line) => line.trim());
}

export function serializeError(error: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: IDENTIFIER.test(error.name) ? error.name : error.constructor.name };
  const code = codeOf(error);
  if (code !== undefined) out.code = code;
  if (error instanceof DomainError) out.message = error.message;
  const path = (error as { path?: unknown }).path;
  if (Array.isArray(path) && path.every((p) => typeof p === 'number' || (typeof p === 'string' && IDENTIFIER.test(p)))) out.path = path;
  const frames = stackFrames(error);
  if (frames.length) out.frames = frames;
  const cause = (error as { originalError?: unknown }).originalError ?? error.cause;
  if (cause instanceof Error && depth < 3) out.cause = serializeError(cause, depth + 1);
  return out;
}

/**
 * One line of text for an error that may be stored or shown (a work item's lastError): the same
 * rule as the log's serializer, so nothing the error quotes from input comes along.
 */
export function safeErrorText(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const { name, code, message } = serializeError(error) as { name: string; code?: string | number; message?: string };
  return [name, code, message].filter((part) => part !== undefined).join(': ');
}
