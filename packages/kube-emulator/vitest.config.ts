import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// Test files share no module state (each starts its own server), so they need no isolation;
// without it client-node is loaded once per worker instead of once per file (15 s → 5 s here).
// *.differential.test.ts (this emulator against a real kube-apiserver) and *.real-only.test.ts (what
// only a real server answers, such as RBAC) need the E8 lane's server: vitest.real.config.ts runs them.
export default mergeConfig(
  baseTestConfig,
  defineConfig({ test: { isolate: false, exclude: ['**/node_modules/**', 'src/**/*.differential.test.ts', 'src/**/*.real-only.test.ts'] } }),
);
