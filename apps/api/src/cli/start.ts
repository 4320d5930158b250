import { preflight } from './preflight.ts';

// `npm start`'s entry, and the image's: the running Node and the built product's export condition
// are checked first (preflight.ts), and the product (serve.ts) is loaded only after that.
preflight('apps/api/dist/cli/start.js');
// R1: the configuration is checked before the product's modules load, so a refused start says so at
// once (serve.ts reads it again, at no cost).
(await import('./config.ts')).readEnvOrExit();
await import('./serve.ts');
