import { defineConfig } from 'vitest/config';

// Shared by every workspace's vitest.config.ts: node environment, no watch, generous
// timeouts for tests that start servers (the machine is small and shared).
export const baseTestConfig = defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['src/**/*.test.ts'],
  },
});
