// A small structured logger: one JSON object per line. Callers pass fields explicitly; nothing
// logs request bodies or variables, so secret values cannot reach a log line (rule S3).
import { DomainError } from '@occ/domain/errors';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(write: (line: string) => void, level: Level = 'info', base: Record<string, unknown> = {}): Logger {
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }, errorReplacer) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(write, level, { ...base, ...fields }),
  };
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

// JSON.stringify calls a value's toJSON before the replacer sees it, and GraphQLError has one that
// returns its message: the holder's own value is checked first.
function errorReplacer(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Error) return serializeError(original);
  if (value instanceof Error) return serializeError(value);
  return value;
}
