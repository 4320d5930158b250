import type { AddressInfo, Server } from 'node:net';
import { readEnvOrExit } from './config.ts';
import { startRuntimeOrExit } from './refusals.ts';
import { createLogger } from '../log.ts';
import { listenHealth } from '../observability/health-server.ts';
import { listenMetrics } from '../observability/metrics-server.ts';

// The standalone worker (worker.ts loads this after its checks): the runtime (the work queue,
// leader election and what runs on the leader) without the API's HTTP server. Several may run at
// once: each work item is claimed by one of them under a lease. Production only: with the
// embedded defaults each process would have a database of its own.
// R5, R6, R7: its pod is probed and scraped like the API's: /healthz and /readyz on OCC_PORT
// (observability/health-server.ts; nothing else is served there), /metrics on OCC_METRICS_PORT.
const env = readEnvOrExit();
const logger = createLogger((line) => process.stderr.write(line), env.logLevel);
if (!env.databaseUrl || !env.kubeconfig && !env.inCluster) {
  logger.error('the worker needs DATABASE_URL and KUBECONFIG (or a pod) shared with the API: the embedded ones belong to `npm start`');
  process.exit(1);
}
const runtime = await startRuntimeOrExit({ env, logger });
const health = await listenHealth(
  { database: () => runtime.db.$queryRaw`SELECT 1`, kubernetes: () => runtime.deps.namespaceDriver.ping() },
  env.host,
  env.port,
);
const metricsServer = env.metricsPort === null ? null : await listenMetrics(runtime.metrics.registry, env.metricsHost, env.metricsPort);
const portOf = (server: Server) => (server.address() as AddressInfo).port;
logger.info('worker running', {
  owner: runtime.worker.owner,
  health: { host: env.host, port: portOf(health.server) },
  ...(metricsServer ? { metrics: { host: env.metricsHost, port: portOf(metricsServer) } } : {}),
});

let stopping = false;
async function stop(signal: string) {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info('stopping: readiness fails, the worker finishes its current step and hands its item back', { signal });
  health.drain();
  await runtime.close();
  for (const server of metricsServer ? [health.server, metricsServer] : [health.server]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
