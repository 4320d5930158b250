import { unsupportedNodeMessage } from './node-version.ts';

// `npm start`'s entry. The running Node is checked first, and the product (serve.ts) is loaded
// only after that, by a dynamic import: static imports would all be loaded before this check, and
// an older Node would then fail somewhere inside a dependency instead of saying what is wrong.
const problem = unsupportedNodeMessage(process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}
await import('./serve.ts');
