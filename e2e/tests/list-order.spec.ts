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
