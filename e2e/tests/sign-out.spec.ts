import { expect, test } from '../support/fixtures';
import { signIn } from '../support/console';

// "Sign out" goes to a plain /sign-in even when the page left behind still asks the API something:
// once the session is gone its queries answer 401, and that must not turn the sign-out into
// "/sign-in?next=<page>", which would bring the next person to sign in on this browser back to the
// page just left. Made to happen every run: the sign-in page loads slowly (so the page left behind
// stays mounted after the session has ended) and the page's clock is moved past the approval
// inbox's 10 s poll in that window.
test('signing out while the page left behind still polls the API lands on a plain /sign-in', async ({ page, stack }) => {
  await page.clock.install();
  await signIn(page, stack.bootstrapApiKey);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
  await expect(page).toHaveURL(/\/selfconfig\/approvals$/);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

  await page.route(/\/sign-in(\.txt)?(\?|$)/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await route.continue().catch(() => undefined);
  });
  let refused = 0;
  page.on('response', async (response) => {
    if (response.url().endsWith('/graphql') && (await response.text().catch(() => '')).includes('"UNAUTHENTICATED"')) refused += 1;
  });

  const signedOut = page.waitForResponse((response) => response.url().endsWith('/auth/session') && response.request().method() === 'DELETE');
  await page.getByRole('button', { name: 'Sign out' }).click();
  expect((await signedOut).status()).toBe(204);
  await page.clock.fastForward(11_000);
  await expect.poll(() => refused, { message: 'the inbox polled after the session had ended and was refused' }).toBeGreaterThan(0);
  await expect(page.getByLabel('API key')).toBeVisible({ timeout: 15_000 });
  await expect(page).toHaveURL(/\/sign-in$/);
});
