import { confirmByTyping, createReadyNamespace, createSecret, pickSecret, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { createUserInPage, gqlInPage } from '../support/graphql';

// Journey (e): an administrator grants and revokes, then finds both in the audit log,
// filtered, paged by cursor, and exported as NDJSON with the same filter.
test('A2 journey (e): grant secret-operator on one secret, revoke it, then find both in the audit log and its NDJSON export', async ({
  page,
  stack,
  snap,
}) => {
  test.setTimeout(300_000);
  const startedAt = new Date();
  const stamp = Date.now().toString(36);
  const namespaceName = `e2e-aud-${stamp}`;
  const userName = `auditee-${stamp}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);
  const secretId = await createSecret(page, namespaceId, 'audited-token');
  const userId = await createUserInPage(page, userName);

  let bindingId = '';
  await test.step('grant: the form defaults to the least privilege, secret-operator on exactly one secret', async () => {
    await page.goto(`/access?namespace=${namespaceId}`);
    await expect(page.getByRole('heading', { name: `Access in ${namespaceName}`, level: 1 })).toBeVisible();
    const subject = page.getByRole('combobox', { name: 'Subject ID' });
    await subject.fill(userName);
    await page.getByRole('option', { name: new RegExp(`user ${userName}`) }).click();
    await expect(subject).toHaveValue(userId);
    await expect(page.getByLabel('Role')).toHaveValue('rol_secret-operator');
    await expect(page.getByLabel('Exactly one secret')).toBeChecked();
    // installation-admin is offered, but last.
    const roleOptions = await page.getByLabel('Role').locator('option').allInnerTexts();
    expect(roleOptions[0]).toMatch(/^secret-operator/);
    expect(roleOptions.at(-1)).toMatch(/^installation-admin/);
    await pickSecret(page, 'Secret', 'audited-token');
    await snap('grant-form');
    await page.getByRole('button', { name: 'Grant', exact: true }).click();
    await expect(page.getByTestId('grant-outcome')).toContainText(`Granted: secret-operator to ${userName}`);
    await expect(page.getByTestId('grant-outcome')).toContainText('secret audited-token');
    const row = page.getByRole('table', { name: 'Grants on single secrets' }).getByRole('row', { name: new RegExp(userName) });
    await expect(row).toContainText('secret audited-token');
    bindingId = (await row.getAttribute('data-binding-id')) ?? '';
    expect(bindingId).toMatch(/^bnd_/);
    await snap('granted');
  });

  await test.step('revoke: typing the subject name confirms; a toast says it is done', async () => {
    const table = page.getByRole('table', { name: 'Grants on single secrets' });
    await table.getByRole('button', { name: new RegExp(`^Revoke secret-operator for ${userName}`) }).click();
    await snap('revoke-confirm');
    await confirmByTyping(page, userName, `Revoke secret-operator from ${userName}`);
    await expect(page.getByTestId('toasts')).toContainText(`Revoked secret-operator for ${userName}`);
    await expect(page.getByRole('table', { name: 'Grants on single secrets' })).toHaveCount(0);
    await snap('revoked');
  });

  await test.step('the audit log, filtered to access bindings in this namespace, shows the grant and the revoke', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
    await page.getByLabel('Resource kind').selectOption('accessBinding');
    await page.getByLabel('Resource ID').fill(bindingId);
    await page.getByLabel('Outcome').selectOption('SUCCESS');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect(page).toHaveURL(new RegExp(`resourceId=${bindingId}`));
    const events = page.getByRole('table', { name: 'Audit events' });
    await expect(events.getByRole('row')).toHaveCount(3); // header, delete, create
    await expect(events.locator('tbody tr').nth(0)).toHaveAttribute('data-action', 'accessBinding.delete');
    await expect(events.locator('tbody tr').nth(1)).toHaveAttribute('data-action', 'accessBinding.create');
    await expect(events.locator('tbody tr').nth(1)).toContainText(userId);
    await expect(events.locator('tbody tr').nth(1)).toContainText('bootstrap');
    await expect(page.getByTestId('pager-range')).toHaveText('1–2 of 2 events');
    await snap('audit-filtered');
  });

  await test.step('the NDJSON export link carries the same filter and returns the same two events', async () => {
    const href = await page.getByTestId('audit-export').getAttribute('href');
    expect(href).toContain('/audit/events.ndjson?');
    const params = new URL(href!, stack.consoleUrl).searchParams;
    expect(Object.fromEntries(params)).toEqual({ resourceKind: 'accessBinding', resourceId: bindingId, outcome: 'SUCCESS' });
    const response = await page.request.get(href!);
    expect(response.status()).toBe(200);
    const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as { action: string; resourceId: string });
    expect(lines.map((e) => e.action)).toEqual(['accessBinding.delete', 'accessBinding.create']);
    expect(lines.every((e) => e.resourceId === bindingId)).toBe(true);
  });

  await test.step('a deep link filters by actor, action and time: only the grant, and the form shows the filter', async () => {
    const viewer = await gqlInPage<{ viewer: { id: string } }>(page, '{ viewer { id } }');
    const from = new Date(startedAt.getTime() - 60_000).toISOString();
    await page.goto(`/audit?actorId=${viewer.viewer.id}&action=accessBinding.create&namespaceId=${namespaceId}&from=${encodeURIComponent(from)}`);
    await expect(page.getByLabel('Action')).toHaveValue('accessBinding.create');
    await expect(page.getByRole('combobox', { name: 'Actor', exact: true })).toHaveValue(viewer.viewer.id);
    const rows = page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute('data-action', 'accessBinding.create');
    // Details read as key and value; the subject's id leads to that principal's trail.
    const subject = rows.first().locator('dl.details > div').filter({ has: page.locator('dt', { hasText: /^subjectId$/ }) });
    await expect(subject.locator('dd')).toHaveText(userId);
    await expect(subject.getByRole('link', { name: userId })).toHaveAttribute('href', `/audit?actorId=${userId}`);
    await expect(rows.first().locator('dl.details dt', { hasText: /^role$/ }).locator('xpath=following-sibling::dd')).toHaveText('secret-operator');
    // A window that ends before the journey began holds none of it.
    await page.goto(`/audit?action=accessBinding.create&namespaceId=${namespaceId}&to=${encodeURIComponent(new Date(startedAt.getTime() - 60_000).toISOString())}`);
    await expect(page.getByText('No events match this filter.')).toBeVisible();
    await snap('audit-deep-link');
  });

  await test.step('cursor pages: one actor, all of the namespace\'s events, page by page without repeats', async () => {
    await page.goto(`/audit?namespaceId=${namespaceId}`);
    const events = page.getByRole('table', { name: 'Audit events' });
    await expect(events).toBeVisible();
    const range = page.getByTestId('pager-range');
    await expect(range).toContainText(/^1–\d+ of \d+ events$/);
    const total = Number((await range.innerText()).match(/of (\d+)/)![1]);
    expect(total).toBeGreaterThanOrEqual(4); // namespace, secret, grant, revoke
    const first = await events.locator('tbody tr').first().innerText();
    expect(secretId).toMatch(/^sec_/);
    await expect(page.getByRole('button', { name: 'Newer' })).toBeDisabled();
    if (total > 25) {
      await page.getByRole('button', { name: 'Older' }).click();
      await expect(range).toContainText(/^26–/);
      expect(await events.locator('tbody tr').first().innerText()).not.toBe(first);
    }
  });

  await test.step('what the control plane did by itself names the part that did it: the worker provisioned the namespace', async () => {
    await page.goto(`/audit?namespaceId=${namespaceId}`);
    await page.getByLabel('System actor').selectOption('WORKER');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect(page).toHaveURL(/systemActor=WORKER/);
    const rows = page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute('data-action', 'namespace.provision');
    await expect(rows.first().getByRole('rowheader')).toHaveText('worker system');
    await expect(rows.first().locator('dl.details dt')).toHaveText(['k8sName']);
    expect(new URL((await page.getByTestId('audit-export').getAttribute('href'))!, stack.consoleUrl).searchParams.get('systemActor')).toBe('WORKER');
    // Unfiltered, nothing in this namespace is "anonymous": every event names a principal or a part.
    await page.goto(`/audit?namespaceId=${namespaceId}`);
    await expect(page.getByRole('table', { name: 'Audit events' }).locator('tbody tr').first()).toBeVisible();
    await expect(page.getByRole('table', { name: 'Audit events' }).getByText('anonymous')).toHaveCount(0);
    await snap('audit-system-actor');
  });
});
