import { createServer, type Server, type ServerResponse } from 'node:http';

// R5, R6, R7: the standalone worker's probes (cli/worker.ts). It serves no API, so its pod has
// nothing else a kubelet could ask: /healthz answers while the process's event loop does
// (liveness), /readyz runs the same checks as the API's (its database and its API server) and
// fails at once when stopping (readiness). Nothing else is served here, and no check's error text
// is returned (a connection error may name a host; the checks answer ok or unreachable).

export interface HealthServer {
  server: Server;
  /** From now on /readyz answers 503 (R5: the worker is stopping). */
  drain(): void;
}

export type ReadinessChecks = Record<string, () => Promise<unknown>>;

export async function listenHealth(checks: ReadinessChecks, host: string, port: number): Promise<HealthServer> {
  let draining = false;
  const json = (res: ServerResponse, status: number, body: unknown) =>
    void res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path !== '/readyz') return json(res, 404, { code: 'NOT_FOUND', message: 'Only /healthz and /readyz are served here.' });
    if (draining) return json(res, 503, { status: 'draining', checks: {} });
    void Promise.all(
      Object.entries(checks).map(async ([name, check]) => [name, await check().then(() => 'ok', () => 'unreachable')] as const),
    ).then((results) => {
      const ok = results.every(([, state]) => state === 'ok');
      json(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', checks: Object.fromEntries(results) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, drain: () => void (draining = true) };
}
