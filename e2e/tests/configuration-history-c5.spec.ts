import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { axe, noSidewaysScroll } from '../support/a11y';
import { createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { gqlInPage } from '../support/graphql';

// A configuration's page lists its generations (C5), newest first, each opening onto
// what it changed against the one before (the editor's own diff), paged with "Load more".

const CREATE_SECRET = `mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename ... on CreateSecretSuccess { secret { id } } ... on Error { code message } } }`;
const CREATE_CONFIGURATION = `mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } ... on Error { code message } } }`;
const UPDATE_CONFIGURATION = `mutation($input: UpdateConfigurationInput!) { updateConfiguration(input: $input) { __typename ... on UpdateConfigurationSuccess { configuration { generation } } ... on Error { code message } } }`;

async function saveValues(page: Page, values: Record<string, unknown>, generation: number): Promise<void> {
  await page.getByLabel('Values (JSON)').fill(JSON.stringify(values, null, 2));
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Saved. Now at generation ${generation}.` })).toBeVisible();
}

/** The change lines of one history entry, opening it first. */
async function changesOf(history: Locator, generation: number): Promise<string[]> {
  const entry = history.locator(`[data-testid="generation-entry"][data-generation="${generation}"]`);
  const details = entry.locator('details');
  if ((await details.getAttribute('open')) === null) await entry.locator('summary').click();
  const list = entry.getByRole('list', { name: `Changes in generation ${generation}` });
  await expect(list).toBeVisible();
  return (await list.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

test('C5 a configuration edited twice shows three generations newest first, each with its diff against the one before, paged with Load more, and passes axe', async ({ page, stack, snap }) => {
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-hist-${stamp}`);
  const s = await gqlInPage<{ createSecret: { secret: { id: string } } }>(page, CREATE_SECRET, { input: { namespaceId, name: 'hist-token', value: `e2e-${randomUUID()}` } });
  const c = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(page, CREATE_CONFIGURATION, {
    input: { namespaceId, name: 'hist-config', values: { agents: { model: 'small' } }, secretBindings: [{ envName: 'HIST_TOKEN', source: { id: s.createSecret.secret.id } }] },
  });
  const configurationId = c.createConfiguration.configuration.id;

  await page.goto(`/configurations?namespace=${namespaceId}&id=${configurationId}`);
  await expect(page.getByRole('heading', { name: 'Configuration hist-config', level: 1 })).toBeVisible();
  const history = page.getByTestId('generation-history');
  await expect(history.getByRole('heading', { name: 'History', level: 2 })).toBeVisible();
  await expect(history.getByTestId('generation-entry')).toHaveCount(1);

  await test.step('two edits through the editor', async () => {
    await saveValues(page, { agents: { model: 'large' } }, 2);
    await saveValues(page, { agents: { model: 'large', turns: 4 } }, 3);
  });

  await test.step('three generations, newest first, each with who and when', async () => {
    const entries = history.getByTestId('generation-entry');
    await expect(entries).toHaveCount(3);
    expect(await entries.evaluateAll((els) => els.map((el) => el.getAttribute('data-generation')))).toEqual(['3', '2', '1']);
    await expect(history).toContainText('3 generations, newest first');
    const summary = entries.first().locator('summary');
    await expect(summary).toContainText('Generation 3');
    await expect(summary).toContainText('by bootstrap');
    // Relative time shown, the exact time on hover (title) and in datetime.
    await expect(summary.locator('time')).toHaveAttribute('title', /\d{4}/);
    await expect(summary.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
  });

  await test.step('each generation lists its changes against the one before', async () => {
    expect(await changesOf(history, 3)).toEqual(['added $.agents.turns: 4']);
    expect(await changesOf(history, 2)).toEqual(['changed $.agents.model: "small" → "large"']);
    expect(await changesOf(history, 1)).toEqual(['added $.agents: {"model":"small"}', 'added binding HIST_TOKEN to hist-token']);
    await snap('configuration-history');
    await axe(page, 'configuration history, entries open');
  });

  await test.step('Load more pages older generations in, and focus moves to the first one added', async () => {
    for (let g = 3; g < 12; g++) {
      const r = await gqlInPage<{ updateConfiguration: { configuration: { generation: number } } }>(page, UPDATE_CONFIGURATION, { input: { id: configurationId, expectedGeneration: g, values: { agents: { model: 'large', turns: g + 1 } } } });
      expect(r.updateConfiguration.configuration.generation).toBe(g + 1);
    }
    await page.reload();
    const entries = history.getByTestId('generation-entry');
    await expect(entries).toHaveCount(10);
    await expect(entries.first()).toHaveAttribute('data-generation', '12');
    // The oldest shown (3) still knows its previous generation (2), from the page's extra row.
    expect(await changesOf(history, 3)).toEqual(['added $.agents.turns: 4']);
    await history.getByRole('button', { name: 'Load more' }).click();
    await expect(entries).toHaveCount(12);
    await expect(history.getByRole('button', { name: 'Load more' })).toHaveCount(0);
    await expect(entries.nth(10).locator('summary')).toBeFocused();
    await expect(entries.nth(10)).toHaveAttribute('data-generation', '2');
    await axe(page, 'configuration history, all pages');
    await page.setViewportSize({ width: 390, height: 844 });
    await noSidewaysScroll(page, 'configuration history at 390 px, entries open');
  });
});
