import type { Locator, Page } from '@playwright/test';
import { axe } from '../support/a11y';
import { chooseRowAction, createReadyNamespace, signIn } from '../support/console';
import { expectVisibleFocus } from '../support/focus';
import { createSecretsInPage, createUserInPage, gqlInPage } from '../support/graphql';
import { expect, test } from '../support/fixtures';

// Every list of the console is one table (TanStack Table under our markup), so every list offers
// the same column choice: a "Columns" button above it, a checkbox per column but the row's name,
// the choice kept per list in this browser across a reload, the button saying how many are hidden.
// A matrix over the lists, each hiding a column of its own; what must hold on each: the header is
// gone and every row has as many cells as the header has columns (no cell left in the wrong column),
// other lists keep theirs, the row's name cannot be hidden, Escape closes and focus returns.

interface List {
  name: string;
  path: (ns: string) => string;
  table: string;
  hide: string;
  kept: string;
}

const LISTS: List[] = [
  { name: 'namespaces', path: () => '/namespaces', table: 'Namespaces', hide: 'Health', kept: 'Status' },
  { name: 'secrets', path: (ns) => `/secrets?namespace=${ns}`, table: 'Secrets', hide: 'Reference', kept: 'Used by' },
  { name: 'configurations', path: (ns) => `/configurations?namespace=${ns}`, table: 'Configurations', hide: 'Generation', kept: 'Bindings' },
  { name: 'agents', path: (ns) => `/agents?namespace=${ns}`, table: 'Agents', hide: 'Service principal', kept: 'Configuration' },
  { name: 'users', path: () => '/users', table: 'Users', hide: 'Created', kept: 'Status' },
];

async function headers(table: Locator): Promise<string[]> {
  return (await table.locator('thead th').allTextContents()).map((t) => t.replace(/[▲▼↕]/g, '').trim());
}

/** Every body row (not a panel row) has one cell per header. */
async function expectRowsFit(table: Locator): Promise<void> {
  const width = await table.locator('thead th').count();
  const cells = await table.locator('tbody tr:not(.panel-row)').evaluateAll((rows) => rows.map((r) => r.children.length));
  expect(cells.length).toBeGreaterThan(0);
  expect(new Set(cells)).toEqual(new Set([width]));
}

async function seed(page: Page): Promise<string> {
  const ns = await createReadyNamespace(page, `e2e-columns-${Date.now().toString(36)}`);
  const [secretId] = await createSecretsInPage(page, ns, ['columns-token']);
  const configuration = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
    page,
    'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
    { input: { namespaceId: ns, name: 'columns-conf', values: {}, secretBindings: [{ envName: 'TOKEN', source: { id: secretId } }] } },
  );
  await gqlInPage(page, 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename } }', {
    input: { namespaceId: ns, name: 'columns-agent', configurationId: configuration.createConfiguration.configuration.id },
  });
  await createUserInPage(page, `columns-user-${Date.now().toString(36)}`);
  return ns;
}

test('every list: a column hidden by keyboard stays hidden across a reload and in that list only, every row keeps its cells in their columns, and the name cannot be hidden', async ({ page, stack }) => {
  test.setTimeout(240_000);
  await signIn(page, stack.bootstrapApiKey);
  const ns = await seed(page);

  const full = new Map<string, string[]>();
  for (const list of LISTS) {
    await test.step(list.name, async () => {
      await page.goto(list.path(ns));
      const table = page.getByRole('table', { name: list.table, exact: true });
      await expect(table.locator('tbody tr').first()).toBeVisible();
      const before = await headers(table);
      expect(before).toContain(list.hide);
      full.set(list.name, before);
      const button = page.getByRole('button', { name: `Columns of ${list.table}`, exact: true });
      await button.focus();
      await page.keyboard.press('Enter');
      await expect(button).toHaveAttribute('aria-expanded', 'true');
      const panel = page.getByRole('group', { name: `Show in ${list.table.toLowerCase()}` });
      await expect(panel.getByRole('checkbox', { name: 'Name', exact: true })).toHaveCount(0);
      await axe(page, `${list.name} with its column choice open`);
      const box = panel.getByRole('checkbox', { name: list.hide, exact: true });
      await box.focus();
      await page.keyboard.press('Space');
      await expect(box).not.toBeChecked();
      await expect.poll(() => headers(table)).toEqual(before.filter((h) => h !== list.hide));
      await expectRowsFit(table);
      await page.keyboard.press('Escape');
      await expect(panel).toHaveCount(0);
      const hidden = page.getByRole('button', { name: `Columns of ${list.table}, 1 hidden`, exact: true });
      await expect(hidden).toBeFocused();
      await expectVisibleFocus(page, `${list.name}: Columns after Escape`);
      await expect(hidden).toHaveText('Columns (1 hidden)');

      await page.reload();
      await expect(table.locator('tbody tr').first()).toBeVisible();
      expect(await headers(table)).toEqual(before.filter((h) => h !== list.hide));
      expect(await headers(table)).toContain(list.kept);
      await expectRowsFit(table);
    });
  }

  await test.step('each list kept its own choice; showing the column again brings back the whole table', async () => {
    for (const list of LISTS) {
      await page.goto(list.path(ns));
      const table = page.getByRole('table', { name: list.table, exact: true });
      await expect(table.locator('tbody tr').first()).toBeVisible();
      const shown = await headers(table);
      expect(shown).not.toContain(list.hide);
      // Another list's hidden column, where this list has one of that name (Created), is still here.
      for (const other of LISTS) if (other !== list && other.hide !== list.hide && full.get(list.name)!.includes(other.hide)) expect(shown).toContain(other.hide);
      await page.getByRole('button', { name: `Columns of ${list.table}, 1 hidden`, exact: true }).click();
      await page.getByRole('group', { name: `Show in ${list.table.toLowerCase()}` }).getByRole('checkbox', { name: list.hide, exact: true }).check();
      await page.getByRole('button', { name: 'Done' }).click();
      await expect.poll(() => headers(table)).toContain(list.hide);
      await expect(page.getByRole('button', { name: `Columns of ${list.table}`, exact: true })).toBeFocused();
      await expectRowsFit(table);
    }
  });
});

test('a secret’s Rotate panel spans the columns shown, whichever are hidden', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const ns = await createReadyNamespace(page, `e2e-columns-span-${Date.now().toString(36)}`);
  await createSecretsInPage(page, ns, ['span-token']);
  await page.goto(`/secrets?namespace=${ns}`);
  const table = page.getByRole('table', { name: 'Secrets', exact: true });
  for (const hide of [[], ['ID'], ['ID', 'Version', 'Updated']]) {
    await page.evaluate((ids) => localStorage.setItem('occ.columns.secrets', JSON.stringify(ids)), hide.map((h) => ({ ID: 'id', Version: 'version', Updated: 'updated' })[h]!));
    await page.reload();
    await chooseRowAction(page, 'span-token', 'Rotate…');
    const panelCell = table.locator('tr.panel-row > td');
    await expect(panelCell).toBeVisible();
    const width = await table.locator('thead th').count();
    expect(width).toBe(7 - hide.length);
    await expect(panelCell).toHaveAttribute('colspan', String(width));
  }
});

// The namespaces' columns close over their health, refetched every 15 s, so the table's columns are
// made again then. A cell must stay the same element (not remounted), or whatever is open in it (a
// Re-provision confirmation, a half-typed name) closes under the user.
test('a list cell stays mounted when the list’s columns are made again (the namespaces’ health refetch)', async ({ page, stack }) => {
  test.setTimeout(90_000);
  await signIn(page, stack.bootstrapApiKey);
  const ns = await createReadyNamespace(page, `e2e-columns-keep-${Date.now().toString(36)}`);
  await page.goto('/namespaces');
  const row = page.getByRole('row').filter({ has: page.locator(`code[title="${ns}"]`) });
  await expect(row).toHaveCount(1);
  await row.locator(`code[title="${ns}"]`).evaluate((element) => ((element as HTMLElement & { __kept?: boolean }).__kept = true));
  await page.waitForResponse((r) => r.url().endsWith('/graphql') && String(r.request().postData() ?? '').includes('query NamespaceHealth'), { timeout: 45_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  expect(await row.locator(`code[title="${ns}"]`).evaluate((element) => (element as HTMLElement & { __kept?: boolean }).__kept === true)).toBe(true);
});
