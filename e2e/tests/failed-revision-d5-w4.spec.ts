import { createReadyNamespace, createSecret, signIn } from '../support/console';
import { axe } from '../support/a11y';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';
import { createForeignSecret } from '../support/kube';

// A revision that fails after admission, through the cluster as it is (no test hook in the product):
// before the second deploy, a Kubernetes Secret that is not the control plane's is created under the
// name revision 2's model-auth copy gets (D5). Admission does not look there, so the deploy is
// admitted; preparation finds the object, refuses to adopt it (W4) and fails the revision at once
// (W1: a permanent failure with a code). Deterministic: the object is there before the deploy.
test('D5 W4 W1 a revision that fails in preparation shows FAILED with its code, a readable message and what to do; revision 1 stays active; axe passes', async ({ page, stack, snap }) => {
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-failed-${stamp}`);
  const modelKeyId = await createSecret(page, namespaceId, 'model-key');
  const created = await gqlInPage<{ createAgent: { __typename: string; agent?: { id: string; servicePrincipalId: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } ... on Error { code message } } }',
    { input: { namespaceId, name: 'fail-bot', harnessAuth: { provider: 'openai', source: { id: modelKeyId } } } },
  );
  expect(created.createAgent.__typename, JSON.stringify(created.createAgent)).toBe('CreateAgentSuccess');
  const agent = created.createAgent.agent!;
  await grantSecretOperator(page, agent.servicePrincipalId, namespaceId, modelKeyId);

  await test.step('revision 1 runs', async () => {
    await deployToActive(page, agent.id);
  });

  await test.step('someone creates a Secret of their own where revision 2\'s model-auth copy goes', async () => {
    const locator = await gqlInPage<{ secret: { backendLocator: { k8sNamespace: string } } }>(
      page,
      'query($id: ID!) { secret(id: $id) { backendLocator { k8sNamespace } } }',
      { id: modelKeyId },
    );
    await createForeignSecret(stack, locator.secret.backendLocator.k8sNamespace, `model-auth-${agent.id.replace(/^agt_/, '')}-2`, 'not the model key');
  });

  const deploy = page.getByTestId('deploy');
  await test.step('deploy again from the agent page: admitted, then the progress ends FAILED with the code, the message and what to do', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${agent.id}`);
    await expect(page.getByRole('heading', { name: 'Agent fail-bot', level: 1 })).toBeVisible();
    await expect(deploy.getByTestId('deploy-verdict')).toContainText('Every check passes');
    await deploy.getByRole('button', { name: 'Deploy again' }).click();
    const progress = deploy.getByTestId('deploy-progress');
    await expect(progress).toHaveAttribute('data-state', 'FAILED', { timeout: 60_000 });
    await expect(progress).toContainText('Revision 2');
    const failure = progress.getByRole('alert');
    await expect(failure.getByTestId('failure-code')).toHaveText('BACKEND_IDENTITY_CHANGED');
    await expect(failure).toContainText('not ours');
    await expect(failure.getByTestId('failure-advice')).toContainText('never adopts another');
    await expect(failure.getByTestId('failure-advice')).toContainText('then deploy again');
  });

  await test.step('the revisions list: revision 2 FAILED with its code, message and advice; revision 1 still the active one', async () => {
    const revisions = page.getByTestId('revisions');
    const second = revisions.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 2/ }) });
    const first = revisions.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 1/ }) });
    await expect(second.getByTestId('revision-state')).toHaveText('FAILED');
    await expect(second.getByTestId('failure-code')).toHaveText('BACKEND_IDENTITY_CHANGED');
    await expect(second.getByTestId('revision-failure')).toContainText('The running gateway was not changed.');
    await expect(second.getByTestId('failure-advice')).toContainText('What to do:');
    await expect(second.getByTestId('active-marker')).toHaveCount(0);
    await expect(first.getByTestId('revision-state')).toHaveText('ACTIVE');
    await expect(first.getByTestId('active-marker')).toBeVisible();
    await expect(first.getByTestId('revision-failure')).toHaveCount(0);
    await snap('revision-failed');
  });

  await test.step('axe passes on the failed state, light and dark', async () => {
    await axe(page, 'agent page with a failed revision');
    await page.emulateMedia({ colorScheme: 'dark' });
    await axe(page, 'agent page with a failed revision (dark)');
  });
});
