import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// Integration tests start real servers (PostgreSQL or PGlite, the embedded Kubernetes API
// server); on two cores, two files at a time is the useful maximum. PGlite runs go one file at a
// time: each file's database starts from the migrated image the global setup made, but a file
// that starts PGlite instances of its own (bootstrap-installation.test.ts runs initdb in Wasm)
// passed its 30 s timeout with two files at a time on a loaded machine.
const pglite = process.env.TEST_DATABASE === 'pglite' || !process.env.DATABASE_URL;

export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: {
      globalSetup: ['src/test/global-setup.ts'],
      maxWorkers: pglite ? 1 : 2,
      fileParallelism: !pglite,
    },
  }),
);
