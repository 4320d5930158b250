import { randomUUID } from 'node:crypto';
import type { Page, Request, Response } from '@playwright/test';
import { axe, noSidewaysScroll } from '../support/a11y';
import { createReadyNamespace, openCreate, pickSecret, secretOptions, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { expectVisibleFocus } from '../support/focus';
import { createSecretsInPage, gqlInPage } from '../support/graphql';

// The secret picker (DESIGN §6, "configurations: bindings table, secret picker"): a combobox
// that searches the namespace's secrets by name prefix through the API, one page of 20 at a time, and
// can create the secret it did not find (S1) without the value ever coming back (S3, P1).

const PICKER = 'Secret of binding 1';

async function openConfigurationForm(page: Page, namespaceId: string, name: string, envName: string): Promise<void> {
  await page.goto(`/configurations?namespace=${namespaceId}`);
  await openCreate(page, 'New configuration');
  await page.getByLabel('Configuration name').fill(name);
  await page.getByRole('button', { name: 'Add binding' }).click();
  await page.getByLabel('Env name of binding 1').fill(envName);
}

function picker(page: Page) {
  return page.getByRole('combobox', { name: PICKER, exact: true });
}

const optionsQueries = (requests: Request[]) =>
  requests
    .filter((r) => r.url().endsWith('/graphql') && (r.postData() ?? '').includes('query SecretOptions'))
    .map((r) => (JSON.parse(r.postData()!) as { variables: { first: number; namePrefix: string | null } }).variables);

test('S1 C1 C5 the secret picker finds one secret among 60 by name prefix, asking the API for one page of 20, with loading, error and retry states; the edit form rebinds through it', async ({
  page,
  stack,
  snap,
}) => {
  test.setTimeout(300_000);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-pick-${Date.now().toString(36)}`);
  const names = Array.from({ length: 60 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`);
  const ids = await createSecretsInPage(page, namespaceId, names);
  // A rotated secret shows its new version in the option.
  const rotated = await gqlInPage<{ updateSecret: { __typename: string } }>(
    page,
    'mutation($input: UpdateSecretInput!) { updateSecret(input: $input) { __typename } }',
    { input: { id: ids[42], value: `e2e-${randomUUID()}` } },
  );
  expect(rotated.updateSecret.__typename).toBe('UpdateSecretSuccess');

  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  await openConfigurationForm(page, namespaceId, 'picked', 'PICKED_TOKEN');

  await test.step('opened empty, the popup shows the first page of 20 of the 60 and says there are more', async () => {
    await picker(page).click();
    await expect(picker(page)).toHaveAttribute('aria-expanded', 'true');
    await expect(secretOptions(page, PICKER).getByRole('option')).toHaveCount(20);
    await expect(secretOptions(page, PICKER).getByRole('option').first()).toHaveAccessibleName('bulk-000 v1');
    await expect(page.getByTestId('secret-picker-popup')).toContainText('The first 20 of 60: type more of the name to narrow.');
    await snap('picker-first-page');
    await axe(page, 'secret picker open with a page of options');
  });

  await test.step('typing a prefix asks the API for that prefix, after a pause, and finds the one secret', async () => {
    await picker(page).pressSequentially('bulk-04');
    await expect(secretOptions(page, PICKER).getByRole('option', { name: /^bulk-04\d v\d+$/ })).toHaveCount(10);
    await picker(page).press('2');
    const option = secretOptions(page, PICKER).getByRole('option');
    await expect(option).toHaveCount(1);
    await expect(option).toHaveAccessibleName('bulk-042 v2');
    await option.click();
    await expect(picker(page)).toHaveValue('bulk-042');
    await expect(picker(page)).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByText('Chosen: bulk-042, version 2.')).toBeVisible();
  });

  await test.step('every search is one page of 20 by prefix; nothing asks for the whole list', async () => {
    const queries = optionsQueries(requests);
    expect(queries.length).toBeGreaterThan(0);
    for (const variables of queries) expect(variables.first).toBe(20);
    expect(queries.map((v) => v.namePrefix)).toContain('bulk-042');
    // Debounced: fewer requests than the 8 keystrokes typed.
    expect(queries.filter((v) => v.namePrefix?.startsWith('bulk-')).length).toBeLessThan(8);
    expect(requests.filter((r) => (r.postData() ?? '').includes('query NamespaceSecrets'))).toEqual([]);
  });

  await test.step('the loading and error states show in the popup, and Retry searches again', async () => {
    let failing = true;
    await page.route('**/graphql', async (route) => {
      if (failing && (route.request().postData() ?? '').includes('query SecretOptions')) {
        await new Promise((resolve) => setTimeout(resolve, 700));
        await route.abort('failed');
      } else {
        await route.continue();
      }
    });
    await picker(page).fill('bulk-05');
    await expect(page.getByTestId('secret-picker-popup').getByText('Searching…')).toBeVisible();
    await expect(secretOptions(page, PICKER)).toHaveAttribute('aria-busy', 'true');
    const failure = page.getByTestId('secret-picker-popup').getByRole('alert');
    await expect(failure).toContainText('Could not search the secrets', { timeout: 20_000 });
    await snap('picker-search-failed');
    await axe(page, 'secret picker search failed');
    failing = false;
    await failure.getByRole('button', { name: 'Retry' }).click();
    await expect(secretOptions(page, PICKER).getByRole('option', { name: /^bulk-05\d v1$/ })).toHaveCount(10);
    await expect(picker(page)).toBeFocused();
    await page.unroute('**/graphql');
  });

  await test.step('C1 the configuration saves with the chosen secret bound', async () => {
    await picker(page).fill('bulk-059');
    await secretOptions(page, PICKER).getByRole('option', { name: 'bulk-059 v1' }).click();
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Configuration picked created' })).toBeVisible();
    const saved = await gqlInPage<{ namespace: { configurations: { edges: { node: { secretBindings: { envName: string; source: { id: string } }[] } }[] } } }>(
      page,
      'query($id: ID!) { namespace(id: $id) { configurations(first: 5) { edges { node { secretBindings { envName source { id } } } } } } }',
      { id: namespaceId },
    );
    expect(saved.namespace.configurations.edges[0]!.node.secretBindings).toEqual([{ envName: 'PICKED_TOKEN', source: { id: ids[59] } }]);
  });

  await test.step('C1 C5 the edit form starts from the bound secret and rebinds through the picker, naming both in the changes', async () => {
    await page.getByRole('link', { name: 'Open configuration picked' }).click();
    await expect(picker(page)).toHaveValue('bulk-059');
    await pickSecret(page, PICKER, 'bulk-042');
    await expect(page.getByRole('list', { name: 'Changes to save' })).toContainText('binding PICKED_TOKEN from bulk-059 to bulk-042');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Now at generation 2.' })).toBeVisible();
    const saved = await gqlInPage<{ namespace: { configurations: { edges: { node: { secretBindings: { source: { id: string } }[] } }[] } } }>(
      page,
      'query($id: ID!) { namespace(id: $id) { configurations(first: 5) { edges { node { secretBindings { source { id } } } } } } }',
      { id: namespaceId },
    );
    expect(saved.namespace.configurations.edges[0]!.node.secretBindings).toEqual([{ source: { id: ids[42] } }]);
  });
});

test('S1 S3 P1 C1 a secret created inside the picker is chosen and bound; its canary value appears nowhere in the DOM, the responses or the saved configuration', async ({
  page,
  stack,
  snap,
}) => {
  test.setTimeout(300_000);
  const canary = `canary-${randomUUID()}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-inline-${Date.now().toString(36)}`);
  await createSecretsInPage(page, namespaceId, ['taken-name']);

  // Every response the page sees, read in full before the search below.
  const reads: Promise<{ url: string; text: string }>[] = [];
  const sent: string[] = [];
  page.on('response', (response: Response) => {
    reads.push(response.text().then((text) => ({ url: response.url(), text }), () => ({ url: response.url(), text: '' })));
  });
  page.on('request', (request) => sent.push(request.postData() ?? ''));

  await openConfigurationForm(page, namespaceId, 'inline-gateway', 'INLINE_TOKEN');
  const values = page.getByLabel('Values (JSON)');
  await values.fill('{"agents": {"defaults": {"model": "anthropic/claude"}}}');

  await test.step('no match: the popup says so and offers to create the typed name', async () => {
    await picker(page).fill('Fresh Token');
    await expect(page.getByTestId('secret-picker-popup')).toContainText('No secret’s name starts with “fresh token”.');
    const create = secretOptions(page, PICKER).getByRole('option', { name: 'Create secret “Fresh Token”…' });
    await expect(create).toBeVisible();
    await snap('picker-no-match');
    await axe(page, 'secret picker with no match');
    await create.click();
  });

  const form = page.getByRole('group', { name: 'New secret in this namespace' });
  const valueField = form.getByLabel('Value', { exact: true });
  await test.step('S1 the inline form opens with the name filled in, focus in the masked value', async () => {
    await expect(form.getByLabel('Name', { exact: true })).toHaveValue('Fresh Token');
    await expect(valueField).toHaveAttribute('type', 'password');
    await expect(valueField).toBeFocused();
    await snap('inline-create');
    await axe(page, 'inline create secret form');
  });

  await test.step('S1 an invalid name and a taken name are refused inline; the configuration form keeps its input', async () => {
    await valueField.fill(canary);
    await form.getByRole('button', { name: 'Create and choose' }).click();
    await expect(form.getByRole('alert').filter({ hasText: 'Invalid input' })).toBeVisible();
    await expect(form.getByLabel('Name', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    // Refused, the value is emptied on purpose and says so; the name stays to correct.
    await expect(valueField).toHaveValue('');
    await expect(form.getByTestId('value-cleared')).toBeVisible();
    await form.getByLabel('Name', { exact: true }).fill('taken-name');
    await valueField.fill(canary);
    await valueField.press('Enter');
    await expect(form.getByRole('alert').filter({ hasText: 'Conflict' })).toHaveAttribute('data-error-code', 'NAME_TAKEN');
    await expect(valueField).toHaveValue('');
    expect(await page.content()).not.toContain(canary);
    await snap('inline-create-refused');
    await axe(page, 'inline create secret refused');
    await expect(page.getByLabel('Configuration name')).toHaveValue('inline-gateway');
    await expect(page.getByLabel('Env name of binding 1')).toHaveValue('INLINE_TOKEN');
    await expect(values).toHaveValue('{"agents": {"defaults": {"model": "anthropic/claude"}}}');
    await expect(page.getByRole('status').filter({ hasText: /Configuration .* created/ })).toHaveCount(0);
  });

  await test.step('S1 created, it is chosen in the picker and focus returns there', async () => {
    await form.getByLabel('Name', { exact: true }).fill('canary-token');
    await valueField.fill(canary);
    await form.getByRole('button', { name: 'Create and choose' }).click();
    await expect(form).toHaveCount(0);
    await expect(picker(page)).toHaveValue('canary-token');
    await expect(picker(page)).toBeFocused();
    await expect(page.getByText('Created canary-token and chose it.')).toBeVisible();
  });

  await test.step('C1 the configuration saves binding the new secret', async () => {
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Configuration inline-gateway created' })).toBeVisible();
  });

  await test.step('S3 P1 the canary went out only in the creates and is nowhere in the DOM, any field, any response or the saved configuration', async () => {
    // Sent three times, each by a createSecret: refused twice (name), stored once.
    const carrying = sent.filter((body) => body.includes(canary));
    expect(carrying).toHaveLength(3);
    for (const body of carrying) expect(body).toContain('mutation CreateSecret');
    expect(await page.content()).not.toContain(canary);
    const fieldValues = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')).map((el) => el.value),
    );
    expect(fieldValues.filter((value) => value.includes(canary))).toEqual([]);
    const secrets = await gqlInPage<{ namespace: { secrets: { edges: { node: { id: string; name: string; version: number } }[] } } }>(
      page,
      'query($id: ID!) { namespace(id: $id) { secrets(first: 20, namePrefix: "canary-token") { edges { node { id name version } } } } }',
      { id: namespaceId },
    );
    const created = secrets.namespace.secrets.edges.map((e) => e.node);
    expect(created).toEqual([{ id: expect.stringMatching(/^sec_/), name: 'canary-token', version: 1 }]);
    const saved = await gqlInPage<{ namespace: { configurations: { edges: { node: unknown }[] } } }>(
      page,
      'query($id: ID!) { namespace(id: $id) { configurations(first: 5) { edges { node { name generation values secretBindings { envName source { kind namespaceId id } secret { id name version } } } } } } }',
      { id: namespaceId },
    );
    const configuration = JSON.stringify(saved);
    expect(configuration).toContain(created[0]!.id);
    expect(configuration).toContain('INLINE_TOKEN');
    expect(configuration).not.toContain(canary);
    const responses = await Promise.all(reads);
    expect(responses.length).toBeGreaterThan(10);
    expect(responses.filter((r) => r.text.includes(canary)).map((r) => r.url)).toEqual([]);
  });
});

test('C1 a secret is chosen by keyboard alone: arrows move the active option, Enter chooses without submitting, Escape closes, focus stays visible', async ({
  page,
  stack,
  snap,
}) => {
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-kbpick-${Date.now().toString(36)}`);
  const [, betaId] = await createSecretsInPage(page, namespaceId, ['kb-alpha', 'kb-beta', 'kb-gamma']);
  await page.goto(`/configurations?namespace=${namespaceId}`);
  const newButton = page.getByRole('button', { name: 'New configuration', exact: true });
  await expect(newButton).toBeVisible();
  await newButton.focus();
  // With no configurations yet the form is open already: Tab goes into it; otherwise Enter opens it.
  await page.keyboard.press((await newButton.getAttribute('aria-expanded')) === 'true' ? 'Tab' : 'Enter');
  await expect(page.getByLabel('Configuration name')).toBeFocused();
  await page.keyboard.type('keyboard-gateway');
  const addBinding = page.getByRole('button', { name: 'Add binding' });
  await addBinding.focus();
  await page.keyboard.press('Enter');
  // The new row sits before the button: env name, picker, remove.
  for (let i = 0; i < 3; i += 1) await page.keyboard.press('Shift+Tab');
  await expect(page.getByLabel('Env name of binding 1')).toBeFocused();
  await page.keyboard.type('KB_TOKEN');
  await page.keyboard.press('Tab');
  await expect(picker(page)).toBeFocused();
  await expectVisibleFocus(page, 'secret picker');

  const activeName = () =>
    picker(page).evaluate((input) => {
      const id = input.getAttribute('aria-activedescendant');
      return id ? (document.getElementById(id)?.textContent ?? null) : null;
    });

  await test.step('typing opens the popup; the arrow keys move the active option and wrap', async () => {
    await page.keyboard.type('kb-');
    await expect(secretOptions(page, PICKER).getByRole('option', { name: /^kb-/ })).toHaveCount(3);
    await page.keyboard.press('ArrowDown');
    await expect.poll(activeName).toBe('kb-alpha v1');
    await expect(secretOptions(page, PICKER).getByRole('option', { name: 'kb-alpha v1' })).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(activeName).toBe('kb-gamma v1');
    // Past the last secret comes "Create secret “kb-”…", then the first again.
    await page.keyboard.press('ArrowDown');
    await expect.poll(activeName).toBe('Create secret “kb-”…');
    await page.keyboard.press('ArrowDown');
    await expect.poll(activeName).toBe('kb-alpha v1');
    await page.keyboard.press('ArrowUp');
    await expect.poll(activeName).toBe('Create secret “kb-”…');
    await expect(picker(page)).toBeFocused();
    await expectVisibleFocus(page, 'secret picker with an active option');
    await snap('keyboard-active-option');
  });

  await test.step('Escape closes without choosing; ArrowDown opens again', async () => {
    await page.keyboard.press('Escape');
    await expect(picker(page)).toHaveAttribute('aria-expanded', 'false');
    await expect(picker(page)).not.toHaveAttribute('aria-activedescendant');
    await expect(picker(page)).toHaveValue('kb-');
    await page.keyboard.press('ArrowDown');
    await expect(picker(page)).toHaveAttribute('aria-expanded', 'true');
  });

  await test.step('Enter chooses the active option and does not submit the form', async () => {
    await expect(secretOptions(page, PICKER).getByRole('option', { name: /^kb-/ })).toHaveCount(3);
    while ((await activeName()) !== 'kb-beta v1') await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(picker(page)).toHaveValue('kb-beta');
    await expect(picker(page)).toHaveAttribute('aria-expanded', 'false');
    await expect(picker(page)).toBeFocused();
    await expectVisibleFocus(page, 'secret picker after choosing');
    await expect(page.getByRole('status').filter({ hasText: /Configuration .* created/ })).toHaveCount(0);
  });

  await test.step('C1 Tab to the submit button and Enter: the configuration binds kb-beta', async () => {
    const submit = page.getByRole('button', { name: 'Create configuration' });
    for (let i = 0; i < 10 && !(await submit.evaluate((el) => el === document.activeElement)); i += 1) {
      await page.keyboard.press('Tab');
      await expectVisibleFocus(page, `Tab ${i + 1} towards Create configuration`);
    }
    await expect(submit).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'Configuration keyboard-gateway created' })).toBeVisible();
    const saved = await gqlInPage<{ namespace: { configurations: { edges: { node: { secretBindings: { envName: string; source: { id: string } }[] } }[] } } }>(
      page,
      'query($id: ID!) { namespace(id: $id) { configurations(first: 5) { edges { node { secretBindings { envName source { id } } } } } } }',
      { id: namespaceId },
    );
    expect(saved.namespace.configurations.edges[0]!.node.secretBindings).toEqual([{ envName: 'KB_TOKEN', source: { id: betaId } }]);
  });
});

test('S1 the secret picker at 390 px in dark mode: popup open, no match and the inline create form pass axe, fit the screen and show focus', async ({
  page,
  stack,
  snap,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-pick390-${Date.now().toString(36)}`);
  await createSecretsInPage(page, namespaceId, ['narrow-one', 'narrow-two-with-a-rather-long-name-that-wraps']);
  await openConfigurationForm(page, namespaceId, 'narrow-gateway', 'NARROW_TOKEN');

  await picker(page).fill('narrow');
  await expect(secretOptions(page, PICKER).getByRole('option', { name: /^narrow-/ })).toHaveCount(2);
  await page.keyboard.press('ArrowDown');
  await expectVisibleFocus(page, 'picker open at 390 px, dark');
  await noSidewaysScroll(page, 'picker open at 390 px, dark');
  await snap('picker-open-390-dark');
  await axe(page, 'picker open at 390 px, dark');

  await picker(page).fill('nothing-here');
  await expect(page.getByTestId('secret-picker-popup')).toContainText('No secret’s name starts with “nothing-here”.');
  await noSidewaysScroll(page, 'picker with no match at 390 px, dark');
  await axe(page, 'picker with no match at 390 px, dark');

  await secretOptions(page, PICKER).getByRole('option', { name: 'Create secret “nothing-here”…' }).click();
  const form = page.getByRole('group', { name: 'New secret in this namespace' });
  await expect(form.getByLabel('Value', { exact: true })).toBeFocused();
  await expectVisibleFocus(page, 'inline create value at 390 px, dark');
  await noSidewaysScroll(page, 'inline create form at 390 px, dark');
  await snap('inline-create-390-dark');
  await axe(page, 'inline create form at 390 px, dark');
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
  await expect(picker(page)).toBeFocused();
});
