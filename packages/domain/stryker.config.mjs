// Mutation testing of the domain: `npm run mutate` at the root.
// Each mutant is run against only the tests that cover it (perTest coverage through vitest's
// runner); the score and every survivor are printed, and HTML and JSON reports are written to
// reports/mutation/ (ignored by git). Not part of CI: a full run takes minutes on two cores.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  mutate: ['src/**/*.ts', '!src/**/*.test.ts', '!src/**/*.test-support.ts'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants: tables, regular expressions) would each need the whole
  // suite run again: a quarter of the mutants and two thirds of the time. Left out, and said so in
  // the score's line in the README.
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: 80 },
};
