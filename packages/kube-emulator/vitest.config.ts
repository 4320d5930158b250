import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// Test files share no module state (each starts its own server), so they need no isolation;
// without it client-node is loaded once per worker instead of once per file (15 s → 5 s here).
export default mergeConfig(baseTestConfig, defineConfig({ test: { isolate: false } }));
