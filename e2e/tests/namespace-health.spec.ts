import { expect, test } from '../support/fixtures';
import { axe } from '../support/a11y';
import { createReadyNamespace, createSecret, signIn } from '../support/console';
import { gqlInPage } from '../support/graphql';

// The namespaces list at a glance: each row's health word and counts, and the
// lists its links lead to, filtered by the address (&status=…, &stale=1, the audit log's
// namespace, outcome and time) and saying so. What is counted for every kind of reader, the
// FAILING and ATTENTION cases and the SelfConfig requests waiting are
// apps/api/src/graphql/namespace-health.test.ts.

test('P6 the namespaces list shows each namespace’s health and counts; a filtered list says what it keeps and how to see all', async ({ page, stack }) => {
  const suffix = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const name = `health-${suffix}`;
  const namespaceId = await createReadyNamespace(page, name);
  await createSecret(page, namespaceId, `key-${suffix}`);
  await gqlInPage(page, 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename } }', { input: { namespaceId, name: `bot-${suffix}` } });

  await test.step('the row: OK, one agent (none running), one secret', async () => {
    await page.goto('/namespaces');
    await page.getByLabel('Search namespaces by name').fill(name);
    const health = page.getByRole('row', { name: new RegExp(name) }).getByTestId('namespace-health');
    await expect(health).toContainText('OK');
    await expect(health).toContainText('1 agent (0 running), 1 secret');
    await expect(health.getByRole('link')).toHaveCount(0);
    await axe(page, 'the namespaces list with health');
  });

  await test.step('agents filtered by status: the notice, the empty state, and the way back to all', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&status=failed`);
    await expect(page.getByTestId('list-filter')).toContainText('Only agents whose status is failed');
    await expect(page.getByText('No agents are failed now.')).toBeVisible();
    await page.getByRole('link', { name: 'Show all agents' }).click();
    await expect(page.getByTestId('list-filter')).toHaveCount(0);
    await expect(page.getByRole('row', { name: new RegExp(`bot-${suffix}`) })).toBeVisible();
    await page.goto(`/agents?namespace=${namespaceId}&status=created`);
    await expect(page.getByRole('row', { name: new RegExp(`bot-${suffix}`) })).toBeVisible();
  });

  await test.step('secrets filtered to stale ones: none yet', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}&stale=1`);
    await expect(page.getByTestId('list-filter')).toContainText('Only stale secrets');
    await expect(page.getByText('No stale secrets here now')).toBeVisible();
    await expect(page.getByRole('row', { name: new RegExp(`key-${suffix}`) })).toHaveCount(0);
    await page.getByRole('link', { name: 'Show all secrets' }).click();
    await expect(page.getByRole('row', { name: new RegExp(`key-${suffix}`) })).toBeVisible();
  });

  await test.step('a failure of the last day: counted, the word still OK, and its link is the audit log filtered to it', async () => {
    // Deleting a configuration an agent selects fails (CONFIGURATION_IN_USE), and the audit log records it.
    const created = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
      page,
      'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
      { input: { namespaceId, name: `cfg-${suffix}`, values: {} } },
    );
    const configurationId = created.createConfiguration.configuration.id;
    await gqlInPage(page, 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename } }', { input: { namespaceId, name: `user-${suffix}`, configurationId } });
    const refused = await gqlInPage<{ deleteConfiguration: { __typename: string } }>(page, 'mutation($input: DeleteConfigurationInput!) { deleteConfiguration(input: $input) { __typename } }', { input: { id: configurationId } });
    expect(refused.deleteConfiguration.__typename).toBe('ConfigurationInUseError');

    await page.goto('/namespaces');
    await page.getByLabel('Search namespaces by name').fill(name);
    const health = page.getByRole('row', { name: new RegExp(name) }).getByTestId('namespace-health');
    await expect(health).toContainText('OK');
    await health.getByRole('link', { name: `1 failure in the last day in ${name}` }).click();
    await expect(page).toHaveURL(/\/audit\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('namespaceId')).toBe(namespaceId);
    expect(url.searchParams.get('outcome')).toBe('FAILURE');
    expect(Date.now() - Date.parse(url.searchParams.get('from')!)).toBeGreaterThan(23 * 60 * 60 * 1000);
    const rows = page.getByRole('table', { name: 'Audit events' }).getByRole('row').filter({ hasText: 'configuration.delete' });
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('FAILURE');
  });
});
