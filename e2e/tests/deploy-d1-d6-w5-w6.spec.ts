import { randomUUID } from 'node:crypto';
import { expect as rawExpect, type Page } from '@playwright/test';
import { chooseRowAction, confirmByTyping, createReadyNamespace, openCreate, pickSecret, rowId, secretRow, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { gqlInPage } from '../support/graphql';
import { gatewayDeployment, kubeRequest } from '../support/kube';

// Journey (a), as an administrator does it in the console: a secret, a configuration
// binding it through the picker, an agent; the deploy checks (D6) show the agent's missing grant
// before any click; "Grant it" grants exactly that; deploy runs to active (D4, W4, W5); the
// revision shows the gateway's references (env name → secret, key `value`, never a value), and
// the gateway Deployment in Kubernetes holds exactly those; stop (W6). Then the Kubernetes Secret
// loses its key: the D3 check fails before any click, with its fix; after a rotation stores the
// value again, a new deploy runs to active with the new version.

const ENV_NAME = 'DEPLOY_TOKEN';
const nativeDocument = {
  channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: ENV_NAME } } },
};

async function createSecretWithValue(page: Page, namespaceId: string, name: string, value: string): Promise<string> {
  await page.goto(`/secrets?namespace=${namespaceId}`);
  await openCreate(page, 'New secret');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Create secret' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Stored.' })).toBeVisible();
  return (await rowId(secretRow(page, name), 'sec').innerText()).trim();
}

async function backendOf(page: Page, secretId: string): Promise<{ k8sNamespace: string; name: string; key: string }> {
  const data = await gqlInPage<{ secret: { backendLocator: { k8sNamespace: string; name: string; key: string } } }>(
    page,
    'query($id: ID!) { secret(id: $id) { backendLocator { k8sNamespace name key } } }',
    { id: secretId },
  );
  return data.secret.backendLocator;
}

test('D6 A3 D2 D4 W4 W5 W6 deploy journey: the checks show the missing grant, "Grant it" fixes it, deploy runs to active, the revision shows the gateway\'s references, stop', async ({ page, stack, snap }) => {
  test.setTimeout(480_000);
  const stamp = Date.now().toString(36);
  const secretValue = `deploy-value-${randomUUID()}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-deploy-${stamp}`);
  const secretId = await createSecretWithValue(page, namespaceId, 'deploy-token', secretValue);

  await test.step('a configuration binds the secret through the picker, with a native document that references it', async () => {
    await page.goto(`/configurations?namespace=${namespaceId}`);
    await openCreate(page, 'New configuration');
    await page.getByLabel('Configuration name').fill('deploy-gateway');
    await page.getByLabel('Values (JSON)').fill(JSON.stringify(nativeDocument, null, 2));
    await page.getByRole('button', { name: 'Add binding' }).click();
    await page.getByLabel('Env name of binding 1').fill(ENV_NAME);
    await pickSecret(page, 'Secret of binding 1', 'deploy-token');
    await page.getByRole('button', { name: 'Create configuration' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Configuration deploy-gateway created' })).toBeVisible();
  });

  let agentId = '';
  let servicePrincipalId = '';
  await test.step('an agent selects it and gets its own service principal', async () => {
    await page.goto(`/agents?namespace=${namespaceId}`);
    await openCreate(page, 'New agent');
    await page.getByLabel('Agent name').fill('deploy-bot');
    await page.getByLabel('Configuration').selectOption({ label: 'deploy-gateway' });
    await page.getByRole('button', { name: 'Create agent' }).click();
    const callout = page.getByTestId('service-principal');
    await expect(callout).toContainText('deploy-token');
    servicePrincipalId = (await callout.locator('.principal-id').innerText()).trim();
    await page.getByRole('link', { name: 'Open agent deploy-bot' }).click();
    await expect(page.getByRole('heading', { name: 'Agent deploy-bot', level: 1 })).toBeVisible();
    agentId = new URL(page.url()).searchParams.get('id') ?? '';
    expect(agentId).toMatch(/^agt_/);
  });

  const deploy = page.getByTestId('deploy');
  const deployButton = deploy.getByRole('button', { name: /^Deploy( again)?$/ });
  const agentCheck = deploy.locator('[data-check="AGENT_MAY_OPERATE_SECRET"]');

  await test.step('D6 before any click: every check with pass or fail; the failing one names the principal and the grant to add', async () => {
    await expect(deploy.getByTestId('deploy-checks').getByRole('listitem')).toHaveCount(7);
    for (const id of ['CALLER_MAY_DEPLOY', 'NAMESPACE_READY', 'AGENT_ACTIVE', 'CHANNEL_BINDINGS', 'CALLER_MAY_OPERATE_SECRET', 'BACKEND_IDENTITY']) {
      await expect(deploy.locator(`[data-check="${id}"]`)).toHaveAttribute('data-passed', 'true');
    }
    await expect(agentCheck).toHaveAttribute('data-passed', 'false');
    await expect(agentCheck).toContainText('Fail');
    await expect(agentCheck).toContainText(servicePrincipalId);
    await expect(agentCheck).toContainText(`Fix: Grant ${servicePrincipalId} the role secret-operator on secret ${secretId}`);
    await expect(deploy.getByTestId('deploy-verdict')).toContainText('1 of 7 checks fail');
    await expect(deployButton).toBeDisabled();
    await expect(page.getByTestId('revisions')).toContainText('Not deployed yet');
    await snap('checks-missing-grant');
  });

  await test.step('A3 "Grant it" grants exactly secret-operator on that one secret, and the checks pass', async () => {
    await agentCheck.getByRole('button', { name: /^Grant it/ }).click();
    await expect(page.getByTestId('toasts')).toContainText('Granted secret-operator on secret deploy-token.');
    await expect(agentCheck).toHaveAttribute('data-passed', 'true');
    await expect(deploy.getByTestId('deploy-verdict')).toContainText('Every check passes');
    await expect(deployButton).toBeEnabled();
    await expect(deployButton).toBeFocused();
    // Exactly that grant, on the secret: not the namespace.
    const grants = page.getByRole('table', { name: "Grants of the agent's service principal" });
    await expect(grants.getByRole('row')).toHaveCount(2);
    await expect(grants.getByRole('row').nth(1)).toContainText('secret-operator');
    await expect(grants.getByRole('row').nth(1)).toContainText('secret deploy-token');
    await snap('checks-pass');
  });

  await test.step('D4 W5 deploy: progress until the revision is active', async () => {
    await deployButton.click();
    const progress = deploy.getByTestId('deploy-progress');
    await expect(progress).toBeVisible();
    await expect(progress).toHaveAttribute('data-state', 'ACTIVE', { timeout: 60_000 });
    await expect(progress).toContainText('Revision 1 active.');
    await expect(progress.locator('[aria-current="step"]')).toHaveText('active');
    await snap('deploy-active');
  });

  await test.step('W4 the revision shows the gateway\'s references, and the gateway Deployment holds exactly those', async () => {
    const revision = page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 1/ }) });
    await expect(revision.getByTestId('revision-state')).toHaveText('ACTIVE');
    await expect(revision.getByTestId('active-marker')).toBeVisible();
    await expect(revision.getByTestId('revision-configuration')).toContainText('deploy-gateway generation 1');
    await expect(revision).toContainText('you');
    const references = revision.getByTestId('revision-references');
    const row = references.getByRole('row', { name: new RegExp(ENV_NAME) });
    await expect(row.getByRole('cell')).toHaveText(['deploy-token', 'value', 'v1', 'gateway']);

    // What Kubernetes runs: the gateway container reads DEPLOY_TOKEN from the secret's own
    // Kubernetes Secret, key `value`, through secretKeyRef: no value in the Deployment.
    const backend = await backendOf(page, secretId);
    const deployment = await gatewayDeployment(stack, backend.k8sNamespace, agentId);
    const gateway = deployment.spec.template.spec.containers.find((c) => c.name === 'gateway');
    const env = gateway?.env?.find((e) => e.name === ENV_NAME);
    rawExpect(env).toEqual({ name: ENV_NAME, valueFrom: { secretKeyRef: { name: backend.name, key: 'value', optional: false } } });
    rawExpect(backend.key).toBe('value');
    rawExpect(JSON.stringify(deployment)).not.toContain(secretValue);

    await revision.getByText('Native document of revision 1, as frozen').click();
    const document = revision.getByTestId('native-document');
    await expect(document).toBeVisible();
    rawExpect(JSON.parse(await document.innerText())).toEqual(nativeDocument);
    await snap('revision-references');
    rawExpect(await page.content()).not.toContain(secretValue);
  });

  await test.step('W6 stop: typed confirmation, a toast, the revision stopped', async () => {
    await deploy.getByRole('button', { name: 'Stop deploy-bot' }).click();
    await snap('stop-dialog');
    await confirmByTyping(page, 'deploy-bot', 'Stop agent deploy-bot');
    await expect(page.getByTestId('toasts')).toContainText('Agent deploy-bot stopped: its gateway is scaled to zero.');
    const revision = page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 1/ }) });
    await expect(revision.getByTestId('revision-state')).toHaveText('STOPPED');
    await expect(deploy.getByRole('button', { name: 'Deploy', exact: true })).toBeEnabled();
    await expect(deploy.getByRole('button', { name: 'Stop deploy-bot' })).toHaveCount(0);
    const backend = await backendOf(page, secretId);
    rawExpect((await gatewayDeployment(stack, backend.k8sNamespace, agentId)).spec.replicas).toBe(0);
    await snap('stopped');
  });

  await test.step('V1 D3 a version\'s Kubernetes Secret deleted out of band fails its check before any click, with the fix; deploy stays disabled', async () => {
    // A version's object is immutable (V1): the API server refuses to edit its bytes (an operator
    // removing its key is a 422), so what can happen to it out of band is a delete. A gateway
    // could not start without it: deploy refuses first.
    const backend = await backendOf(page, secretId);
    const path = `/api/v1/namespaces/${backend.k8sNamespace}/secrets/${backend.name}`;
    const patched = await kubeRequest(stack, 'PATCH', path, { contentType: 'application/json-patch+json', json: [{ op: 'remove', path: '/data/value' }] });
    rawExpect(patched.status).toBe(422);
    rawExpect(JSON.stringify(patched.body)).toContain('immutable');
    rawExpect((await kubeRequest(stack, 'DELETE', path)).status).toBe(200);
    await page.reload();
    const identity = deploy.locator('[data-check="BACKEND_IDENTITY"]');
    await expect(identity).toHaveAttribute('data-passed', 'false');
    await expect(identity).toContainText('The Kubernetes Secret of secret deploy-token');
    await expect(identity).toContainText('no longer exists');
    await expect(identity).toContainText('Fix: Restore the recorded object');
    await expect(identity.getByRole('button')).toHaveCount(0); // no one-click fix: not a grant
    await expect(deploy.getByTestId('deploy-verdict')).toContainText('1 of 7 checks fail');
    await expect(deploy.getByRole('button', { name: 'Deploy', exact: true })).toBeDisabled();
    await snap('backend-identity-fails');
  });

  await test.step('S6 D4 W5 rotating stores the value under its key again; a new deploy runs to active with version 2', async () => {
    // Rotating stores the value under `value` again; the next deploy starts.
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await chooseRowAction(page, 'deploy-token', 'Rotate…');
    await page.getByLabel('New value for deploy-token').fill(`deploy-value-${randomUUID()}`);
    await page.getByRole('button', { name: 'Store new value' }).click();
    await expect(page.getByTestId('delivery')).toContainText('Now at version 2');
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    await expect(deploy.getByTestId('deploy-verdict')).toContainText('Every check passes');
    await deploy.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect(deploy.getByTestId('deploy-progress')).toHaveAttribute('data-state', 'ACTIVE', { timeout: 60_000 });
    await expect(deploy.getByTestId('deploy-progress')).toContainText('Revision 2 active.');
    const revision2 = page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: /^Revision 2/ }) });
    await expect(revision2.getByTestId('active-marker')).toBeVisible();
    await expect(page.getByTestId('active-marker')).toHaveCount(1);
    await expect(revision2.getByTestId('revision-references').getByRole('row', { name: new RegExp(ENV_NAME) }).getByRole('cell')).toHaveText([
      'deploy-token',
      'value',
      'v2',
      'gateway',
    ]);
    await snap('recovered');
  });
});
