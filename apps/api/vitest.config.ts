import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import { repeatsOnSecondDatabase } from './src/test/database-mode.ts';
import { baseTestConfig } from '../../vitest.shared.ts';

// Integration tests start real servers (PostgreSQL or PGlite, the embedded Kubernetes API
// server); on two cores, two files at a time is the useful maximum, on either database. Each PGlite
// file's database starts from the migrated image the global setup made (no initdb in Wasm per file
// or per test: that is what once passed a 30 s timeout with two files at a time).
// CI's second run of this suite, on PGlite after PostgreSQL, leaves out the files that check the
// source tree and touch no database (repeatsOnSecondDatabase): they ran in the first.
const databaseFree = repeatsOnSecondDatabase() ? ['src/codebase/**'] : [];

export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: {
      globalSetup: ['src/test/global-setup.ts'],
      maxWorkers: 2,
      exclude: [...configDefaults.exclude, ...databaseFree],
    },
  }),
);
