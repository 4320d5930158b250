import type { Locator, Page } from '@playwright/test';
import { createReadyNamespace, createSecret, secretOptions, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { expectVisibleFocus, tabUntil, watchFocusFalls } from '../support/focus';
import { createUserInPage, gqlInPage } from '../support/graphql';

const isFocused = (locator: Locator) => () => locator.evaluate((el) => el === document.activeElement);

async function focusedText(page: Page): Promise<string> {
  return page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText ?? '');
}

// Journey (f): grant → deploy → rotate → redeploy by keyboard alone, with a visible focus ring
// (computed style, 3:1 contrast) at every stop and focus never fallen to <body> between them
// (watchFocusFalls), in both colour schemes; the dialogs and toasts on the way are the primitives
// library's (Radix), so Escape closes them and focus returns to what opened them.
for (const colorScheme of ['light', 'dark'] as const) {
  test(`A2 A3 journey (f): grant, deploy, rotate and redeploy by keyboard alone, focus visible at every step and never resting on the body (${colorScheme})`, async ({ page, stack, snap }) => {
    test.setTimeout(300_000); // setup through the UI, then dozens of Tab stops, each one measured
    const stamp = `${Date.now().toString(36)}${colorScheme[0]}`;
    const namespaceName = `e2e-kb-${stamp}`;
    const userName = `kb-user-${stamp}`;
    await signIn(page, stack.bootstrapApiKey);
    const namespaceId = await createReadyNamespace(page, namespaceName);
    const secretId = await createSecret(page, namespaceId, 'kb-token');
    await createSecret(page, namespaceId, 'kb-other');
    const userId = await createUserInPage(page, userName);
    // An agent whose configuration binds kb-token: its page offers the missing grant.
    const cfg = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
      page,
      'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
      { input: { namespaceId, name: 'kb-gateway', values: {}, secretBindings: [{ envName: 'KB_TOKEN', source: { id: secretId } }] } },
    );
    const agent = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
      { input: { namespaceId, name: 'kb-agent', configurationId: cfg.createConfiguration.configuration.id } },
    );
    await page.emulateMedia({ colorScheme });

    await test.step('from the Access page: Tab to the subject, choose the user from the listbox with the arrow keys', async () => {
      await page.goto(`/access?namespace=${namespaceId}`);
      await expect(page.getByRole('heading', { name: `Access in ${namespaceName}`, level: 1 })).toBeVisible();
      await expect(page.getByLabel('Role')).toHaveValue('rol_secret-operator');
      const subject = page.getByRole('combobox', { name: 'Subject ID' });
      await tabUntil(page, isFocused(subject), 'the subject field');
      await page.keyboard.type(userName);
      await page.keyboard.press('ArrowDown');
      await expect(subject).toHaveAttribute('aria-expanded', 'true');
      const active = await subject.getAttribute('aria-activedescendant');
      expect(active).toBeTruthy();
      await expect(page.locator(`[id="${active}"]`)).toContainText(`user ${userName}`);
      await snap(`${colorScheme}-keyboard-listbox`);
      await page.keyboard.press('Enter');
      await expect(subject).toHaveValue(userId);
      await expect(subject).toHaveAttribute('aria-expanded', 'false');
      await expectVisibleFocus(page, 'subject after choosing');
    });

    await test.step('Tab through role (least privilege already), scope (one secret), and pick the secret by typing', async () => {
      const role = page.getByLabel('Role');
      await tabUntil(page, isFocused(role), 'the role');
      await expect(role).toHaveValue('rol_secret-operator');
      const oneSecret = page.getByLabel('Exactly one secret');
      await tabUntil(page, isFocused(oneSecret), 'the scope');
      await expect(oneSecret).toBeChecked();
      // The secret picker searches the namespace's secrets by prefix (any number of them).
      const secret = page.getByRole('combobox', { name: 'Secret', exact: true });
      await tabUntil(page, isFocused(secret), 'the secret');
      await page.keyboard.type('kb-token');
      const option = secretOptions(page, 'Secret').getByRole('option', { name: /^kb-token v\d+$/ });
      await expect(option).toBeVisible();
      await page.keyboard.press('ArrowDown');
      await expect(secret).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id')) ?? 'missing');
      await page.keyboard.press('Enter');
      await expect(secret).toHaveValue('kb-token');
      await expect(secret).toHaveAttribute('aria-expanded', 'false');
      await expectVisibleFocus(page, 'secret after choosing');
      const grant = page.getByRole('button', { name: 'Grant', exact: true });
      await tabUntil(page, isFocused(grant), 'the Grant button');
      await snap(`${colorScheme}-keyboard-before-grant`);
      await page.keyboard.press('Enter');
    });

    await test.step('after submitting, focus is on the answer, which names what was granted', async () => {
      const outcome = page.getByTestId('grant-outcome');
      await expect(outcome).toContainText(`Granted: secret-operator to ${userName}`);
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-outcome'))).toBe('success');
      await expectVisibleFocus(page, 'the grant outcome');
      expect(await focusedText(page)).toContain('secret kb-token');
      await snap(`${colorScheme}-keyboard-granted`);
    });

    await test.step('a tab link by keyboard: focus moves to the new page\'s heading', async () => {
      const agentsTab = page.getByRole('navigation', { name: `Sections of ${namespaceName}` }).getByRole('link', { name: 'Agents' });
      await agentsTab.focus();
      await expectVisibleFocus(page, 'the Agents tab');
      await page.keyboard.press('Enter');
      const heading = page.getByRole('heading', { name: `Agents in ${namespaceName}`, level: 1 });
      await expect(heading).toBeVisible();
      await expect.poll(() => heading.evaluate((el) => el === document.activeElement)).toBe(true);
      await expectVisibleFocus(page, 'the heading after navigating');
    });

    await test.step('A3 on the agent page, "Grant it" by keyboard grants secret-operator on exactly that secret; focus goes to Deploy', async () => {
      await page.goto(`/agents?namespace=${namespaceId}&id=${agent.createAgent.agent.id}`);
      // The one offer of the grant: the failing deploy check (the missing-grants list points to it).
      await expect(page.getByRole('button', { name: /^Grant it/ })).toHaveCount(1);
      const fix = page.getByRole('button', { name: /^Grant it\s*:\s*secret-operator on secret kb-token/ });
      await tabUntil(page, isFocused(fix), 'Grant it');
      await page.keyboard.press('Enter');
      const missing = page.getByTestId('missing-grants');
      await expect(missing).toContainText('Nothing missing');
      const deploy = page.getByTestId('deploy').getByRole('button', { name: 'Deploy' });
      await expect(deploy).toBeEnabled();
      await expect.poll(() => deploy.evaluate((el) => el === document.activeElement)).toBe(true);
      await expectVisibleFocus(page, 'the Deploy button after Grant it');
      const grants = page.getByRole('table', { name: "Grants of the agent's service principal" });
      await expect(grants).toContainText('secret-operator');
      await expect(grants).toContainText('secret kb-token');
      await expect(grants).not.toContainText(`namespace ${namespaceName}`);
      await snap(`${colorScheme}-keyboard-grant-it`);
    });

    // From here every mutation answers 400 ms late, as on a slow link: a control disabled while its
    // request runs would leave focus on <body> for many frames, which watchFocusFalls counts.
    await page.route('**/graphql', async (route) => {
      if (/^\s*mutation\b/.test(String(route.request().postDataJSON()?.query ?? ''))) await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    const falls = await watchFocusFalls(page);
    await test.step('Enter deploys: focus stays on a control while it runs, the revision becomes active', async () => {
      await page.keyboard.press('Enter');
      const revision = page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 1/ }) });
      await expect(revision.getByTestId('revision-state')).toHaveText('ACTIVE', { timeout: 90_000 });
      await expect(page.getByTestId('deploy').getByRole('button', { name: 'Deploy again' })).toBeVisible();
      await expectVisibleFocus(page, 'after the deploy');
    });

    await test.step('Stop asks in an alert dialog: Escape closes it and focus is back on Stop', async () => {
      const stop = page.getByRole('button', { name: 'Stop kb-agent' });
      await tabUntil(page, isFocused(stop), 'Stop');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('alertdialog', { name: /^Stop/ });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole('textbox')).toBeFocused();
      await expectVisibleFocus(page, 'the name field of the Stop dialog');
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      await expect.poll(() => stop.evaluate((el) => el === document.activeElement)).toBe(true);
      await expectVisibleFocus(page, 'Stop after Escape');
      expect(await falls(), 'focus fell to <body> between deploy and the Stop dialog').toEqual([]);
    });

    await page.goto(`/secrets?namespace=${namespaceId}`);
    await expect(page.getByRole('heading', { name: `Secrets in ${namespaceName}`, level: 1 })).toBeVisible();
    const actions = page.getByRole('button', { name: 'Actions for kb-token', exact: true });
    await tabUntil(page, isFocused(actions), 'Actions for kb-token');
    const fallsOnSecrets = await watchFocusFalls(page);
    const rotate = page.getByRole('menu', { name: 'Actions for kb-token' }).getByRole('menuitem', { name: 'Rotate…' });
    await test.step('rotate by keyboard: the row’s menu opens on Rotate, the panel opens, Escape closes it onto Actions; the value is stored, not delivered', async () => {
      await page.keyboard.press('Enter');
      await expect(rotate).toBeFocused();
      await expectVisibleFocus(page, 'Rotate in the row’s menu');
      await page.keyboard.press('Enter');
      const value = page.getByLabel('New value for kb-token');
      await expect.poll(() => actions.evaluate((el) => el === document.activeElement)).toBe(true);
      await tabUntil(page, isFocused(value), 'the new value');
      await page.keyboard.press('Escape');
      await expect(value).toHaveCount(0);
      await expect.poll(() => actions.evaluate((el) => el === document.activeElement)).toBe(true);
      await expectVisibleFocus(page, 'Actions after Escape');
      await page.keyboard.press('Enter');
      await expect(rotate).toBeFocused();
      await page.keyboard.press('Enter');
      await tabUntil(page, isFocused(value), 'the new value');
      await page.keyboard.type(`kb-rotated-${stamp}`);
      await page.keyboard.press('Enter');
      const delivery = page.getByTestId('delivery');
      await expect(delivery).toContainText('Stored, not delivered.');
      await expectVisibleFocus(page, 'after storing the new value');
    });

    await test.step('redeploy the consumers by keyboard: focus ends on the panel, the toast is reached with F8 and dismissed with Escape', async () => {
      const open = page.getByTestId('delivery').getByRole('button', { name: 'Redeploy consumers…' });
      await tabUntil(page, isFocused(open), 'Redeploy consumers…');
      await page.keyboard.press('Enter');
      const panel = page.getByTestId('redeploy-consumers');
      const redeploy = panel.getByRole('button', { name: 'Redeploy consumers' });
      await tabUntil(page, isFocused(redeploy), 'Redeploy consumers');
      await page.keyboard.press('Enter');
      await expect(panel.getByTestId('redeploy-done')).toContainText('No running revision holds an older version of kb-token', { timeout: 90_000 });
      const where = await expectVisibleFocus(page, 'after the redeploy');
      const toasts = page.getByTestId('toasts');
      await expect(toasts).toContainText('Every running consumer of kb-token now holds version 2.');
      await page.keyboard.press('F8');
      await expect.poll(() => toasts.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      await page.keyboard.press('Tab');
      await expectVisibleFocus(page, 'the toast');
      await page.keyboard.press('Escape');
      await expect(toasts.getByRole('status')).toHaveCount(0);
      await expect.poll(async () => (await focusRingName(page)) === where.name).toBe(true);
      await expectVisibleFocus(page, 'back from the toasts');
      await snap(`${colorScheme}-keyboard-redeployed`);
      expect(await fallsOnSecrets(), 'focus fell to <body> between rotate and redeploy').toEqual([]);
    });
  });
}

async function focusRingName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el ? (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 60) : '';
  });
}
