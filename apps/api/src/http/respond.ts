import type { ServerResponse } from 'node:http';

// How the HTTP routes answer outside GraphQL's own responses: one JSON shape, never cached.

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/** /graphql answers its own refusals in GraphQL's response shape, so clients read one shape there. */
export function graphqlRefusal(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { errors: [{ message, extensions: { code } }] });
}
