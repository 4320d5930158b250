#!/usr/bin/env -S npx tsx
// Runs the emulator standalone:
//   tsx packages/kube-emulator/src/cli.ts --port 6443 --data-file x.json --kubeconfig out.yaml
// and stops on SIGINT or SIGTERM (flushing the data file).

import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startKubeEmulator } from './server.ts';

const USAGE = `usage: kube-emulator [--host 127.0.0.1] [--port 6443] [--data-file state.json] [--kubeconfig out.yaml] [--token T] [--crd-dir dir]... [--ca-dir dir]`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-file': { type: 'string' },
      kubeconfig: { type: 'string' },
      token: { type: 'string' },
      'crd-dir': { type: 'string', multiple: true },
      'ca-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = values.port === undefined ? 6443 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number\n${USAGE}`);

  const emulator = await startKubeEmulator({
    host: values.host,
    port,
    dataFile: values['data-file'],
    token: values.token,
    crdDirs: values['crd-dir'],
    caDir: values['ca-dir'],
  });
  if (values.kubeconfig) await writeFile(values.kubeconfig, emulator.kubeconfigYaml(), { mode: 0o600 });
  console.log(`kube-emulator listening on ${emulator.url}${values.kubeconfig ? `, kubeconfig in ${values.kubeconfig}` : ''}`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`kube-emulator: ${signal}, stopping`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
