import { accessibleEverywhere } from '../support/a11y';
import { chooseRowAction, createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { createSecretsInPage, createUserWithNamespaceRole } from '../support/graphql';

// V4 the namespace default rotation policy in the console: an administrator opens it on the
// namespace's secrets page (none: manual), sets an AUTOMATIC default, sees a secret without a
// policy of its own follow it (its rotate panel names the namespace default as the source), and
// clears it again. A namespace viewer reads the default and is offered no editor.

test('V4 the namespace default rotation policy: set and cleared by an administrator, followed by a secret without its own, read-only for a viewer', async ({ page, browser, stack }) => {
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-ns-default-${stamp}`);
  await createSecretsInPage(page, namespaceId, ['follower']);

  await page.goto(`/secrets?namespace=${namespaceId}`);
  const section = page.getByRole('region', { name: 'Rotation default' });
  await section.getByRole('button', { name: 'Show the rotation default' }).click();
  const current = section.getByTestId('namespace-policy');
  await expect(current).toHaveText(/^None: a rotation of a secret without its own policy is stored, not delivered/);

  await test.step('V4 an administrator sets an AUTOMATIC default', async () => {
    await section.getByRole('button', { name: 'Edit the namespace default' }).click();
    await section.getByRole('radio', { name: 'A default policy' }).check();
    await section.getByLabel('Mode').selectOption('AUTOMATIC');
    await section.getByLabel('Batch size').fill('5');
    await section.getByLabel('Pause (seconds)').fill('2');
    await section.getByRole('button', { name: 'Save rotation policy' }).click();
    await expect(section.getByTestId('policy-saved')).toHaveText('Saved. In effect: AUTOMATIC: batches of 5, 2 s pause, Ready within 300 s, approval: none.');
    await expect(current).toHaveText('AUTOMATIC: batches of 5, 2 s pause, Ready within 300 s, approval: none.');
    await accessibleEverywhere(page, 'namespace-rotation-default');
  });

  await test.step('V4 a secret without its own policy follows it: the rotate panel names the namespace default', async () => {
    await chooseRowAction(page, 'follower', 'Rotate…');
    const policy = page.getByTestId('rotation-policy');
    await expect(policy.getByTestId('policy-in-effect')).toHaveText('AUTOMATIC: batches of 5, 2 s pause, Ready within 300 s, approval: none.');
    await expect(policy.getByTestId('policy-source')).toHaveText('the namespace default');
  });

  await test.step('V4 a namespace viewer reads the default and is offered no editor', async () => {
    const apiKey = await createUserWithNamespaceRole(page, `viewer-${stamp}`, 'rol_namespace-viewer', namespaceId);
    const context = await browser.newContext({ baseURL: stack.consoleUrl, viewport: { width: 1280, height: 900 } });
    try {
      const viewer = await context.newPage();
      await signIn(viewer, apiKey);
      await viewer.goto(`/secrets?namespace=${namespaceId}`);
      const theirs = viewer.getByRole('region', { name: 'Rotation default' });
      await theirs.getByRole('button', { name: 'Show the rotation default' }).click();
      await expect(theirs.getByTestId('namespace-policy')).toHaveText('AUTOMATIC: batches of 5, 2 s pause, Ready within 300 s, approval: none.');
      await expect(theirs.getByText('A namespace administrator sets it.')).toBeVisible();
      await expect(theirs.getByRole('button', { name: 'Edit the namespace default' })).toHaveCount(0);
    } finally {
      await context.close();
    }
  });

  await test.step('V4 the administrator clears it: manual again', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await section.getByRole('button', { name: 'Show the rotation default' }).click();
    await section.getByRole('button', { name: 'Edit the namespace default' }).click();
    await section.getByRole('radio', { name: 'No default (manual)' }).check();
    await section.getByRole('button', { name: 'Save rotation policy' }).click();
    await expect(section.getByTestId('policy-saved')).toHaveText('Saved. No default: manual.');
    await expect(current).toHaveText(/^None:/);
  });
});
