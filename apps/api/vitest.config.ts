import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// Integration tests start real servers (PostgreSQL or PGlite, the embedded Kubernetes API
// server); on two cores, two files at a time is the useful maximum. With PGlite too: each file's
// database starts from the migrated image the global setup made (no initdb per file), and two
// files at a time took the whole API suite from 22 to under 15 minutes on a loaded machine.
export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: {
      globalSetup: ['src/test/global-setup.ts'],
      maxWorkers: 2,
      fileParallelism: true,
    },
  }),
);
