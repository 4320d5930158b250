import type { IncomingMessage } from 'node:http';

// P3: a request body is counted on the stream, chunked or not, and reading stops at the limit;
// Content-Length is only an early refusal, never trusted as the size.

export class PayloadTooLargeError extends Error {
  readonly status = 413;
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes.`);
  }
}

/** The client went away before its body ended: nobody is left to answer. */
export class RequestAbortedError extends Error {
  readonly status = 400;
  constructor() {
    super('The request ended before its body did.');
  }
}

/**
 * Reads the whole body, holding at most `limit` bytes. Past the limit it stops reading (the stream
 * is paused, not drained) and rejects with PayloadTooLargeError; the caller answers 413 and the
 * connection is closed (server.ts), so the rest is never read.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => {
      cleanup();
      reject(new RequestAbortedError());
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(new RequestAbortedError());
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}
