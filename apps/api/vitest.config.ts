import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// Integration tests start real servers (PostgreSQL or PGlite, the embedded Kubernetes API
// server); on two cores, two files at a time is the useful maximum, and embedded PGlite
// instances are memory-heavy, so PGlite runs go one file at a time.
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
