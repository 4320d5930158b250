import { expect, test } from '../support/fixtures';
import { createConfiguration, createReadyNamespace, createSecret, signIn } from '../support/console';

test('C1 C4 C5 a configuration binds a secret, and a save from a stale generation shows CONFLICT', async ({
  page,
  stack,
  snap,
}) => {
  const namespaceName = `e2e-cfg-${Date.now().toString(36)}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);
  const secretId = await createSecret(page, namespaceId, 'model-token');

  await test.step('the namespace tabs lead to Configurations', async () => {
    await page.getByRole('navigation', { name: `Sections of ${namespaceName}` }).getByRole('link', { name: 'Configurations' }).click();
    await expect(page).toHaveURL(/\/configurations\?namespace=ns_/);
    await expect(page.getByRole('heading', { name: `Configurations in ${namespaceName}`, level: 1 })).toBeVisible();
    await expect(page.getByText('No configurations in this namespace yet.')).toBeVisible();
  });

  await test.step('invalid JSON is refused before anything is sent', async () => {
    await page.getByLabel('Configuration name').fill('gateway');
    await page.getByLabel('Values (JSON)').fill('{"agents": ');
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid JSON' })).toBeVisible();
    await expect(page.getByLabel('Values (JSON)')).toHaveAttribute('aria-invalid', 'true');
    await snap('invalid-json');
  });

  await test.step('C1 create it with one binding', async () => {
    await page.getByLabel('Values (JSON)').fill('{"agents": {"defaults": {"model": "anthropic/claude"}}}');
    await page.getByRole('button', { name: 'Add binding' }).click();
    await page.getByLabel('Env name of binding 1').fill('MODEL_TOKEN');
    await page.getByLabel('Secret of binding 1').selectOption({ label: 'model-token' });
    await snap('configuration-form');
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Configuration gateway created' })).toBeVisible();
    const row = page.getByRole('row', { name: /gateway/ });
    await expect(row.getByRole('cell').nth(1)).toHaveText('1'); // generation
    await expect(row.getByRole('cell').nth(2)).toHaveText('1'); // bindings
    await snap('configuration-created');
  });

  await test.step('the detail shows the binding with its secret name', async () => {
    await page.getByRole('link', { name: 'Open configuration gateway' }).click();
    await expect(page.getByRole('heading', { name: 'Configuration gateway', level: 1 })).toBeVisible();
    const binding = page.getByRole('table', { name: 'Secret bindings' }).first().getByRole('row', { name: /MODEL_TOKEN/ });
    await expect(binding).toContainText('model-token');
    await expect(binding).toContainText(secretId);
  });

  await test.step('C5 someone else saves first: this editor gets CONFLICT', async () => {
    const configurationId = new URL(page.url()).searchParams.get('id');
    // Another writer, through GraphQL with the same session.
    const other = await page.evaluate(async (id) => {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($input: UpdateConfigurationInput!) { updateConfiguration(input: $input) { __typename } }',
          variables: { input: { id, expectedGeneration: 1, values: { agents: {} } } },
        }),
      });
      return (await response.json()) as { data: { updateConfiguration: { __typename: string } } };
    }, configurationId);
    expect(other.data.updateConfiguration.__typename).toBe('UpdateConfigurationSuccess');

    await page.getByRole('button', { name: 'Save configuration' }).click();
    const conflict = page.getByRole('alert').filter({ hasText: 'Conflict' });
    await expect(conflict).toBeVisible();
    await expect(conflict).toHaveAttribute('data-error-code', 'STALE_GENERATION');
    await snap('configuration-conflict');
  });

  await test.step('load the latest generation and save', async () => {
    await page.reload();
    await expect(page.getByTestId('editing-generation')).toHaveText('2');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Now at generation 3' })).toBeVisible();
    await expect(page.getByTestId('generation')).toHaveText('3');
    await snap('configuration-saved');
  });
});

test('A1 an agent using a configuration and a harness credential shows its service principal, which holds no grants yet', async ({
  page,
  stack,
  snap,
}) => {
  const namespaceName = `e2e-agt-${Date.now().toString(36)}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);
  await createSecret(page, namespaceId, 'channel-token');
  await createSecret(page, namespaceId, 'anthropic-key');
  await createConfiguration(page, namespaceId, 'gateway', { envName: 'CHANNEL_TOKEN', secretName: 'channel-token' });

  await page.getByRole('navigation', { name: `Sections of ${namespaceName}` }).getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByRole('heading', { name: `Agents in ${namespaceName}`, level: 1 })).toBeVisible();

  let servicePrincipalId = '';
  await test.step('A1 create it: the answer names its service principal', async () => {
    await page.getByLabel('Agent name').fill('helper');
    await page.getByLabel('Configuration').selectOption({ label: 'gateway' });
    await page.getByLabel('Provider').selectOption('anthropic');
    await page.getByLabel('Credential secret').selectOption({ label: 'anthropic-key' });
    await page.getByLabel('Enabled').check();
    await page.getByLabel('skills').check();
    await snap('agent-form');
    await page.getByRole('button', { name: 'Create agent' }).click();
    const callout = page.getByTestId('service-principal');
    await expect(callout).toContainText(/grant it operate on the secrets it consumes/i);
    await expect(callout).toContainText('channel-token');
    await expect(callout).toContainText('anthropic-key');
    servicePrincipalId = (await callout.locator('.principal-id').innerText()).trim();
    expect(servicePrincipalId).not.toBe('');
    const row = page.getByRole('row', { name: /helper/ });
    await expect(row).toContainText(servicePrincipalId);
    await expect(row).toContainText('gateway');
    await expect(row).toContainText('anthropic');
    await expect(row).toContainText('ANTHROPIC_API_KEY');
    await snap('agent-created');
  });

  await test.step('its detail lists the grants of its service principal: none yet', async () => {
    await page.getByRole('link', { name: 'Open agent helper' }).click();
    await expect(page.getByRole('heading', { name: 'Agent helper', level: 1 })).toBeVisible();
    await expect(page.getByTestId('service-principal')).toContainText(servicePrincipalId);
    await expect(page.getByText('No grants yet')).toBeVisible();
    await expect(page.getByText('enabled: skills')).toBeVisible();
    await snap('agent-detail');
  });
});
