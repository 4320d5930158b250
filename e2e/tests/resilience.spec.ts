import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import { createReadyNamespace, openCreate, signIn } from '../support/console';
import { gqlInPage } from '../support/graphql';

// The API unreachable (the server down or restarting): every request is refused at the socket, as
// Chromium reports it, while the page already loaded stays. The frame (header, navigation) stays;
// the page or region that could not load says so with "Try again", which works once the API is
// back; what was typed survives a failed submit, except a secret value, emptied on purpose.

const down = (page: Page) => page.route('**/*', (route) => route.abort('connectionrefused'));
const up = (page: Page) => page.unroute('**/*');
const failure = (page: Page) => page.getByTestId('query-error').or(page.getByTestId('page-error')).first();

test('the API down while navigating: the frame stays, the page says it could not load, and "Try again" loads it once the API is back', async ({ page, stack, snap }) => {
  await signIn(page, stack.bootstrapApiKey);
  const name = `e2e-down-${Date.now().toString(36)}`;
  const namespaceId = await createReadyNamespace(page, name);

  await test.step('the API down after the console loaded: every section and every page of the header keeps the frame, with its error and "Try again"', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await expect(page.getByRole('heading', { name: `Secrets in ${name}`, level: 1 })).toBeVisible();
    await page.waitForLoadState('networkidle');
    await down(page);
    const sections = page.getByRole('navigation', { name: /^Sections of/ });
    for (const section of ['Configurations', 'Agents', 'Access', 'SelfConfig']) {
      await sections.getByRole('link', { name: section, exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`/${section === 'SelfConfig' ? 'selfconfig' : section.toLowerCase()}\\?namespace=`));
      await expect(page.getByRole('navigation', { name: 'Main' }), section).toBeVisible();
      await expect(page.getByRole('main').getByRole('heading', { level: 1 }), section).toBeVisible();
      // The page's data (its regions' errors), or the page itself when its code had not come yet.
      await expect(failure(page), section).toContainText('did not answer', { timeout: 20_000 });
      await page.goBack(); // a page that could not load has no section links of its own
      await expect(page).toHaveURL(/\/secrets\?namespace=/);
    }
    for (const link of ['Users', 'Approvals', 'Audit log', 'Namespaces']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
      await expect(page.getByRole('main').getByRole('heading', { level: 1 }), link).toBeVisible();
      await expect(failure(page), link).toContainText('did not answer', { timeout: 20_000 });
    }
    await snap('api-down-frame-kept');
    await up(page);
    await page.getByTestId('query-error').first().getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('table', { name: 'Namespaces' })).toBeVisible();
  });

  await test.step('a page whose code never arrived: the frame and "This page could not load" with "Try again"', async () => {
    const agent = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
      { input: { namespaceId, name: 'resilient' } },
    );
    await page.goto(`/agents?namespace=${namespaceId}`);
    await expect(page.getByRole('link', { name: 'resilient' })).toBeVisible();
    await page.waitForLoadState('networkidle');
    // The agent's page is a chunk of its own, loaded on demand: refuse it (and everything else).
    await down(page);
    await page.getByRole('link', { name: 'resilient' }).click();
    const failed = page.getByTestId('page-error');
    await expect(failed).toBeVisible();
    await expect(failed.getByRole('heading', { name: 'This page could not load', level: 1 })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await snap('page-could-not-load');
    // Still down: the retry says so and the frame stays.
    await failed.getByRole('button', { name: 'Try again' }).click();
    await expect(failed).toContainText('Still no answer from the server.');
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await up(page);
    await failed.getByRole('button', { name: 'Try again' }).click();
    await expect(page).toHaveURL(new RegExp(`id=${agent.createAgent.agent.id}`));
    await expect(page.getByRole('heading', { name: /resilient/, level: 1 })).toBeVisible();
    await expect(failed).toHaveCount(0);
  });

  await test.step('a submit that gets no answer: the name typed stays, the secret value is emptied and says so', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await openCreate(page, 'New secret');
    await page.getByLabel('Name', { exact: true }).fill('kept-name');
    const value = page.getByLabel('Value', { exact: true });
    await value.fill('not-kept-value');
    await page.route('**/graphql', (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Create secret' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'did not answer' })).toBeVisible();
    await expect(page.getByLabel('Name', { exact: true })).toHaveValue('kept-name');
    await expect(value).toHaveValue('');
    await expect(page.getByTestId('value-cleared')).toBeVisible();
    await expect(page.locator('body')).not.toContainText('not-kept-value');
    await page.unroute('**/graphql');
    await value.fill('second-try');
    await page.getByRole('button', { name: 'Create secret' }).click();
    await expect(page.getByRole('row', { name: /kept-name/ })).toBeVisible();
    await expect(page.getByTestId('value-cleared')).toHaveCount(0);
  });
});
