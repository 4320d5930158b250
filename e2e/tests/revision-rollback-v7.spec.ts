import { accessibleEverywhere } from '../support/a11y';
import { confirmByTyping, createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { createUserWithNamespaceRole, deployToActive, gqlInPage } from '../support/graphql';

// V7 in the console: an agent deployed with a configuration, then again after the configuration
// changed (revision 2 active, revision 1 superseded). On the agent's page revision 1 is compared
// with the active one (the changed value by path, the other generation), then rolled back to
// through the button and the typed confirmation: revision 3 is queued, becomes active, and freezes
// revision 1's configuration generation. Set-up through GraphQL; the deploy journey covers it in the UI.

test('V7 an agent’s revision history: compare an earlier revision with the active one, roll back to it, and the new revision carries its configuration; a viewer compares but is offered no rollback', async ({ page, browser, stack }) => {
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-rollback-${stamp}`);
  const configuration = await gqlInPage<{ createConfiguration: { configuration: { id: string; generation: number } } }>(
    page,
    'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id generation } } } }',
    { input: { namespaceId, name: 'assistant-conf', values: { agents: { defaults: { model: { primary: 'openai/gpt-a' } } } } } },
  );
  const { id: configurationId, generation } = configuration.createConfiguration.configuration;
  const agent = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
    { input: { namespaceId, name: 'assistant', configurationId } },
  );
  const agentId = agent.createAgent.agent.id;
  await deployToActive(page, agentId);
  const updated = await gqlInPage<{ updateConfiguration: { __typename: string } }>(
    page,
    'mutation($input: UpdateConfigurationInput!) { updateConfiguration(input: $input) { __typename } }',
    { input: { id: configurationId, expectedGeneration: generation, values: { agents: { defaults: { model: { primary: 'openai/gpt-b' } } } } } },
  );
  expect(updated.updateConfiguration.__typename).toBe('UpdateConfigurationSuccess');
  await deployToActive(page, agentId);

  await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
  const revisions = page.getByTestId('revisions');
  const revision1 = revisions.locator('[data-testid="revision"][data-number="1"]');
  await expect(revisions.locator('[data-testid="revision"][data-number="2"]').getByTestId('active-marker')).toBeVisible();

  await test.step('V7 compare revision 1 with the active revision 2: the changed value by path and the other generation', async () => {
    await revision1.getByRole('button', { name: 'Compare with active revision 2' }).click();
    const diff = revision1.getByTestId('revision-diff');
    await expect(diff.getByTestId('revision-diff-configuration')).toHaveText(`Configuration: generation ${generation} in revision 1, ${generation + 1} in revision 2.`);
    const row = diff.getByTestId('revision-diff-values').getByRole('row', { name: /agents\.defaults\.model\.primary/ });
    await expect(row).toContainText('changed');
    await expect(row).toContainText('openai/gpt-a');
    await expect(row).toContainText('openai/gpt-b');
    await accessibleEverywhere(page, 'revision-diff');
  });

  await test.step('V7 a namespace viewer compares revisions but is offered no rollback (a rollback is a deploy)', async () => {
    const apiKey = await createUserWithNamespaceRole(page, `viewer-${stamp}`, 'rol_namespace-viewer', namespaceId);
    const context = await browser.newContext({ baseURL: stack.consoleUrl, viewport: { width: 1280, height: 900 } });
    try {
      const viewer = await context.newPage();
      await signIn(viewer, apiKey);
      await viewer.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
      const theirs = viewer.getByTestId('revisions').locator('[data-testid="revision"][data-number="1"]');
      await expect(theirs.getByRole('button', { name: 'Compare with active revision 2' })).toBeVisible();
      await expect(theirs.getByRole('button', { name: 'Roll back to revision 1' })).toHaveCount(0);
    } finally {
      await context.close();
    }
    // The administrator is offered it.
    await expect(revision1.getByRole('button', { name: 'Roll back to revision 1' })).toBeVisible();
  });

  await test.step('V7 roll back to revision 1 through the button and the typed confirmation: revision 3 is queued, then active, with revision 1’s generation', async () => {
    await revision1.getByRole('button', { name: 'Roll back to revision 1' }).click();
    await confirmByTyping(page, 'assistant', /^Roll back agent assistant to revision 1$/);
    await expect(revision1.getByTestId('rollback-outcome')).toContainText("Revision 3 is queued with revision 1's configuration.");
    const revision3 = revisions.locator('[data-testid="revision"][data-number="3"]');
    await expect(revision3.getByTestId('active-marker')).toBeVisible({ timeout: 120_000 });
    await expect(revision3.getByTestId('revision-generation')).toHaveText(String(generation));
    // What runs is revision 1's document again, and the audit trail says whose it was.
    const active = await gqlInPage<{ agent: { activeRevision: { number: number; configurationGeneration: number; values: unknown } } }>(
      page,
      'query($id: ID!) { agent(id: $id) { activeRevision { number configurationGeneration values } } }',
      { id: agentId },
    );
    expect(active.agent.activeRevision).toMatchObject({ number: 3, configurationGeneration: generation, values: { agents: { defaults: { model: { primary: 'openai/gpt-a' } } } } });
  });
});
