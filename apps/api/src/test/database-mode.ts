// Which database a test run uses, read from the environment alone (vitest.config.ts reads it too,
// so this module imports nothing).

export function testDatabaseMode(env: NodeJS.ProcessEnv = process.env): 'postgres' | 'pglite' {
  if (env.TEST_DATABASE === 'pglite') return 'pglite';
  return env.DATABASE_URL ? 'postgres' : 'pglite';
}

/**
 * Whether this run repeats the suite on PGlite after a run on PostgreSQL (CI's second lane:
 * TEST_DATABASE=pglite with DATABASE_URL still set). Files and tests that touch no database (the
 * codebase checks, the production build's package list) ran in the first and are left out here.
 */
export function repeatsOnSecondDatabase(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TEST_DATABASE === 'pglite' && Boolean(env.DATABASE_URL);
}
