import { expect as rawExpect, type Page } from '@playwright/test';
import { accessibleEverywhere } from '../support/a11y';
import { chooseRowAction, createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { createUserWithNamespaceRole, deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';
import { kubeRequest } from '../support/kube';

// V4 rotation rollouts in the console. (1) An administrator gives a secret bound to two running
// agents its own AUTOMATIC policy (batches of 1, approval by another administrator) in the rotate
// panel, rotates it there and sees the rollout AWAITING_APPROVAL; approving it himself is refused
// (CONFLICT, he is the rotator). A second administrator (namespace-admin, made through GraphQL)
// approves it in the console and watches the batches until SUCCEEDED. (2) A rollout whose version
// object is deleted out of band during its pause: the batch's deploy is refused (D3), and the
// console shows ROLLED_BACK with the reason BACKEND_IDENTITY_CHANGED. Agents are set up through
// GraphQL: the deploy journey covers that in the UI.

/** A secret at version 1, a configuration binding it, and `names` agents running it. */
async function fleet(page: Page, namespaceId: string, secretName: string, names: string[]): Promise<string> {
  const secret = await gqlInPage<{ createSecret: { secret: { id: string } } }>(
    page,
    'mutation($input: CreateSecretInput!) { createSecret(input: $input) { ... on CreateSecretSuccess { secret { id } } } }',
    { input: { namespaceId, name: secretName, value: `v1-${Date.now()}` } },
  );
  const secretId = secret.createSecret.secret.id;
  const configuration = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(
    page,
    'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }',
    { input: { namespaceId, name: `${secretName}-conf`, values: {}, secretBindings: [{ envName: 'TOKEN', source: { id: secretId } }] } },
  );
  const agentIds: string[] = [];
  for (const name of names) {
    const created = await gqlInPage<{ createAgent: { servicePrincipalId: string; agent: { id: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { servicePrincipalId agent { id } } } }',
      { input: { namespaceId, name, configurationId: configuration.createConfiguration.configuration.id } },
    );
    await grantSecretOperator(page, created.createAgent.servicePrincipalId, namespaceId, secretId);
    agentIds.push(created.createAgent.agent.id);
  }
  for (const agentId of agentIds) await deployToActive(page, agentId, 90_000);
  return secretId;
}

async function rotateInConsole(page: Page, secretName: string, value: string): Promise<void> {
  await page.getByLabel(`New value for ${secretName}`).fill(value);
  await page.getByRole('button', { name: 'Store new value' }).click();
}

async function openRotatePanel(page: Page, namespaceId: string, secretName: string): Promise<void> {
  await page.goto(`/secrets?namespace=${namespaceId}`);
  await chooseRowAction(page, secretName, 'Rotate…');
  await expect(page.getByTestId('rotation-policy')).toBeVisible();
}

test('V4 rotation rollouts: a policy set in the console, approval by another administrator, batches until SUCCEEDED; a version deleted out of band rolls back', async ({
  page,
  browser,
  stack,
  snap,
}) => {
  test.setTimeout(480_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-rollout-${stamp}`);
  await fleet(page, namespaceId, 'shared-token', ['alpha', 'beta']);

  await openRotatePanel(page, namespaceId, 'shared-token');
  const policy = page.getByTestId('rotation-policy');

  await test.step('V4 the policy in effect and its source: the default, manual', async () => {
    await expect(policy.getByTestId('policy-in-effect')).toHaveText(/^MANUAL/);
    await expect(policy.getByTestId('policy-source')).toHaveText('the default (no namespace default is set)');
    await accessibleEverywhere(page, 'rotation-policy-default');
  });

  await test.step('V4 a bad batch size is refused and named by field (INVALID_ROTATION_POLICY, policy.batchSize)', async () => {
    await policy.getByRole('button', { name: 'Edit rotation policy' }).click();
    await policy.getByRole('radio', { name: 'Its own policy' }).check();
    await policy.getByLabel('Mode').selectOption('AUTOMATIC');
    await policy.getByLabel('Batch size').fill('0');
    await policy.getByRole('button', { name: 'Save rotation policy' }).click();
    const alert = policy.getByRole('alert');
    await expect(alert).toHaveAttribute('data-error-code', 'INVALID_ROTATION_POLICY');
    await expect(alert).toContainText('policy.batchSize');
    await expect(policy.getByLabel('Batch size')).toHaveAttribute('aria-invalid', 'true');
    await expect(policy.getByTestId('field-error-batchSize')).toBeVisible();
    await snap('policy-invalid');
    await accessibleEverywhere(page, 'rotation-policy-invalid');
  });

  await test.step('V4 its own policy: AUTOMATIC, batches of 1, approval by another administrator', async () => {
    await policy.getByLabel('Batch size').fill('1');
    await policy.getByLabel('Pause (seconds)').fill('1');
    await policy.getByLabel('Ready deadline (seconds)').fill('120');
    await policy.getByLabel('Approval').selectOption('OTHER_ADMINISTRATOR');
    await policy.getByRole('button', { name: 'Save rotation policy' }).click();
    await expect(policy.getByTestId('policy-saved')).toBeVisible();
    await expect(policy.getByTestId('policy-in-effect')).toHaveText(
      'AUTOMATIC: batches of 1, 1 s pause, Ready within 120 s, approval: an administrator other than the rotator.',
    );
    await expect(policy.getByTestId('policy-source')).toHaveText('this secret’s own policy');
    await snap('policy-saved');
  });

  const rollout = page.getByTestId('rollout');
  await test.step('V4 A3 rotate: the rollout opens AWAITING_APPROVAL; the rotator is shown Approve disabled with the reason, and pressing it does nothing', async () => {
    await rotateInConsole(page, 'shared-token', `v2-${stamp}`);
    const delivery = page.getByTestId('delivery-rollout');
    await expect(delivery).toContainText('now AWAITING_APPROVAL, delivering version 2');
    await delivery.getByRole('link', { name: 'Follow its progress' }).click();
    await expect(rollout).toBeFocused();
    await expect(rollout.getByTestId('rollout-state')).toHaveText('AWAITING_APPROVAL');
    await expect(rollout.getByTestId('rollout-target')).toHaveText('2');
    await expect(rollout.getByTestId('no-batches')).toContainText('awaits approval');
    await expect(rollout.getByRole('status').filter({ hasText: 'Rollout AWAITING_APPROVAL' })).toHaveCount(1);
    // Only the decisions the state allows.
    await expect(rollout.getByRole('button', { name: 'Resume rollout' })).toHaveCount(0);
    const approve = rollout.getByRole('button', { name: 'Approve rollout' });
    await expect(approve).toHaveAttribute('aria-disabled', 'true');
    await expect(approve).toHaveAccessibleDescription('This rollout needs an administrator other than the one who rotated the secret.');
    await expect(rollout.getByRole('button', { name: 'Pause rollout' })).not.toHaveAttribute('aria-disabled', 'true');
    await approve.click({ force: true });
    await expect(rollout.getByRole('alert')).toHaveCount(0);
    await expect(rollout.getByTestId('rollout-state')).toHaveText('AWAITING_APPROVAL');
    await snap('awaiting-approval');
    await accessibleEverywhere(page, 'rollout-awaiting-approval');
  });

  await test.step('V4 a second administrator approves in the console; the batches run one agent each until SUCCEEDED', async () => {
    const apiKey = await createUserWithNamespaceRole(page, `second-admin-${stamp}`, 'rol_namespace-admin', namespaceId);

    const context = await browser.newContext({ baseURL: stack.consoleUrl, viewport: { width: 1280, height: 900 } });
    try {
      const second = await context.newPage();
      await signIn(second, apiKey);
      await openRotatePanel(second, namespaceId, 'shared-token');
      const theirs = second.getByTestId('rollout');
      await expect(theirs.getByTestId('rollout-state')).toHaveText('AWAITING_APPROVAL');
      await accessibleEverywhere(second, 'rollout-second-administrator');
      await expect(theirs.getByRole('button', { name: 'Approve rollout' })).not.toHaveAttribute('aria-disabled', 'true');
      await theirs.getByRole('button', { name: 'Approve rollout' }).click();
      await expect(theirs.getByTestId('decision-outcome')).toBeVisible();
      await expect(theirs.getByTestId('rollout-state')).toHaveText('SUCCEEDED', { timeout: 120_000 });
      const batches = theirs.getByTestId('rollout-batch');
      await expect(batches).toHaveCount(2);
      await expect(batches.getByTestId('batch-state')).toHaveText(['READY', 'READY']);
      await expect(batches.nth(0).getByTestId('rollout-member')).toHaveCount(1);
      await expect(batches.nth(1).getByTestId('rollout-member')).toHaveCount(1);
      const agents = (await batches.getByTestId('rollout-member').getByRole('rowheader').allInnerTexts()).sort();
      rawExpect(agents).toEqual(['alpha', 'beta']);
      await expect(batches.getByTestId('member-revision-state')).toHaveText(['ACTIVE', 'ACTIVE']);
      // Ended: no decision is offered any more.
      await expect(theirs.getByRole('group', { name: 'Rollout decisions' })).toHaveCount(0);
      await second.screenshot({ path: test.info().outputPath('second-administrator-succeeded.png'), fullPage: true });
      await accessibleEverywhere(second, 'rollout-succeeded');
    } finally {
      await context.close();
    }
    // The rotator's own page, still open, followed the rollout to its end by polling.
    await expect(rollout.getByTestId('rollout-state')).toHaveText('SUCCEEDED', { timeout: 30_000 });
    await expect(rollout.getByTestId('rollout-batch')).toHaveCount(2);
    await snap('succeeded');
  });

  await test.step('V4 a version object deleted out of band: the batch is refused and the rollout ends ROLLED_BACK, BACKEND_IDENTITY_CHANGED', async () => {
    const secretId = await fleet(page, namespaceId, 'fragile-token', ['gamma']);
    const set = await gqlInPage<{ setSecretRotationPolicy: { __typename: string } }>(
      page,
      'mutation($input: SetSecretRotationPolicyInput!) { setSecretRotationPolicy(input: $input) { __typename ... on Error { code message } } }',
      { input: { secretId, policy: { mode: 'AUTOMATIC', batchSize: 1, pauseSeconds: 6, readySeconds: 5, approval: 'NONE' } } },
    );
    rawExpect(set.setSecretRotationPolicy.__typename, JSON.stringify(set.setSecretRotationPolicy)).toBe('SetSecretRotationPolicySuccess');
    await openRotatePanel(page, namespaceId, 'fragile-token');
    await expect(page.getByTestId('rotation-policy').getByTestId('policy-in-effect')).toHaveText(
      'AUTOMATIC: batches of 1, 6 s pause, Ready within 5 s, approval: none.',
    );
    await rotateInConsole(page, 'fragile-token', `v2-${stamp}`);
    await expect(page.getByTestId('delivery-rollout')).toContainText('delivering version 2');
    // Within the pause, before the first batch: delete version 2's Kubernetes Secret as kubectl would.
    const located = await gqlInPage<{ secret: { version: number; backendLocator: { k8sNamespace: string; name: string } } }>(
      page,
      'query($id: ID!) { secret(id: $id) { version backendLocator { k8sNamespace name } } }',
      { id: secretId },
    );
    rawExpect(located.secret.version).toBe(2);
    const { k8sNamespace, name } = located.secret.backendLocator;
    const deleted = await kubeRequest(stack, 'DELETE', `/api/v1/namespaces/${k8sNamespace}/secrets/${name}`);
    rawExpect([200, 202], `DELETE secret ${k8sNamespace}/${name}: HTTP ${deleted.status}`).toContain(deleted.status);

    const fragile = page.getByTestId('rollout');
    await expect(fragile.getByTestId('rollout-state')).toHaveText('ROLLED_BACK', { timeout: 120_000 });
    await expect(fragile.getByTestId('rollout-reason')).toContainText('BACKEND_IDENTITY_CHANGED');
    const batch = fragile.getByTestId('rollout-batch');
    await expect(batch).toHaveCount(1);
    await expect(batch.getByTestId('rollout-member').getByRole('rowheader')).toHaveText('gamma');
    // The member's deploy was refused (D3 on the missing object), with the API's code and words.
    await expect(batch.getByTestId('member-refusal')).toContainText('BACKEND_IDENTITY_CHANGED');
    await expect(batch.getByTestId('member-refusal')).toContainText('no longer exists');
    await expect(fragile.getByRole('group', { name: 'Rollout decisions' })).toHaveCount(0);
    await expect(fragile.getByRole('status').filter({ hasText: 'Rollout ROLLED_BACK' })).toContainText('Reason: BACKEND_IDENTITY_CHANGED');
    await snap('rolled-back');
    await accessibleEverywhere(page, 'rollout-rolled-back');
  });
});
