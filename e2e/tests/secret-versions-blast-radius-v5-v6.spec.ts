import type { Page } from '@playwright/test';
import { accessibleEverywhere } from '../support/a11y';
import { chooseRowAction, createReadyNamespace, rowActions, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';

// V5 and V6 in the console, before the click. A secret bound (through a configuration) to one running
// agent is rotated once in the rotate panel (MANUAL policy: the agent keeps version 1). The panel then
// lists versions 2 (current) and 1 (delivered), the exposure matrix shows the agent running version 1,
// and the blast radius counts and names what a rotation touches; the delete confirmation shows the
// same blast radius before anything is deleted. Data is set up through GraphQL.

/** A secret at version 1, a configuration binding it as TOKEN, and one agent running it. */
async function boundSecret(page: Page, namespaceId: string, secretName: string, agentName: string): Promise<string> {
  const secret = await gqlInPage<{ createSecret: { secret: { id: string } } }>(
    page,
    'mutation($input: CreateSecretInput!) { createSecret(input: $input) { ... on CreateSecretSuccess { secret { id } } } }',
    { input: { namespaceId, name: secretName, value: `v1-${Date.now()}` } },
  );
  const secretId = secret.createSecret.secret.id;
  const configuration = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
    page,
    'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
    { input: { namespaceId, name: `${secretName}-conf`, values: {}, secretBindings: [{ envName: 'TOKEN', source: { id: secretId } }] } },
  );
  const created = await gqlInPage<{ createAgent: { servicePrincipalId: string; agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { servicePrincipalId agent { id } } } }',
    { input: { namespaceId, name: agentName, configurationId: configuration.createConfiguration.configuration.id } },
  );
  await grantSecretOperator(page, created.createAgent.servicePrincipalId, namespaceId, secretId);
  await deployToActive(page, created.createAgent.agent.id, 90_000);
  return secretId;
}

test('V5 versions and exposure, V6 blast radius: the rotate panel and the delete confirmation show what they touch', async ({
  page,
  stack,
  snap,
}) => {
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-v5v6-${stamp}`);
  await boundSecret(page, namespaceId, 'api-token', 'delta');

  await page.goto(`/secrets?namespace=${namespaceId}`);
  await chooseRowAction(page, 'api-token', 'Rotate…');
  const versions = page.getByTestId('secret-versions');
  const exposure = page.getByTestId('secret-exposure');
  const blast = page.getByTestId('blast-radius');

  await test.step('V6 before the rotation: the blast radius counts and names the agent', async () => {
    await expect(blast.getByRole('heading', { name: 'What a rotation touches' })).toBeVisible();
    await expect(blast.getByTestId('blast-radius-total')).toContainText('1 configuration, 1 agent, 1 running revision');
    await expect(blast.getByTestId('blast-radius-hidden')).toHaveCount(0);
    await expect(blast.getByRole('list', { name: 'Agents a rotation touches' }).getByRole('listitem')).toHaveText([/^delta /]);
    await expect(versions.getByTestId('secret-version-1')).toContainText('current');
    await accessibleEverywhere(page, 'v5v6-before-rotation');
  });

  await test.step('V5 rotate once: versions 2 (current) and 1 (delivered); the agent still runs version 1', async () => {
    await page.getByLabel('New value for api-token').fill(`v2-${stamp}`);
    await page.getByRole('button', { name: 'Store new value' }).click();
    await expect(page.getByTestId('delivery')).toContainText('Now at version 2');
    // The rotation invalidated the versions: newest first, 2 current, 1 delivered and kept.
    const rows = versions.getByRole('row').filter({ has: page.getByRole('rowheader') });
    await expect(rows.getByRole('rowheader')).toHaveText(['2', '1']);
    const v2 = versions.getByTestId('secret-version-2');
    const v1 = versions.getByTestId('secret-version-1');
    await expect(v2.getByRole('cell').nth(0)).toHaveText('current');
    await expect(v1.getByRole('cell').nth(0)).toHaveText('');
    await expect(v2.getByRole('cell').nth(2)).toHaveText('never'); // first delivered: no revision holds it
    await expect(v1.getByRole('cell').nth(2).locator('time')).toHaveCount(1); // first delivered when delta went active
    await expect(v1.getByRole('cell').nth(4)).toHaveText('kept');
    const exposed = exposure.getByTestId('exposure-row');
    await expect(exposed).toHaveCount(1);
    await expect(exposed.getByRole('rowheader')).toHaveText('delta');
    await expect(exposed.getByTestId('exposure-version')).toHaveText('1');
    await expect(exposed).toContainText('TOKEN');
    await expect(exposure.getByTestId('exposure-hidden')).toHaveCount(0);
    await snap('versions-exposure');
    await accessibleEverywhere(page, 'v5v6-after-rotation');
  });

  await test.step('V6 the delete confirmation shows the blast radius before anything is deleted', async () => {
    await chooseRowAction(page, 'api-token', 'Delete…');
    const dialog = page.getByRole('alertdialog');
    await expect(dialog).toBeVisible();
    const radius = dialog.getByTestId('blast-radius');
    await expect(radius.getByRole('heading', { name: 'What a delete touches' })).toBeVisible();
    await expect(radius.getByTestId('blast-radius-total')).toContainText('1 configuration, 1 agent, 1 running revision');
    await expect(radius.getByRole('list', { name: 'Agents a delete touches' }).getByRole('listitem')).toHaveText([/^delta /]);
    await snap('delete-blast-radius');
    await accessibleEverywhere(page, 'v6-delete-confirmation');
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    // Nothing was deleted: the row is still there.
    await expect(rowActions(page, 'api-token')).toBeVisible();
  });
});
