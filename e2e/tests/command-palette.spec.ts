import { expect, test } from '../support/fixtures';
import { axe } from '../support/a11y';
import { chooseRowAction, createReadyNamespace, createSecret, rowActions, signIn, signOut } from '../support/console';
import { expectVisibleFocus } from '../support/focus';
import { createUserWithNamespaceRole, gqlInPage } from '../support/graphql';

// The command palette: Ctrl+K from any page, search by name across kinds,
// arrow keys and Enter to go, "rotate …" and "deploy …" to act; Escape closes it and focus returns
// to where it was. A viewer of one namespace never sees another namespace's names. The API side,
// every reader against its read path, is apps/api/src/graphql/search.test.ts.

test('P6 the command palette finds by name what the viewer may read, goes there by keyboard, acts, and gives focus back', async ({ page, stack, snap }) => {
  const suffix = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const mine = await createReadyNamespace(page, `palette-${suffix}`);
  const other = await createReadyNamespace(page, `palette-other-${suffix}`);
  const secretName = `palette-token-${suffix}`;
  const secretId = await createSecret(page, mine, secretName);
  const hiddenName = `palette-hidden-${suffix}`;
  await createSecret(page, other, hiddenName);
  const agentName = `palette-bot-${suffix}`;
  const created = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
    { input: { namespaceId: mine, name: agentName } },
  );
  const agentId = created.createAgent.agent.id;
  const viewerKey = await createUserWithNamespaceRole(page, `palette-viewer-${suffix}`, 'rol_namespace-viewer', mine);
  const palette = page.getByRole('dialog', { name: 'Search and go' });
  const box = palette.getByRole('combobox');

  await test.step('Ctrl+K opens it; Escape closes it and focus returns to what had it', async () => {
    await page.goto('/namespaces');
    const search = page.getByRole('button', { name: /^Search/ });
    await search.focus();
    await page.keyboard.press('Control+k');
    await expect(box).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(palette).toHaveCount(0);
    await expect(search).toBeFocused();
    await expectVisibleFocus(page, 'the Search button after Escape');
  });

  await test.step('type, arrow down, Enter: the agent page with focus on its Deploy section', async () => {
    await page.getByRole('button', { name: /^Search/ }).click();
    await box.fill(`deploy palette-bot-${suffix}`);
    const option = palette.getByRole('option', { name: `Deploy agent ${agentName} in palette-${suffix}` });
    await expect(option).toBeVisible();
    await expect(palette.getByRole('option')).toHaveCount(1);
    await axe(page, 'the command palette with results');
    await snap('command-palette-deploy');
    await page.keyboard.press('ArrowDown');
    await expect(box).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id'))!);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/agents\\?namespace=${mine}&id=${agentId}#deploy$`));
    await expect(page.getByRole('heading', { name: 'Deploy', exact: true })).toBeFocused();
    await expectVisibleFocus(page, 'the Deploy heading after the palette');
  });

  await test.step('"rotate": the secret page with its rotate form open and focused; closing it returns focus to Rotate', async () => {
    await page.keyboard.press('Control+k');
    await box.fill(`rotate ${secretName}`);
    await palette.getByRole('option', { name: `Rotate secret ${secretName} in palette-${suffix}` }).click();
    await expect(page).toHaveURL(new RegExp(`/secrets\\?namespace=${mine}&id=${secretId}&rotate=1#rotate$`));
    await expect(page.getByRole('heading', { name: `Rotate ${secretName}` })).toBeFocused();
    await page.getByLabel('New value').focus();
    await page.keyboard.press('Escape');
    await expect(page.getByLabel('New value')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Rotate', exact: true })).toBeFocused();
    await expectVisibleFocus(page, 'Rotate after Escape on the secret page');
    // The same in the secrets list: Escape closes a row's rotate panel, and so does Cancel; focus
    // goes back to the row's Actions button either way, never to the page's body.
    await page.goto(`/secrets?namespace=${mine}`);
    await chooseRowAction(page, secretName, 'Rotate…');
    await page.getByLabel('New value').focus();
    await page.keyboard.press('Escape');
    await expect(page.getByLabel('New value')).toHaveCount(0);
    await expect(rowActions(page, secretName)).toBeFocused();
    await chooseRowAction(page, secretName, 'Rotate…');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(rowActions(page, secretName)).toBeFocused();
  });

  await test.step('a viewer of one namespace finds its names, never the other namespace’s, and is offered no rotation it may not do', async () => {
    await signOut(page);
    await signIn(page, viewerKey);
    // The shortcut is there once the header knows who is signed in (its Search button shows).
    await expect(page.getByRole('button', { name: /^Search/ })).toBeVisible();
    await page.keyboard.press('Control+k');
    await box.fill('palette-');
    await expect(palette.getByRole('option', { name: `Open secret ${secretName} in palette-${suffix}` })).toBeVisible();
    await expect(palette.getByRole('option', { name: `Open namespace palette-${suffix}` })).toBeVisible();
    await expect(palette.getByRole('option', { name: new RegExp(hiddenName) })).toHaveCount(0);
    await expect(palette.getByRole('option', { name: new RegExp(`palette-other-${suffix}`) })).toHaveCount(0);
    await box.fill(hiddenName);
    await expect(palette.getByRole('status')).toHaveText(`Nothing you may see is named like “${hiddenName}”.`);
    // The rotate action leads to the page, which says why the viewer may not rotate.
    await box.fill(`rotate ${secretName}`);
    // Enter acts on the answer to what is typed, not on the last text's list still shown.
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/namespaces$/);
    await expect(palette.getByRole('option', { name: `Rotate secret ${secretName} in palette-${suffix}` })).toBeVisible();
    await expect(palette.getByRole('status')).toHaveText('1 result; arrow keys to choose, Enter to go.');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: `Rotate ${secretName}` })).toHaveAttribute('aria-disabled', 'true');
    await expect(page.getByLabel('New value')).toHaveCount(0);
  });
});
