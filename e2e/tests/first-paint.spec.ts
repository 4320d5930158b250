import { expect, test } from '../support/fixtures';

// What a page shows before any of its scripts has run (the static export's HTML, which is also the
// first paint on a slow link): the header with the navigation, the page's heading and its
// placeholder rows, never a bare "Loading…". Measured on the slow profile, with times, by
// bench/console/console.bench.ts.

test.use({ javaScriptEnabled: false });

const ROUTES = ['/namespaces', '/secrets?namespace=ns_x', '/configurations?namespace=ns_x', '/agents?namespace=ns_x', '/access?namespace=ns_x', '/selfconfig?namespace=ns_x', '/users', '/audit', '/selfconfig/approvals'];

test('every route’s HTML, before its scripts: the navigation, a heading and the page’s placeholder rows', async ({ page }) => {
  for (const route of ROUTES) {
    await page.goto(route);
    await expect(page.getByRole('navigation', { name: 'Main' }), route).toBeVisible();
    for (const link of ['Namespaces', 'Users', 'Approvals', 'Audit log']) await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }), route).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 }).first(), route).toBeVisible();
    await expect(page.getByTestId('skeleton').first(), route).toBeVisible();
    await expect(page.getByRole('main'), route).not.toHaveText(/^\s*Loading…\s*$/);
  }
  // The sign-in page has no navigation to offer.
  await page.goto('/sign-in');
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
});
