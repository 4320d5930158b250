import { expect, test } from '../support/fixtures';
import { confirmByTyping, openCreate, signIn, signOut } from '../support/console';

test('an administrator creates a user whose key signs in to an empty console, revokes the key so it is refused, and disables the user', async ({
  page,
  stack,
  snap,
}) => {
  const userName = `e2e-user-${Date.now().toString(36)}`;

  await signIn(page, stack.bootstrapApiKey);

  let userKey = '';
  await test.step('create a user from the Users page: the key is shown once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await expect(page).toHaveURL(/\/users$/);
    await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
    await openCreate(page, 'New user');
    await page.getByLabel('User name').fill(userName);
    await page.getByRole('button', { name: 'Create user' }).click();
    const shown = page.getByRole('status').filter({ hasText: 'it will not be shown again' });
    await expect(shown).toBeVisible();
    await expect(shown.getByRole('button', { name: 'Copy key' })).toBeVisible();
    userKey = (await shown.locator('code').innerText()).trim();
    expect(userKey.length).toBeGreaterThan(16);
    await expect(page.getByRole('row', { name: new RegExp(userName) })).toContainText('ACTIVE');
    await snap('user-created');
  });

  await test.step('sign out, sign in with the new key: no namespaces are visible to a user without grants', async () => {
    await signOut(page);
    await signIn(page, userKey);
    await expect(page.getByRole('banner')).toContainText(userName);
    // The empty state fits a viewer who may not create: why nothing is listed, no create offer.
    await expect(page.getByText('No namespaces yet that you may see.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'New namespace' })).toHaveCount(0);
    await snap('new-user-empty-namespaces');
  });

  await test.step('back as bootstrap, revoke the new user\'s key', async () => {
    await signOut(page);
    await signIn(page, stack.bootstrapApiKey);
    await page.goto('/users');
    await page.getByRole('link', { name: `API keys of ${userName}` }).click();
    await expect(page).toHaveURL(/\/users\?id=/);
    await expect(page.getByRole('heading', { name: `API keys of ${userName}`, level: 1 })).toBeVisible();
    const keyRow = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Revoke key / }) });
    await expect(keyRow).toHaveCount(1);
    // Only the prefix is listed, and it is the start of the key shown at creation.
    const shownPrefix = (await keyRow.locator('code').innerText()).replace('…', '').trim();
    expect(shownPrefix.length).toBeGreaterThan(0);
    expect(shownPrefix.length).toBeLessThan(userKey.length);
    expect(userKey.startsWith(shownPrefix)).toBe(true);
    await expect(keyRow.getByRole('cell').nth(2)).toHaveText('no');
    await keyRow.getByRole('button', { name: /^Revoke key / }).click();
    await confirmByTyping(page, shownPrefix, /^Revoke key /);
    const revokedRow = page.getByRole('row').filter({ has: page.locator('code', { hasText: shownPrefix }) });
    await expect(revokedRow.getByRole('cell').nth(2).locator('time')).toHaveAttribute('title', /UTC$/);
    await expect(page.getByTestId('toasts')).toContainText('revoked');
    await expect(page.getByRole('button', { name: /^Revoke key / })).toHaveCount(0);
    await snap('key-revoked');
  });

  await test.step('the revoked key is refused on sign-in', async () => {
    await signOut(page);
    await page.getByLabel('API key').fill(userKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Sign-in failed' })).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in$/);
    await snap('revoked-key-refused');
  });

  await test.step('disable the user: the list marks them DISABLED', async () => {
    // After the refusal above, so that check is about the revoked key and not a disabled user.
    await signIn(page, stack.bootstrapApiKey);
    await page.goto('/users');
    const userRow = page.getByRole('row', { name: new RegExp(userName) });
    await expect(userRow).toContainText('ACTIVE');
    await userRow.getByRole('button', { name: `Disable ${userName}` }).click();
    await confirmByTyping(page, userName, `Disable user ${userName}`);
    await expect(userRow).toContainText('DISABLED');
    await expect(userRow.getByRole('button', { name: `Disable ${userName}` })).toBeDisabled();
    await snap('user-disabled');
  });
});
