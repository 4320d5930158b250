import { createDb } from '../db/client.ts';
import { kubeConfigFromFile } from '../kube/config.ts';
import { fenceKubernetesWrites } from '../kube/fencing.ts';
import { createLogger } from '../log.ts';
import { watchKubernetesRequests } from '../observability/metrics.ts';
import { startWorker } from '../worker.ts';
import { fenceWorkKind } from './fence-work.ts';

// The worker process R4's pause test stops and resumes (worker-fencing.test.ts): a worker as the
// runtime starts one (fenced Kubernetes writes, a work lease of OCC_WORK_LEASE_SECONDS) that
// prints `entered` when its step is under way and `request <METHOD> <resource>` for every request
// it sends to the API server (undici's own report: a request refused by the fence is never made).

const kubeConfig = kubeConfigFromFile(process.env.KUBECONFIG!);
fenceKubernetesWrites(kubeConfig);
watchKubernetesRequests(kubeConfig.getCurrentCluster()!.server, ({ method, resource }) => {
  process.stdout.write(`request ${method} ${resource}\n`);
  return () => {};
});
const db = createDb(process.env.DATABASE_URL!, { poolSize: 2 });
const logger = createLogger((line) => process.stdout.write(line), 'info');
startWorker({
  db,
  logger,
  pollMs: 50,
  leaseSeconds: Number(process.env.OCC_WORK_LEASE_SECONDS),
  kinds: [fenceWorkKind(kubeConfig, 'paused', () => process.stdout.write('entered\n'))],
});
