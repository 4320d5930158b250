import { readFileSync } from 'node:fs';

/** What global-setup.ts learned from the start-up output, handed to the test workers. */
export type StackInfo = {
  consoleUrl: string;
  bootstrapApiKey: string;
  dataDir: string;
  databaseName: string | null;
};

export const STACK_FILE_ENV = 'OCC_E2E_STACK_FILE';

export function readStackInfo(): StackInfo {
  const file = process.env[STACK_FILE_ENV];
  if (!file) throw new Error(`${STACK_FILE_ENV} is not set: run the tests through playwright.config.ts (its globalSetup starts the stack).`);
  return JSON.parse(readFileSync(file, 'utf8')) as StackInfo;
}
