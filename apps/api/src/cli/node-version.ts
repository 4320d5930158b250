// The oldest Node the product runs on; every package.json's engines says `>=` this
// (node-version.test.ts keeps them equal). 22.19 is the minimum of undici 8, through which
// client-node 2 fetches (vitest and vite need 22.12, @graphql-tools' helpers 22.15). This file
// imports nothing, so start.ts can check the running Node before any dependency is loaded.
export const MINIMUM_NODE = '22.19';

/** Why this Node cannot run the product, or null when it can. */
export function unsupportedNodeMessage(running: string): string | null {
  const [major = 0, minor = 0] = running.split('.').map(Number);
  const [minMajor, minMinor] = MINIMUM_NODE.split('.').map(Number) as [number, number];
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return null;
  return [
    `The OpenClaw control plane needs Node >=${MINIMUM_NODE}; this is Node v${running}.`,
    '`npm start` uses the project\'s pinned Node 24 by itself (scripts/node-env brings it from the npm',
    'registry); to run a command yourself, put it first on PATH: eval "$(scripts/node-env --print)"',
  ].join('\n');
}
