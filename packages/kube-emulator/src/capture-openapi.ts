// Writes src/kinds/openapi-v1.20.2.json: the /openapi/v2 definitions of the built-in kinds the
// emulator serves, from a real kube-apiserver (openapi-captured.ts says why). From the repository
// root, with the E8 lane's server:
//
//   scripts/kube-apiserver/cluster run /tmp/capture -- npm run capture-openapi -w @occ/kube-emulator
//
// or from a document already fetched: `npm run capture-openapi -w @occ/kube-emulator -- --from swagger.json`.
// The server is read with `kubectl get --raw /openapi/v2` ($OCC_KUBE_KUBECTL, else kubectl on PATH,
// and $KUBECONFIG), so whatever kubectl can reach can be captured.

import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs, promisify } from 'node:util';
import { capturedSubset } from './kinds/openapi-captured.ts';
import { BUILT_IN_RESOURCES } from './registry.ts';
import type { JsonObject } from './types.ts';

const OUTPUT = new URL('./kinds/openapi-v1.20.2.json', import.meta.url);

async function servedDocument(): Promise<{ text: string; from: string }> {
  const kubectl = process.env.OCC_KUBE_KUBECTL ?? 'kubectl';
  const { stdout } = await promisify(execFile)(kubectl, ['get', '--raw', '/openapi/v2'], { maxBuffer: 64 * 1024 * 1024 });
  const { stdout: version } = await promisify(execFile)(kubectl, ['get', '--raw', '/version']);
  return { text: stdout, from: `/openapi/v2 of kube-apiserver ${(JSON.parse(version) as { gitVersion: string }).gitVersion}` };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { from: { type: 'string' } }, strict: true });
  const { text, from } = values.from ? { text: await readFile(values.from, 'utf8'), from: values.from } : await servedDocument();
  const document = JSON.parse(text) as { definitions?: Record<string, JsonObject> };
  if (!document.definitions) throw new Error(`${from} has no definitions: not an OpenAPI v2 document`);
  const definitions = capturedSubset(document.definitions, BUILT_IN_RESOURCES);
  const source = `${from}: the definitions of the built-in kinds the emulator serves and what they reach (src/capture-openapi.ts)`;
  await writeFile(OUTPUT, `${JSON.stringify({ source, definitions }, null, 1)}\n`);
  console.log(`${Object.keys(definitions).length} definitions written to ${OUTPUT.pathname}`);
}

await main();
