import { defineConfig } from 'vitest/config';

// StrykerJS runs the tests in a copy of this package (a sandbox in .stryker-tmp; not under
// node_modules, which vitest excludes), where the shared config's relative path does not resolve;
// the domain needs none of its settings but these.
// Left out: SG5's 10,000-level documents, a test of stack depth that takes minutes under Stryker's
// instrumentation (every expression wrapped); the same walks are mutated and killed through their
// ordinary tests.
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    include: ['src/**/*.test.ts'],
    exclude: ['src/walks-sg5.test.ts'],
  },
});
