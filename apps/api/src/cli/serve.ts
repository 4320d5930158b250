import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { readEnvOrExit } from './config.ts';
import type { EmbeddedStart } from '../embedded.ts';
import { startRuntimeOrExit } from './refusals.ts';
import { PrincipalBudget } from '../graphql/principal-budget.ts';
import { createHttpApp, listen } from '../http/server.ts';
import { gracefulShutdown } from '../http/shutdown.ts';
import { createLogger } from '../log.ts';
import { listenMetrics } from '../observability/metrics-server.ts';

// `npm start`, loaded by start.ts once the Node check passed: runs the whole product on its
// embedded defaults, or on DATABASE_URL and KUBECONFIG. start.ts may have started the embedded
// parts before this module's imports loaded (embedded.ts); they are handed over here.
export async function serve(embedded?: Promise<EmbeddedStart>): Promise<void> {
  const env = readEnvOrExit();
  const logger = createLogger((line) => process.stderr.write(line), env.logLevel);

  // A refused start (the schema behind this build, state from a newer release) is one JSON log line.
  const runtime = await startRuntimeOrExit({ env, logger, ...(embedded ? { embedded } : {}) });
  const app = createHttpApp({
    deps: runtime.deps,
    production: env.production,
    consoleDir: env.consoleDir,
    allowedOrigins: env.allowedOrigins,
    requestBudget: new PrincipalBudget({ limits: env.requestBudget }),
    readiness: runtime.selfConfigWebhook ? { webhook: runtime.selfConfigWebhook.readiness } : {},
  });
  const server = await listen(app, env.host, env.port);
  const { port } = server.address() as AddressInfo;
  const urlOf = (host: string, p: number) => `http://${host.includes(':') ? `[${host}]` : host}:${p}`;
  const base = urlOf(env.host, port);
  // R6: Prometheus scrapes its own port (observability/metrics-server.ts says why).
  const metricsServer = env.metricsPort === null ? null : await listenMetrics(runtime.metrics.registry, env.metricsHost, env.metricsPort);

  // The installation's state marker: what later tools (npm run first-agent) check before acting.
  await writeFile(
    path.join(env.dataDir, 'state.json'),
    JSON.stringify(
      {
        // first-agent (Q1) checks all of these: the version of this shape, the installation whose
        // bootstrap principal the server must answer as, and the profile it can serve.
        version: 1,
        installationId: runtime.installation.installationId,
        bootstrapPrincipalId: runtime.installation.bootstrapPrincipalId,
        profile: { compute: 'kubernetes', sandbox: 'none' },
        consoleUrl: `${base}/`,
        graphqlUrl: `${base}/graphql`,
        embedded: runtime.embedded,
        pid: process.pid,
        startedAt: new Date().toISOString(),
      },
      null,
      2,
    ) + '\n',
  );

  const out = (line: string) => process.stdout.write(line + '\n');
  out('OpenClaw control plane is running.');
  out(`Console:  ${base}/`);
  out(`GraphQL:  ${base}/graphql`);
  if (metricsServer) out(`Metrics:  ${urlOf(env.metricsHost, (metricsServer.address() as AddressInfo).port)}/metrics`);
  out(`Database: ${runtime.embedded.postgres ? `embedded PGlite (${path.join(env.dataDir, 'pglite')})` : 'DATABASE_URL'}`);
  out(`Kubernetes: ${runtime.embedded.kubernetes ? `embedded API server (kubeconfig ${path.join(env.dataDir, 'kubeconfig.yaml')})` : 'KUBECONFIG'}`);
  if (runtime.installation.bootstrapKeyDeliveredTo) {
    out(`Bootstrap API key written to ${runtime.installation.bootstrapKeyDeliveredTo} (R3: never printed in production).`);
  } else if (runtime.installation.bootstrapApiKey) {
    out(`Bootstrap API key (shown once): ${runtime.installation.bootstrapApiKey}`);
    out('Keep it: it is stored only as a hash and will not be printed again.');
  }
  out('Press Ctrl-C to stop.');

  let stopping = false;
  async function stop(signal: string) {
    if (stopping) {
      process.stderr.write('Forced exit.\n');
      process.exit(1);
    }
    stopping = true;
    logger.info('stopping: readiness fails, in-flight requests finish, then the worker and leases stop', { signal, deadlineSeconds: env.shutdownDeadlineSeconds });
    await gracefulShutdown({ app, servers: metricsServer ? [server, metricsServer] : [server], closeRuntime: () => runtime.close(), deadlineMs: env.shutdownDeadlineSeconds * 1000, logger });
    process.exit(0);
  }
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
