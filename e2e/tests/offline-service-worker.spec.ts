import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import { createReadyNamespace, signIn } from '../support/console';
import { gqlInPage } from '../support/graphql';

// The console's service worker (apps/console/service-worker): once a page of this build has
// loaded, a reload or a link opened while the server cannot be reached shows the console's frame
// and each region's error with "Try again", not the browser's "This site can't be reached", for
// pages never visited too. It keeps the console's own files only: no GraphQL answer, no session,
// nothing a user typed (a canary secret value is searched for in every cached response).

test.use({ serviceWorkers: 'allow' });

/** The network cut for the page and for the worker's own fetches (context-wide: the worker is the context's). */
const down = (context: BrowserContext) => context.route('**/*', (route) => route.abort('connectionrefused'));
const up = (context: BrowserContext) => context.unroute('**/*');

/** Where the page's worker is: what controls the page, and the registration's workers by state (said when a wait fails). */
const workerState = (page: Page) =>
  page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const state = (worker: ServiceWorker | null | undefined) => worker?.state ?? 'none';
    const controller = navigator.serviceWorker.controller?.scriptURL.replace(location.origin, '') ?? 'none';
    return `controller ${controller}; registration ${registration ? `installing ${state(registration.installing)}, waiting ${state(registration.waiting)}, active ${state(registration.active)}` : 'none'}`;
  });

/** Waits until a service worker controls the page (installed, with this build's files stored). */
async function controlled(page: Page): Promise<string> {
  await expect.poll(() => workerState(page), { timeout: 60_000 }).toMatch(/^controller \/sw\.js;/);
  return page.evaluate(async () => (await caches.keys()).join(','));
}

test('a reload or a new page while the server is unreachable: the frame from the worker’s cache, each region’s error, and "Try again" once it is back', async ({ page, context, stack, snap }) => {
  const canary = `canary-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  await signIn(page, stack.bootstrapApiKey);
  const name = `e2e-sw-${Date.now().toString(36)}`;
  const namespaceId = await createReadyNamespace(page, name);
  await gqlInPage(page, 'mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename } }', { input: { namespaceId, name: 'sw-canary', value: canary } });
  await page.goto(`/secrets?namespace=${namespaceId}`);
  await expect(page.getByRole('row', { name: /sw-canary/ })).toBeVisible();

  await test.step('the worker installs and stores the console’s files, and nothing of the API', async () => {
    const cacheNames = await controlled(page);
    expect(cacheNames).toMatch(/^occ-console-[0-9a-f]{16}$/);
    const stored = await page.evaluate(async () => {
      const entries: Array<{ url: string; body: string }> = [];
      for (const cacheName of await caches.keys()) {
        const cache = await caches.open(cacheName);
        for (const request of await cache.keys()) entries.push({ url: request.url, body: await (await cache.match(request))!.text() });
      }
      return entries;
    });
    const paths = stored.map((e) => new URL(e.url).pathname);
    expect(paths).toContain('/secrets');
    expect(paths).toContain('/agents');
    expect(paths.filter((p) => /^\/(graphql|auth\/|audit\/events)/.test(p))).toEqual([]);
    for (const entry of stored) expect(entry.body.includes(canary), entry.url).toBe(false);
  });

  await test.step('the server unreachable: a reload keeps the frame, the page says it could not load its data', async () => {
    await down(context);
    await page.reload();
    // Who is signed in cannot be asked: the navigation stays, and the header says it is not connected.
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('viewer-unreachable')).toHaveText('Not connected');
    await expect(page.getByTestId('query-error').or(page.getByTestId('page-error')).first()).toContainText('did not answer', { timeout: 20_000 });
    await snap('offline-reload-frame-kept');
  });

  await test.step('a page never opened before, typed into the address bar, comes from the cache too', async () => {
    for (const route of [`/agents?namespace=${namespaceId}`, '/audit', '/users']) {
      await page.goto(route);
      await expect(page.getByRole('navigation', { name: 'Main' }), route).toBeVisible();
      await expect(page.getByRole('main').getByRole('heading', { level: 1 }), route).toBeVisible();
      await expect(page.getByTestId('query-error').or(page.getByTestId('page-error')).first(), route).toContainText('did not answer', { timeout: 20_000 });
    }
  });

  await test.step('the server back: "Try again" loads the data, the canary never shown', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await expect(page.getByTestId('query-error').first()).toBeVisible({ timeout: 20_000 });
    await up(context);
    await page.getByTestId('query-error').first().getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('row', { name: /sw-canary/ })).toBeVisible();
    // The header asks again on its own and shows who is signed in.
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('viewer-unreachable')).toHaveCount(0);
    await expect(page.locator('body')).not.toContainText(canary);
  });

  await test.step('an address the console has no page for is not invented while unreachable: the browser’s own error', async () => {
    await down(context);
    await expect(page.goto('/graphql')).rejects.toThrow(/ERR_CONNECTION_REFUSED|ERR_FAILED/);
    await up(context);
  });
});

test('an install whose file cannot be fetched at first tries that file again, and is whole', async ({ page, context, stack }) => {
  // The build's 404 page, which nothing in this test opens: only the worker's install asks for it.
  // Its first four requests fail; all of a build's files are stored at once, so one failure used to fail the install.
  let refused = 0;
  await context.route(/\/404$/, (route) => (refused < 4 ? (refused++, route.abort('connectionreset')) : route.continue()));
  await signIn(page, stack.bootstrapApiKey);
  expect(await controlled(page)).toMatch(/^occ-console-[0-9a-f]{16}$/);
  expect(refused).toBe(4);
  expect(await page.evaluate(async () => (await caches.match('/404')) !== undefined)).toBe(true);
});
