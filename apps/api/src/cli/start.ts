import { unsupportedNodeMessage } from './node-version.ts';

// `npm start`'s entry. The running Node is checked first, and the product (serve.ts) is loaded
// only after that, by a dynamic import: static imports would all be loaded before this check, and
// an older Node would then fail somewhere inside a dependency instead of saying what is wrong.
const problem = unsupportedNodeMessage(process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}
// The built product (dist/*.js) finds the workspace packages' compiled dist/ only under the
// `occ-dist` export condition; without it Node would look for their TypeScript sources.
if (import.meta.url.endsWith('.js') && import.meta.resolve('@occ/domain/errors').endsWith('.ts')) {
  process.stderr.write('Start the built product with `node --conditions=occ-dist apps/api/dist/cli/start.js` (README: Production).\n');
  process.exit(1);
}
// R1: the configuration is checked before the product's modules load, so a refused start says so at
// once (serve.ts reads it again, at no cost).
(await import('./config.ts')).readEnvOrExit();
await import('./serve.ts');
