import { defineConfig, devices } from '@playwright/test';

// Browser tests of the whole product: global-setup.ts starts it the way a new user would
// (`npx tsx apps/api/src/cli/start.ts` at the repo root) and the tests drive the console in
// Debian's Chromium, since Playwright cannot download its own browsers here.
export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  globalSetup: './global-setup.ts',
  // One stack, one browser: the tests share an installation, so they run one at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // Journeys set up through the UI on a shared, slow machine: two minutes was cut too fine.
  timeout: 240_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: './playwright-report' }]],
  use: {
    ...devices['Desktop Chrome'],
    // baseURL comes from the stack fixture (support/stack.ts): the port is only known after setup.
    screenshot: 'on',
    trace: 'retain-on-failure',
    viewport: { width: 1280, height: 900 },
    // The console registers a service worker that answers its own files from a cache when the
    // network fails. page.route() does not see what a worker answers, and the other specs cut the
    // network with it (resilience.spec.ts): they run as a browser without the worker would, and
    // offline-service-worker.spec.ts runs with it.
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  projects: [{ name: 'chromium' }],
});
