import { expect, test } from '../support/fixtures';
import { confirmByTyping, createConfiguration, createReadyNamespace, createSecret, openCreate, pickSecret, signIn } from '../support/console';

test('C1 C2 C4 C5 a configuration binds a secret, a reserved env name is refused on its row, and a save from a stale generation shows CONFLICT', async ({
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
    await openCreate(page, 'New configuration');
    await page.getByLabel('Configuration name').fill('gateway');
    await page.getByLabel('Values (JSON)').fill('{"agents": ');
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid JSON' })).toBeVisible();
    await expect(page.getByLabel('Values (JSON)')).toHaveAttribute('aria-invalid', 'true');
    await snap('invalid-json');
  });

  await test.step('C2 a model-credential env name is reserved: the API refuses it and the row is marked', async () => {
    await page.getByLabel('Values (JSON)').fill('{"agents": {"defaults": {"model": "anthropic/claude"}}}');
    await page.getByRole('button', { name: 'Add binding' }).click();
    await page.getByLabel('Env name of binding 1').fill('OPENAI_API_KEY');
    await pickSecret(page, 'Secret of binding 1', 'model-token');
    await page.getByRole('button', { name: 'Create configuration' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Invalid input' });
    await expect(refused).toHaveAttribute('data-error-code', 'RESERVED_BINDING_NAME');
    await expect(refused.locator('code')).toHaveText(/secretBindings\[0\]\.envName$/);
    await expect(page.getByLabel('Env name of binding 1')).toHaveAttribute('aria-invalid', 'true');
    await snap('reserved-name');
  });

  await test.step('C1 create it with one binding', async () => {
    await page.getByLabel('Env name of binding 1').fill('MODEL_TOKEN');
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

  await test.step('C5 the editor shows what a save would change before it is saved', async () => {
    const values = page.getByLabel('Values (JSON)');
    const changes = page.getByRole('list', { name: 'Changes to save' });
    await expect(changes).toHaveCount(0);
    await expect(page.getByText(/^No changes: saving records generation 2/)).toBeVisible();
    const current = JSON.parse(await values.inputValue()) as Record<string, unknown>;
    await values.fill(JSON.stringify({ ...current, diffProbe: { level: 2 } }, null, 2));
    await expect(changes.getByRole('listitem')).toHaveCount(1);
    await expect(changes.getByRole('listitem')).toHaveAttribute('data-change', 'added');
    await expect(changes).toContainText('$.diffProbe');
    await values.fill('{ not json');
    await expect(page.getByText('The values are not valid JSON yet.')).toBeVisible();
    await values.fill(JSON.stringify(current, null, 2));
    await expect(changes).toHaveCount(0);
    await snap('configuration-diff');
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

test('A1 A3 an agent using a configuration and a harness credential shows its service principal and the grants it still needs', async ({
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
    await openCreate(page, 'New agent');
    await page.getByLabel('Agent name').fill('helper');
    await page.getByLabel('Configuration').selectOption({ label: 'gateway' });
    await page.getByLabel('Provider').selectOption('anthropic');
    await pickSecret(page, 'Credential secret', 'anthropic-key');
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
    const missing = page.getByTestId('missing-grants');
    await expect(missing).toContainText('operate on secret channel-token');
    await expect(missing).toContainText('operate on secret anthropic-key');
    await snap('agent-detail');
  });

  await test.step('A3 grant one missing grant from the agent page: the list points to the deploy checks, the one place that offers it', async () => {
    await expect(page.getByTestId('missing-grants').getByRole('button')).toHaveCount(0);
    await expect(page.getByTestId('missing-grants').getByRole('link', { name: 'deploy checks' })).toHaveAttribute('href', '#agent-deploy-title');
    await expect(page.getByRole('button', { name: /^Grant it/ })).toHaveCount(2);
    await page.getByRole('button', { name: /^Grant it\s*:\s*secret-operator on secret anthropic-key/ }).click();
    const missing = page.getByTestId('missing-grants');
    await expect(missing).not.toContainText('anthropic-key');
    await expect(missing).toContainText('operate on secret channel-token');
    const grants = page.getByRole('table', { name: "Grants of the agent's service principal" });
    await expect(grants).toContainText('secret-operator');
    await expect(grants).toContainText('secret anthropic-key');
    await snap('agent-one-grant-missing');
  });
});

test('C1 A1 A2 an agent\'s service principal is granted operate on exactly the secret its configuration binds, and "why?" shows the evidence', async ({
  page,
  stack,
  snap,
}) => {
  const namespaceName = `e2e-acc-${Date.now().toString(36)}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);
  const secretId = await createSecret(page, namespaceId, 'slack-token');
  await createSecret(page, namespaceId, 'unrelated');

  await test.step('C1 a configuration binds the secret', async () => {
    await createConfiguration(page, namespaceId, 'slack-gateway', { envName: 'SLACK_BOT_TOKEN', secretName: 'slack-token' });
    await expect(page.getByRole('row', { name: /slack-gateway/ }).getByRole('cell').nth(2)).toHaveText('1');
  });

  let servicePrincipalId = '';
  await test.step('A1 an agent uses the configuration and gets a service principal', async () => {
    await page.getByRole('navigation', { name: `Sections of ${namespaceName}` }).getByRole('link', { name: 'Agents' }).click();
    await openCreate(page, 'New agent');
    await page.getByLabel('Agent name').fill('slack-bot');
    await page.getByLabel('Configuration').selectOption({ label: 'slack-gateway' });
    await page.getByRole('button', { name: 'Create agent' }).click();
    const callout = page.getByTestId('service-principal');
    await expect(callout).toContainText(/grant it operate on the secrets it consumes/i);
    await expect(callout).toContainText('slack-token');
    servicePrincipalId = (await callout.locator('.principal-id').innerText()).trim();
    await snap('agent-created');
    await callout.getByRole('link', { name: 'Grant access to this service principal' }).click();
    await expect(page).toHaveURL(/\/access\?namespace=ns_.*subject=spn_/);
    await expect(page.getByRole('heading', { name: `Access in ${namespaceName}`, level: 1 })).toBeVisible();
  });

  const explain = async (secretName: string) => {
    await page.getByLabel('Subject', { exact: true }).fill(servicePrincipalId);
    await page.getByLabel('Action').selectOption('operate');
    await page.getByLabel('Resource kind').selectOption('secret');
    await page.getByLabel('Resource', { exact: true }).selectOption({ label: secretName });
    await page.getByRole('button', { name: 'Explain' }).click();
  };
  const decision = page.getByTestId('decision');

  await test.step('before any grant, "why?" says denied', async () => {
    await explain('slack-token');
    await expect(decision).toContainText('Denied');
    // "why?" names the subject and the secret, not their ids.
    await expect(page.getByTestId('decision-summary')).toContainText('agent slack-bot');
    await expect(page.getByTestId('decision-summary')).not.toContainText(servicePrincipalId);
    await snap('explain-denied');
  });

  await test.step('A2 grant secret-operator on exactly that secret', async () => {
    const subject = page.getByRole('combobox', { name: 'Subject ID' });
    await expect(subject).toHaveValue(servicePrincipalId); // prefilled from the agent page
    // The subject field offers this namespace's agents by service principal, in a listbox.
    await subject.fill('slack');
    await subject.press('ArrowDown');
    const option = page.getByRole('option', { name: new RegExp(`agent slack-bot ${servicePrincipalId}`) });
    await expect(option).toHaveAttribute('aria-selected', 'true');
    await subject.press('Enter');
    await expect(subject).toHaveValue(servicePrincipalId);
    // Least privilege by default: secret-operator on exactly one secret.
    await expect(page.getByLabel('Role')).toHaveValue('rol_secret-operator');
    await expect(page.getByLabel('Exactly one secret')).toBeChecked();
    await page.getByLabel('Role').selectOption({ label: 'secret-operator — operate secret' });
    await pickSecret(page, 'Secret', 'slack-token');
    await snap('grant-form');
    await page.getByRole('button', { name: 'Grant', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Granted: secret-operator' })).toContainText('secret slack-token');
    const onSecrets = page.getByRole('table', { name: 'Grants on single secrets' });
    await expect(onSecrets.getByRole('row', { name: new RegExp(servicePrincipalId) })).toContainText('secret slack-token');
    await expect(page.getByRole('table', { name: `Grants of ${servicePrincipalId}` })).toContainText('secret-operator');
  });

  await test.step('"why?" now says allowed, with the binding, the role and the scope as evidence', async () => {
    await explain('slack-token');
    await expect(decision).toContainText('Allowed');
    await expect(page.getByTestId('decision-summary')).toContainText('role secret-operator');
    await expect(page.getByTestId('decision-summary')).toContainText('secret slack-token');
    await expect(page.getByTestId('decision-summary')).not.toContainText(secretId);
    const evidence = decision.getByRole('table', { name: 'Evidence: the grants that allow it' });
    const row = evidence.getByRole('row', { name: /secret-operator/ });
    await expect(row).toContainText(/^bnd_|bnd_/);
    await expect(row).toContainText('secret slack-token');
    await expect(row).toContainText('agent:slack-bot');
    await snap('explain-allowed');
  });

  await test.step('exactly that secret: operate on another secret is still denied', async () => {
    await explain('unrelated');
    await expect(decision).toContainText('Denied');
  });

  await test.step('the agent page lists the grant', async () => {
    await page.getByRole('navigation', { name: `Sections of ${namespaceName}` }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Open agent slack-bot' }).click();
    const grants = page.getByRole('table', { name: "Grants of the agent's service principal" });
    await expect(grants).toContainText('secret-operator');
    await expect(grants).toContainText('secret slack-token');
    await expect(page.getByTestId('missing-grants')).toContainText('Nothing missing');
    await snap('agent-grants');
  });

  await test.step('A2 revoke it: "why?" says denied again', async () => {
    await page.goto(`/access?namespace=${namespaceId}&subject=${servicePrincipalId}`);
    const onSecrets = page.getByRole('table', { name: 'Grants on single secrets' });
    await onSecrets.getByRole('button', { name: /^Revoke secret-operator for/ }).click();
    await confirmByTyping(page, 'agent:slack-bot', 'Revoke secret-operator from agent:slack-bot');
    await expect(page.getByText('No grants on single secrets that you may see.')).toBeVisible();
    await expect(page.getByTestId('toasts')).toContainText('Revoked secret-operator');
    await explain('slack-token');
    await expect(decision).toContainText('Denied');
    await snap('revoked');
  });
});
