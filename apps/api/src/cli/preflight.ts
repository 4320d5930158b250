import { unsupportedNodeMessage } from './node-version.ts';

// What every command checks before the product's modules load (start.ts, worker.ts): the running
// Node, and, for the built product, the `occ-dist` export condition. Static imports would all be
// loaded before such a check, and an older Node or a missing condition would then fail somewhere
// inside a dependency instead of saying what is wrong; so the commands import the rest
// dynamically, after this. This file imports nothing but node-version.ts.

/** Exits 1 with the reason when this Node, or this start of the built `entry`, cannot run the product. */
export function preflight(entry: string): void {
  const problem = unsupportedNodeMessage(process.versions.node);
  if (problem) {
    process.stderr.write(problem + '\n');
    process.exit(1);
  }
  // The built product (dist/*.js) finds the workspace packages' compiled dist/ only under the
  // `occ-dist` export condition; without it Node would look for their TypeScript sources. (The
  // bundle `npm start` runs, scripts/start.ts, holds those packages: this file is not in a dist/.)
  if (import.meta.url.endsWith('/dist/cli/preflight.js') && import.meta.resolve('@occ/domain/errors').endsWith('.ts')) {
    process.stderr.write(`Start the built product with \`node --conditions=occ-dist ${entry}\` (README: Production).\n`);
    process.exit(1);
  }
}
