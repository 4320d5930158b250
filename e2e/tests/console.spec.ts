import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { chooseRowAction, confirmByTyping, openCreate, rowId, signOut } from '../support/console';
import { expect, test } from '../support/fixtures';

/** The secret value must not be anywhere the page can show or keep it. */
async function expectValueNowhereOnPage(page: Page, value: string): Promise<void> {
  expect(await page.content()).not.toContain(value);
  expect(await page.locator('body').innerText()).not.toContain(value);
  const kept = await page.evaluate(() => ({
    inputs: Array.from(document.querySelectorAll('input, textarea'), (el) => (el as HTMLInputElement).value),
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
    url: location.href,
  }));
  expect(kept.inputs).not.toContain(value);
  expect(kept.local + kept.session + kept.url).not.toContain(value);
}

async function signIn(page: Page, apiKey: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/namespaces$/);
}

async function createReadyNamespace(page: Page, name: string): Promise<void> {
  await openCreate(page, 'New namespace');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Create namespace' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Namespace ${name} created` })).toBeVisible();
  await page.getByLabel('Search namespaces by name').fill(name);
  await expect(page.getByRole('row', { name: new RegExp(name) })).toContainText('READY', { timeout: 30_000 });
}

test('S1 S6 S7 a new user signs in with the bootstrap key, creates a namespace, a secret, rotates and deletes it', async ({
  page,
  stack,
  snap,
}) => {
  const namespaceName = `e2e-${Date.now().toString(36)}`;
  const secretName = 'model-api-key';
  const canary = `canary-${randomUUID()}`;
  const rotatedCanary = `canary-rotated-${randomUUID()}`;

  await test.step('the console sends a visitor without a session to sign-in', async () => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await snap('sign-in');
  });

  await test.step('sign in with the bootstrap key printed at start-up', async () => {
    await page.getByLabel('API key').fill(stack.bootstrapApiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/namespaces$/);
    await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });

  const namespaceRow = page.getByRole('row', { name: new RegExp(namespaceName) });
  await test.step('create a namespace and watch it become READY', async () => {
    await openCreate(page, 'New namespace');
    await page.getByLabel('Name', { exact: true }).fill(namespaceName);
    await page.getByRole('button', { name: 'Create namespace' }).click();
    await expect(page.getByRole('status').filter({ hasText: `Namespace ${namespaceName} created` })).toBeVisible();
    // A page holds 20, oldest first; the suite makes more than that, so find it by name.
    await page.getByLabel('Search namespaces by name').fill(namespaceName);
    await expect(namespaceRow).toBeVisible();
    await expect(namespaceRow).toContainText(/PROVISIONING|READY/);
    await expect(rowId(namespaceRow, 'ns')).toBeVisible();
    await snap('namespace-created');
    await expect(namespaceRow).toContainText('READY', { timeout: 30_000 });
    await snap('namespace-ready');
  });

  await test.step('open its secrets', async () => {
    await namespaceRow.getByRole('link', { name: `Secrets of ${namespaceName}` }).click();
    await expect(page).toHaveURL(/\/secrets\?namespace=ns_/);
    await expect(page.getByRole('heading', { name: `Secrets in ${namespaceName}`, level: 1 })).toBeVisible();
    await expect(page.getByText('No secrets in this namespace yet.')).toBeVisible();
  });

  const secretRow = page.getByRole('row', { name: new RegExp(secretName) }).filter({ has: page.getByRole('button', { name: `Actions for ${secretName}` }) });
  await test.step('S1 create a secret: the value is stored and never shown again', async () => {
    await openCreate(page, 'New secret');
    await page.getByLabel('Name', { exact: true }).fill(secretName);
    const value = page.getByLabel('Value', { exact: true });
    await expect(value).toHaveAttribute('type', 'password');
    await value.fill(canary);
    await snap('secret-form-filled');
    await page.getByRole('button', { name: 'Create secret' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Stored. The value will not be shown again.' })).toBeVisible();
    await expect(value).toHaveValue('');
    await expect(secretRow).toBeVisible();
    await expect(secretRow.getByRole('cell').nth(1)).toHaveText('1'); // version
    // The reference is copied, not shown as JSON; the id is cut to its start but copied whole.
    await expect(secretRow.getByRole('button', { name: `Copy reference to ${secretName}` })).toBeVisible();
    await expect(secretRow).not.toContainText('"kind"');
    await expectValueNowhereOnPage(page, canary);
    await snap('secret-created');

    await page.reload();
    await expect(secretRow).toBeVisible();
    await expectValueNowhereOnPage(page, canary);
  });

  await test.step('S6 rotate it: the answer says stored, not delivered', async () => {
    await chooseRowAction(page, secretName, 'Rotate…');
    const newValue = page.getByLabel(`New value for ${secretName}`);
    await expect(newValue).toHaveAttribute('type', 'password');
    await newValue.fill(rotatedCanary);
    await page.getByRole('button', { name: 'Store new value' }).click();
    const delivery = page.getByTestId('delivery');
    await expect(delivery).toContainText(/stored/i);
    await expect(delivery).toContainText(/not delivered/i);
    await expect(newValue).toHaveValue('');
    await expect(secretRow.getByRole('cell').nth(1)).toHaveText('2');
    await expectValueNowhereOnPage(page, rotatedCanary);
    await snap('secret-rotated');
  });

  await test.step('S7 delete it after typing its name: the row is gone, a toast says so', async () => {
    await chooseRowAction(page, secretName, 'Delete…');
    const dialog = page.getByRole('alertdialog');
    await expect(dialog.getByRole('heading', { name: `Delete secret ${secretName}?` })).toBeVisible();
    const confirm = dialog.getByRole('button', { name: `Delete secret ${secretName}` });
    await expect(confirm).toBeDisabled();
    await snap('secret-delete-confirm');
    await confirmByTyping(page, secretName, `Delete secret ${secretName}`);
    await expect(secretRow).toHaveCount(0);
    await expect(page.getByTestId('toasts')).toContainText(`Secret ${secretName} deleted.`);
    await expect(page.getByText('No secrets in this namespace yet.')).toBeVisible();
    await snap('secret-deleted');
  });

  await test.step('sign out: the session is gone', async () => {
    await signOut(page);
    await page.goto('/namespaces');
    await expect(page).toHaveURL(/\/sign-in$/);
  });
});

test('a wrong API key shows an error and stays on sign-in', async ({ page, snap }) => {
  await page.goto('/sign-in');
  await page.getByLabel('API key').fill(`occ_wrong_${randomUUID()}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Filtered: Next's route announcer is an (empty) alert too.
  await expect(page.getByRole('alert').filter({ hasText: 'Sign-in failed' })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
  await snap('wrong-key');
  await page.goto('/namespaces');
  await expect(page).toHaveURL(/\/sign-in$/);
});

test('S1 a value with a NUL character is refused, and the console names the field; the value field is emptied and says so, the name stays', async ({ page, stack, snap }) => {
  const namespaceName = `e2e-nul-${Date.now().toString(36)}`;
  await signIn(page, stack.bootstrapApiKey);
  await createReadyNamespace(page, namespaceName);
  await page.getByRole('link', { name: `Secrets of ${namespaceName}` }).click();
  await expect(page.getByRole('heading', { name: `Secrets in ${namespaceName}`, level: 1 })).toBeVisible();

  await openCreate(page, 'New secret');
  await page.getByLabel('Name', { exact: true }).fill('has-nul');
  const value = page.getByLabel('Value', { exact: true });
  await value.fill('before\u0000after');
  await page.getByRole('button', { name: 'Create secret' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Invalid input' });
  await expect(alert).toBeVisible();
  await expect(alert.locator('code')).toHaveText(/value$/);
  await expect(value).toHaveAttribute('aria-invalid', 'true');
  // The value is not kept after a refusal, on purpose and said so; the name stays as typed.
  await expect(value).toHaveValue('');
  await expect(value).toHaveAccessibleDescription(/The value was cleared because the request did not succeed/);
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('has-nul');
  await expect(page.getByText('No secrets in this namespace yet.')).toBeVisible();
  await snap('validation-error');
});
