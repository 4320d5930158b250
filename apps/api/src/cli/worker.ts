import { readEnvOrExit } from './config.ts';
import { createLogger } from '../log.ts';
import { startRuntime } from '../runtime.ts';

// The worker's own entry point (W1): the same runtime as `npm start` (which runs a worker in its
// own process too) without the HTTP server, for installations that run workers apart from the
// API replicas. Several may run at once: each work item is claimed by one of them under a lease.
// Production only: with the embedded defaults each process would have a database of its own.
const env = readEnvOrExit();
const logger = createLogger((line) => process.stderr.write(line), env.logLevel);
if (!env.databaseUrl || !env.kubeconfig && !env.inCluster) {
  logger.error('the worker needs DATABASE_URL and KUBECONFIG (or a pod) shared with the API: the embedded ones belong to `npm start`');
  process.exit(1);
}
const runtime = await startRuntime({ env, logger });
logger.info('worker running', { owner: runtime.worker.owner });

let stopping = false;
async function stop(signal: string) {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info('stopping: the worker finishes its current step and hands its item back', { signal });
  await runtime.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
