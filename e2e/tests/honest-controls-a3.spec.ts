import { expect, test } from '../support/fixtures';
import { createReadyNamespace, createSecret, rowActionItem, rowActions, signIn, signOut } from '../support/console';
import { createUserWithNamespaceRole, gqlInPage } from '../support/graphql';

// Honest controls (viewerCan): a read-only viewer sees Rotate and Delete in a secret's Actions menu
// and Delete on an agent as disabled with the reason, reachable by keyboard, and choosing them opens
// nothing; the
// administrator who made them has them enabled. The API side (the same decision the mutation
// makes, for every kind of reader) is apps/api/src/graphql/viewer-can.test.ts.

test('A3 a namespace viewer is shown what it may not do as disabled controls with the reason; the administrator is not', async ({ page, stack, snap }) => {
  const suffix = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `honest-${suffix}`);
  const secretName = `key-${suffix}`;
  await createSecret(page, namespaceId, secretName);
  const agent = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
    { input: { namespaceId, name: `agent-${suffix}` } },
  );
  const agentId = agent.createAgent.agent.id;
  const configurationName = `cfg-${suffix}`;
  const configuration = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
    page,
    'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
    { input: { namespaceId, name: configurationName, values: {} } },
  );
  const configurationId = configuration.createConfiguration.configuration.id;
  const viewerKey = await createUserWithNamespaceRole(page, `viewer-${suffix}`, 'rol_namespace-viewer', namespaceId);
  const editorKey = await createUserWithNamespaceRole(page, `editor-${suffix}`, 'rol_namespace-editor', namespaceId);

  await test.step('the administrator: Rotate and Delete are enabled', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}`);
    const rotate = await rowActionItem(page, secretName, 'Rotate…');
    await expect(rotate).toBeVisible();
    await expect(rotate).not.toHaveAttribute('aria-disabled', 'true');
    await expect(rotate).toHaveAccessibleDescription('');
    await expect(await rowActionItem(page, secretName, 'Delete…')).not.toHaveAttribute('aria-disabled', 'true');
    await page.keyboard.press('Escape');
    await page.goto(`/configurations?namespace=${namespaceId}&id=${configurationId}`);
    await expect(page.getByRole('heading', { name: `Edit ${configurationName}` })).toBeVisible();
    await expect(page.getByRole('button', { name: `Delete ${configurationName}` })).not.toHaveAttribute('aria-disabled', 'true');
  });

  await test.step('the viewer: Rotate and Delete are disabled, say why, and open nothing', async () => {
    await signOut(page);
    await signIn(page, viewerKey);
    await page.goto(`/secrets?namespace=${namespaceId}`);
    // By keyboard: Enter on the Actions button opens the menu on its first item.
    await rowActions(page, secretName).focus();
    await page.keyboard.press('Enter');
    const rotate = await rowActionItem(page, secretName, 'Rotate…');
    await expect(rotate).toBeFocused();
    await expect(rotate).toHaveAttribute('aria-disabled', 'true');
    await expect(rotate).toHaveAccessibleName('Rotate…');
    await expect(rotate).toHaveAccessibleDescription(`You may read ${secretName} but not rotate it: that needs update on the secret.`);
    const remove = await rowActionItem(page, secretName, 'Delete…');
    await expect(remove).toHaveAttribute('aria-disabled', 'true');
    await expect(remove).toHaveAccessibleDescription(/not delete it: that needs delete on the secret/);
    await snap('viewer-secrets-not-allowed');
    // Reachable by the arrow keys (the reason is read with it), and choosing it does nothing: the menu stays.
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await expect(remove).toBeFocused();
    await page.keyboard.press('Enter');
    await remove.click({ force: true }); // aria-disabled: Playwright would wait for it to be enabled
    await expect(remove).toBeVisible();
    await expect(page.getByLabel('New value')).toHaveCount(0);
    await expect(page.getByRole('alertdialog')).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(rowActions(page, secretName)).toBeFocused();
  });

  await test.step('the viewer on the agent page: Delete is disabled with its reason', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    const remove = page.getByRole('button', { name: `Delete agent-${suffix}` });
    await expect(remove).toHaveAttribute('aria-disabled', 'true');
    await expect(remove).toHaveAccessibleDescription(/not delete it: that needs delete on the agent/);
    await remove.click({ force: true });
    await expect(page.getByRole('alertdialog')).toHaveCount(0);
  });

  await test.step('the viewer on the configuration page: no editor, the reason instead; Delete disabled with its reason', async () => {
    await page.goto(`/configurations?namespace=${namespaceId}&id=${configurationId}`);
    await expect(page.getByTestId('configuration-read-only')).toHaveText(`You may read ${configurationName} but not edit it: that needs update on the configuration.`);
    await expect(page.getByRole('heading', { name: `Edit ${configurationName}` })).toHaveCount(0);
    const remove = page.getByRole('button', { name: `Delete ${configurationName}` });
    await expect(remove).toHaveAttribute('aria-disabled', 'true');
    await expect(remove).toHaveAccessibleDescription(/not delete it: that needs delete on the configuration/);
  });

  await test.step('an editor rotates, but is shown the rotation policy editor and the namespace default as an administrator\'s', async () => {
    await signOut(page);
    await signIn(page, editorKey);
    await page.goto(`/secrets?namespace=${namespaceId}`);
    const rotate = await rowActionItem(page, secretName, 'Rotate…');
    await expect(rotate).not.toHaveAttribute('aria-disabled', 'true');
    await rotate.click();
    const policy = page.getByTestId('rotation-policy');
    await expect(policy).toBeVisible();
    const edit = policy.getByRole('button', { name: 'Edit rotation policy' });
    await expect(edit).toHaveAttribute('aria-disabled', 'true');
    await expect(edit).toHaveAccessibleDescription(`You may read ${secretName} but not set the rotation policy of it: that needs administer on the secret.`);
    await edit.click({ force: true });
    await expect(policy.getByRole('button', { name: 'Save rotation policy' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Show the rotation default' }).click();
    await expect(page.getByTestId('namespace-rotation-default')).toContainText('A namespace administrator sets it.');
    await expect(page.getByRole('button', { name: 'Edit the namespace default' })).toHaveCount(0);
    await snap('editor-policy-not-allowed');
  });
});
