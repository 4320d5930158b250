import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

// R6: /metrics is served on a listener of its own (OCC_METRICS_PORT), not on the API's port. The
// API's port is what a Service and an Ingress publish to browsers and clients; metrics name
// operations, rates and the queue's state, which are for the cluster's Prometheus only. On their
// own port they are not routed by the Ingress, a NetworkPolicy can admit just the monitoring
// namespace, and Prometheus scrapes them without an API key.

export function listenMetrics(registry: Registry, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'no-store');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Only /metrics is served here.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected.\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
