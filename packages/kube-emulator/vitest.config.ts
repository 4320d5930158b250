import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// Test files share no module state (each starts its own server), so they need no isolation;
// without it client-node is loaded once per worker instead of once per file (15 s → 5 s here).
// *.differential.test.ts compares this emulator with a real kube-apiserver: only the E8 lane, which
// has one, runs it (vitest.real.config.ts).
export default mergeConfig(
  baseTestConfig,
  defineConfig({ test: { isolate: false, exclude: ['**/node_modules/**', 'src/**/*.differential.test.ts'] } }),
);
