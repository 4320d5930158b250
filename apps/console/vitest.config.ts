import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// The console's own tests are about its build and types (the screens are tested in e2e/).
export default mergeConfig(baseTestConfig, defineConfig({ test: { include: ['test/**/*.test.ts'] } }));
