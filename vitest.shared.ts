import { defineConfig } from 'vitest/config';

// Shared by every workspace's vitest.config.ts: node environment, no watch, generous
// timeouts for tests that start servers (the machine is small and shared).
export const baseTestConfig = defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds without an exports map. Node resolves
    // packages in node_modules (yoga, Pothos) to the CJS build while Vite would pick the ESM one
    // for our sources: two copies of GraphQLError, and errors get masked. Pin the CJS build.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['src/**/*.test.ts'],
  },
});
