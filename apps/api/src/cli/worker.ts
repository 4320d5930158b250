import { preflight } from './preflight.ts';

// The worker's own entry point (W1): the same runtime as `npm start` without the API, for
// installations that run workers apart from the API replicas (deploy/worker.yaml). The Node and
// the built product's export condition are checked first (preflight.ts), as start.ts does.
preflight('apps/api/dist/cli/worker.js');
(await import('./config.ts')).readEnvOrExit();
await import('./run-worker.ts');
