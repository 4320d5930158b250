import type { Locator, Page } from '@playwright/test';
import { createReadyNamespace, createSecret, secretOptions, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { expectVisibleFocus, tabUntil } from '../support/focus';
import { createUserInPage, gqlInPage } from '../support/graphql';

const isFocused = (locator: Locator) => () => locator.evaluate((el) => el === document.activeElement);

async function focusedText(page: Page): Promise<string> {
  return page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText ?? '');
}

// Journey (f): the grant journey by keyboard alone, with a visible focus ring (computed
// style, 3:1 contrast) at every stop, in both colour schemes.
for (const colorScheme of ['light', 'dark'] as const) {
  test(`A2 A3 journey (f): grant by keyboard alone, focus visible at every step (${colorScheme})`, async ({ page, stack, snap }) => {
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
  });
}
