import type { Route } from '@playwright/test';
import { openCreate } from '../support/console';
import { gqlInPage } from '../support/graphql';
import { expect, test } from '../support/fixtures';

// Regression for the flake createReadyNamespace's fallback logs: a create answered while the page's
// first list fetch is still on its way back. That fetch read the table before the create committed;
// the console must not let it be the list's final word. The route holds that one answer back until
// the create's answer has reached the page, which makes the once-in-twenty interleaving certain.
test('a namespace created while the list is still loading appears in the list without a reload', async ({ page, stack, snap }) => {
  const name = `e2e-race-${Date.now().toString(36)}`;
  let listRead!: () => void;
  const listReadPromise = new Promise<void>((resolve) => (listRead = resolve));
  let createAnswered!: () => void;
  const createAnsweredPromise = new Promise<void>((resolve) => (createAnswered = resolve));
  let heldOne = false;

  await page.route('**/graphql', async (route: Route) => {
    const body = route.request().postData() ?? '';
    if (!heldOne && body.includes('query Namespaces')) {
      heldOne = true;
      const response = await route.fetch(); // the server has read the list now, before the create
      listRead();
      await createAnsweredPromise;
      await new Promise((resolve) => setTimeout(resolve, 500)); // let the page handle the create's answer first
      await route.fulfill({ response }).catch(() => undefined); // the console may have cancelled it
      return;
    }
    if (body.includes('mutation CreateNamespace')) {
      const response = await route.fetch();
      await route.fulfill({ response });
      createAnswered();
      return;
    }
    await route.continue();
  });

  await page.goto('/sign-in');
  await page.getByLabel('API key').fill(stack.bootstrapApiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/namespaces$/);
  await listReadPromise;

  await openCreate(page, 'New namespace');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Create namespace' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Namespace ${name} created` })).toBeVisible();
  // The list's count must include the new namespace without a reload (newest first, it leads page 1
  // however many the suite has made); then, found by name, it turns READY.
  const { namespaces } = await gqlInPage<{ namespaces: { totalCount: number } }>(page, '{ namespaces(first: 1) { totalCount } }');
  await expect(page.getByTestId('pager-range')).toHaveText(new RegExp(`of ${namespaces.totalCount} namespaces, newest first$`));
  await expect(page.getByRole('table', { name: 'Namespaces' }).locator('tbody tr').first()).toContainText(name);
  await page.getByLabel('Search namespaces by name').fill(name);
  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row).toContainText('READY', { timeout: 30_000 });
  await snap('created-during-first-load');
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});
