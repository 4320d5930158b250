import { expect as rawExpect, type Page } from '@playwright/test';
import { chooseRowAction, createReadyNamespace, rowActionItem, secretRow, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';

// Journey (b): rotate a secret that a running agent consumes; the secrets list marks
// it stale (W7: a running revision holds an older version); "Redeploy consumers" shows each
// consumer's redeploy until the stale list empties, and the badge clears. Setting up the running
// agent goes through GraphQL: the deploy journey (deploy-d1-d6-w5-w6.spec.ts) covers it in the UI.

async function runningAgent(page: Page, namespaceId: string, secretId: string, name: string, envName: string): Promise<string> {
  const configuration = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
    page,
    'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
    { input: { namespaceId, name: `${name}-gateway`, values: {}, secretBindings: [{ envName, source: { id: secretId } }] } },
  );
  const created = await gqlInPage<{ createAgent: { servicePrincipalId: string; agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { servicePrincipalId agent { id } } } }',
    { input: { namespaceId, name, configurationId: configuration.createConfiguration.configuration.id } },
  );
  const agentId = created.createAgent.agent.id;
  await grantSecretOperator(page, created.createAgent.servicePrincipalId, namespaceId, secretId);
  await deployToActive(page, agentId, 60_000);
  return agentId;
}

test('W7 S6 rotate a consumed secret: the stale badge, "Redeploy consumers" with progress until the stale list empties, the badge cleared', async ({ page, stack, snap }) => {
  test.setTimeout(360_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-redeploy-${stamp}`);
  const secret = await gqlInPage<{ createSecret: { secret: { id: string } } }>(
    page,
    'mutation($input: CreateSecretInput!) { createSecret(input: $input) { ... on CreateSecretSuccess { secret { id } } } }',
    { input: { namespaceId, name: 'shared-token', value: `v1-${stamp}` } },
  );
  const secretId = secret.createSecret.secret.id;
  const alphaId = await runningAgent(page, namespaceId, secretId, 'alpha', 'SHARED_TOKEN');
  await runningAgent(page, namespaceId, secretId, 'beta', 'BETA_TOKEN');

  await page.goto(`/secrets?namespace=${namespaceId}`);
  const row = secretRow(page, 'shared-token');
  await expect(row.getByTestId('used-by')).toHaveText('4'); // two configurations bind it, two active revisions hold it

  await test.step('before a rotation: not stale, nothing to redeploy', async () => {
    await expect(row.getByTestId('stale-badge')).toHaveCount(0);
    await expect(await rowActionItem(page, 'shared-token', 'Redeploy consumers…')).toHaveCount(0);
    await page.keyboard.press('Escape');
  });

  await test.step('S6 rotate: stored, not delivered; the row is marked stale', async () => {
    await chooseRowAction(page, 'shared-token', 'Rotate…');
    await page.getByLabel('New value for shared-token').fill(`v2-${stamp}`);
    await page.getByRole('button', { name: 'Store new value' }).click();
    const delivery = page.getByTestId('delivery');
    await expect(delivery).toContainText('Stored, not delivered.');
    await expect(delivery).toContainText('Now at version 2');
    await expect(delivery.getByRole('list', { name: 'Stale revisions' }).getByRole('listitem')).toHaveCount(2);
    await expect(row.getByTestId('stale-badge')).toBeVisible();
    await expect(row.getByTestId('stale-badge')).toContainText('2 running revisions hold an older version');
    await snap('stale-badge');
  });

  const panel = page.getByTestId('redeploy-consumers');
  await test.step('W7 the rotate answer opens the stale consumers: who holds which version', async () => {
    await page.getByTestId('delivery').getByRole('button', { name: 'Redeploy consumers…' }).click();
    await expect(panel).toBeVisible();
    const items = panel.getByTestId('stale-consumer');
    await expect(items).toHaveCount(2);
    await expect(items.filter({ hasText: 'alpha' })).toContainText('SHARED_TOKEN holds version 1 of 2');
    await expect(items.filter({ hasText: 'beta' })).toContainText('BETA_TOKEN holds version 1 of 2');
    // The row's menu offers to close the panel the answer opened.
    await expect(await rowActionItem(page, 'shared-token', 'Close redeploy consumers')).toBeVisible();
    await page.keyboard.press('Escape');
    await snap('stale-consumers');
  });

  await test.step('W7 redeploy consumers: each item shows its redeploy, the list empties, the badge clears', async () => {
    // Every text the progress shows while it lasts (it can be brief on an idle machine).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __progress: string[] }).__progress = seen;
      new MutationObserver(() => {
        for (const el of Array.from(document.querySelectorAll('[data-testid="redeploy-progress"]'))) {
          const text = el.textContent ?? '';
          if (!seen.includes(text)) seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await panel.getByRole('button', { name: 'Redeploy consumers' }).click();
    await expect(panel.getByTestId('redeploy-done')).toContainText('No running revision holds an older version of shared-token (now at version 2).', {
      timeout: 60_000,
    });
    await expect(page.getByTestId('toasts')).toContainText('Every running consumer of shared-token now holds version 2.');
    const progress = await page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
    rawExpect(progress.some((text) => /^Redeploy: revision 2 (QUEUED|PREPARING|PREPARED|ACTIVATING)/.test(text)), progress.join(' | ')).toBe(true);
    await expect(row.getByTestId('stale-badge')).toHaveCount(0);
    await snap('redeployed');
  });

  await test.step('the redeploy is an ordinary deploy: revision 2 active on the agent, holding version 2', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${alphaId}`);
    const revision2 = page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 2/ }) });
    await expect(revision2.getByTestId('active-marker')).toBeVisible();
    await expect(revision2.getByTestId('revision-references').getByRole('row', { name: /SHARED_TOKEN/ }).getByRole('cell')).toHaveText([
      'shared-token',
      'value',
      'v2',
      'gateway',
    ]);
    const revision1 = page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 1/ }) });
    await expect(revision1.getByTestId('revision-state')).toHaveText('SUPERSEDED');
    await expect(revision1.getByTestId('revision-references')).toContainText('v1 (now v2)');
    await snap('agent-revisions');
  });
});
