import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, type Page } from '@playwright/test';
import { readStackInfo, type StackInfo } from './stack';

const screensDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-results/screens');

export const test = base.extend<{ stack: StackInfo; snap: (name: string) => Promise<void> }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads fixture dependencies from the pattern
  stack: async ({}, use) => {
    await use(readStackInfo());
  },
  baseURL: async ({ stack }, use) => {
    await use(stack.consoleUrl);
  },
  // Named full-page screenshots at the steps worth looking at, kept next to Playwright's own.
  snap: async ({ page }, use, testInfo) => {
    mkdirSync(screensDir, { recursive: true });
    const prefix = testInfo.title.split(' ').slice(0, 3).join('-').replace(/[^A-Za-z0-9-]/g, '');
    let step = 0;
    await use(async (name: string) => {
      step += 1;
      await screenshot(page, path.join(screensDir, `${prefix}-${String(step).padStart(2, '0')}-${name}.png`));
    });
  },
});

async function screenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: file, fullPage: true });
}

export { expect } from '@playwright/test';
