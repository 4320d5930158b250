import { axe } from '../support/a11y';
import { createReadyNamespace, signIn } from '../support/console';
import { expectVisibleFocus } from '../support/focus';
import { createSecretsInPage, gqlInPage } from '../support/graphql';
import { expect, test } from '../support/fixtures';

// Sorting a list sorts all of it, not the twenty rows on screen: the console asks the API for the
// order (ListOrder), pages through it by cursor, keeps it in the address (a reload and a link keep
// it, and the page's first request asks for it already), and says it on the header (aria-sort) and
// under the list. 23 secrets, made in an order that is neither their names' nor its reverse, make
// two pages in every order.

const NAMES = Array.from({ length: 23 }, (_, i) => `k${String((i * 7) % 23).padStart(2, '0')}-${'abcdefghijklmnopqrstuvw'[(i * 11) % 23]}`);
type Order = 'NEWEST_FIRST' | 'OLDEST_FIRST' | 'NAME_A_TO_Z' | 'NAME_Z_TO_A';

test('a namespace’s secrets sort by name and by age over every page, by the Name header or the Sort control, kept in the address across a reload', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const ns = await createReadyNamespace(page, `e2e-order-${Date.now().toString(36)}`);
  await createSecretsInPage(page, ns, NAMES);
  // What each order is, from the API: the database's collation decides name order, not this test.
  const expected = async (order: Order) =>
    (
      await gqlInPage<{ namespace: { secrets: { edges: Array<{ node: { name: string } }> } } }>(
        page,
        'query($ns: ID!, $order: ListOrder) { namespace(id: $ns) { secrets(first: 100, order: $order) { edges { node { name } } } } }',
        { ns, order },
      )
    ).namespace.secrets.edges.map((e) => e.node.name);
  const byName = await expected('NAME_A_TO_Z');
  expect([...byName].sort()).toEqual([...NAMES].sort());
  expect(byName).not.toEqual(NAMES);
  expect(byName).not.toEqual([...NAMES].reverse());

  const table = page.getByRole('table', { name: 'Secrets' });
  const shown = () => table.locator('tbody th[scope="row"]').allInnerTexts().then((names) => names.map((n) => n.trim().split(/\s/)[0]!));
  const nameHeader = table.getByRole('columnheader', { name: /^Name/ });
  const pager = page.getByTestId('pager-range');
  /** Page 1 and page 2 of the list show the order's rows, and the pager says the order. */
  const expectPages = async (order: Order, label: string) => {
    const all = await expected(order);
    await expect(pager).toHaveText(`1–20 of 23 secrets, ${label}`);
    await expect.poll(shown).toEqual(all.slice(0, 20));
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(pager).toHaveText(`21–23 of 23 secrets, ${label}`);
    await expect.poll(shown).toEqual(all.slice(20));
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect(pager).toHaveText(`1–20 of 23 secrets, ${label}`);
  };

  await page.goto(`/secrets?namespace=${ns}`);
  await test.step('newest first by default, and the Name header says it does not sort the list', async () => {
    await expectPages('NEWEST_FIRST', 'newest first');
    await expect(nameHeader).toHaveAttribute('aria-sort', 'none');
    await expect(page).not.toHaveURL(/order=/);
  });

  await test.step('the Name header, by keyboard: A to Z, then Z to A; focus stays on it; a new order starts at page 1', async () => {
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(pager).toHaveText(/^21–23/);
    await nameHeader.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/order=NAME_A_TO_Z/);
    await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect(nameHeader.getByRole('button')).toBeFocused();
    await expectVisibleFocus(page, 'the Name header after sorting');
    await expectPages('NAME_A_TO_Z', 'by name, A to Z');
    await nameHeader.getByRole('button').click();
    await expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
    await expect(page).toHaveURL(/order=NAME_Z_TO_A/);
    await expectPages('NAME_Z_TO_A', 'by name, Z to A');
  });

  await test.step('a reload keeps the order, and the page’s first request already asked for it', async () => {
    await page.reload();
    await expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
    await expect.poll(shown).toEqual((await expected('NAME_Z_TO_A')).slice(0, 20));
    const untaken = await page.evaluate(() => (window as unknown as { __occFirstRequests?: { untaken(): string[] } }).__occFirstRequests?.untaken() ?? ['no first requests']);
    expect(untaken).toEqual([]);
  });

  await test.step('the Sort control offers every order; oldest first leaves the Name header unsorted', async () => {
    const select = page.getByLabel('Sort secrets');
    await expect(select).toHaveValue('NAME_Z_TO_A');
    await select.selectOption({ label: 'Oldest first' });
    await expect(page).toHaveURL(/order=OLDEST_FIRST/);
    await expect(nameHeader).toHaveAttribute('aria-sort', 'none');
    await expectPages('OLDEST_FIRST', 'oldest first');
    expect(await expected('OLDEST_FIRST')).toEqual(NAMES);
    await axe(page, 'the secrets list, oldest first');
    // Back to the default: the address carries no order.
    await select.selectOption({ label: 'Newest first' });
    await expect(page).not.toHaveURL(/order=/);
    await expect.poll(shown).toEqual([...NAMES].reverse().slice(0, 20));
  });

  await test.step('the name search keeps the order', async () => {
    await nameHeader.getByRole('button').click();
    await page.getByLabel('Search secrets by name').fill('k1');
    const matching = (await expected('NAME_A_TO_Z')).filter((n) => n.startsWith('k1'));
    await expect.poll(shown).toEqual(matching);
    await expect(pager).toHaveText(`1–${matching.length} of ${matching.length} secrets, by name, A to Z`);
  });
});

test('the filters the API offers are on the lists: a secret’s use and an agent’s status, kept in the address with the order, each starting at page 1', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const ns = await createReadyNamespace(page, `e2e-filter-${Date.now().toString(36)}`);
  const ids = await createSecretsInPage(page, ns, NAMES);
  // Two secrets bound by a configuration, which an agent uses: those two are used, 21 are not.
  const cfg = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
    page,
    'mutation($i: CreateConfigurationInput!) { createConfiguration(input: $i) { ... on CreateConfigurationSuccess { configuration { id } } } }',
    { i: { namespaceId: ns, name: 'filtered', values: {}, secretBindings: [{ envName: 'ONE', source: { id: ids[3] } }, { envName: 'TWO', source: { id: ids[17] } }] } },
  );
  await gqlInPage(page, 'mutation($i: CreateAgentInput!) { createAgent(input: $i) { __typename } }', { i: { namespaceId: ns, name: 'filtered-agent', configurationId: cfg.createConfiguration.configuration.id } });

  const table = page.getByRole('table', { name: 'Secrets' });
  const shown = () => table.locator('tbody th[scope="row"]').allInnerTexts().then((names) => names.map((n) => n.trim()));
  const pager = page.getByTestId('pager-range');
  await page.goto(`/secrets?namespace=${ns}&order=NAME_A_TO_Z`);
  const show = page.getByLabel('Show');
  await expect(show).toHaveValue('all');
  await expect(pager).toHaveText('1–20 of 23 secrets, by name, A to Z');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(pager).toHaveText(/^21–23/);

  await test.step('Used: the two bound secrets, by name, from page 1, and a notice with the way back', async () => {
    await show.selectOption({ label: 'Used' });
    await expect(page).toHaveURL(/used=1/);
    await expect(page).toHaveURL(/order=NAME_A_TO_Z/);
    await expect(pager).toHaveText('1–2 of 2 secrets, by name, A to Z');
    await expect.poll(shown).toEqual([NAMES[3]!, NAMES[17]!].sort((a, b) => a.localeCompare(b)));
    await expect(page.getByTestId('list-filter')).toContainText('Only secrets a configuration binds');
  });

  await test.step('Not used: the other 21, kept across a reload with the page’s first request used', async () => {
    await show.selectOption({ label: 'Not used' });
    await expect(page).toHaveURL(/used=0/);
    await expect(pager).toHaveText('1–20 of 21 secrets, by name, A to Z');
    await page.reload();
    await expect(page.getByLabel('Show')).toHaveValue('unused');
    await expect(pager).toHaveText('1–20 of 21 secrets, by name, A to Z');
    expect(await shown()).not.toContain(NAMES[3]);
    const untaken = await page.evaluate(() => (window as unknown as { __occFirstRequests?: { untaken(): string[] } }).__occFirstRequests?.untaken() ?? ['no first requests']);
    expect(untaken).toEqual([]);
    await page.getByTestId('list-filter').getByRole('link', { name: 'Show all secrets' }).click();
    await expect(pager).toHaveText(/of 23 secrets/);
  });

  await test.step('agents: the Status filter keeps the agents in that status, and says when none are', async () => {
    await page.goto(`/agents?namespace=${ns}`);
    const agents = page.getByRole('table', { name: 'Agents' });
    await expect(agents.getByRole('row', { name: /filtered-agent/ })).toBeVisible();
    await page.getByLabel('Status').selectOption({ label: 'Created' });
    await expect(page).toHaveURL(/status=created/);
    await expect(agents.getByRole('row', { name: /filtered-agent/ })).toBeVisible();
    await page.getByLabel('Status').selectOption({ label: 'Running' });
    await expect(page).toHaveURL(/status=running/);
    await expect(page.getByText('No agents are running now.')).toBeVisible();
    await axe(page, 'the agents list, filtered to none');
    await page.getByLabel('Status').selectOption({ label: 'Any status' });
    await expect(page).not.toHaveURL(/status=/);
    await expect(agents.getByRole('row', { name: /filtered-agent/ })).toBeVisible();
  });
});
